package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.testkit.replication.ReplicationEnvironment;
import io.jetstream.kafka.testkit.site.SiteFiles;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Connector;
import org.apache.kafka.connect.runtime.SinkConnectorConfig;
import org.apache.kafka.connect.runtime.SourceConnectorConfig;
import org.apache.kafka.connect.sink.SinkConnector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Kubernetes manifests under {@code config/kubernetes/} checked without a cluster (CI has no
 * kubectl): every document parses and is a kind this test knows; Deployments' selectors match
 * their pod labels, their probes ask the relay's admin port for {@code /health}, their files are
 * mounted where the embedded {@code relay.yaml} reads them, and that {@code relay.yaml} loads with
 * the relay's own loader; Services and PodDisruptionBudgets select pods that exist; Strimzi's
 * KafkaConnect enables connector resources and builds the plugin in, and every KafkaConnector key
 * is declared by the connector (loaded from its packaged plugin, as a worker loads it) or by
 * Connect itself.
 */
class KubernetesManifestsTest {

    private static final Path KUBERNETES = SiteFiles.configFile("kubernetes");
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([^}:]+):([^}]*)}");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Set<String> KINDS = Set.of("v1/ConfigMap", "v1/Service", "apps/v1/Deployment",
            "policy/v1/PodDisruptionBudget", "kafka.strimzi.io/v1beta2/KafkaConnect",
            "kafka.strimzi.io/v1beta2/KafkaConnector");

    @TempDir
    Path scratch;

    static List<Path> manifests() throws IOException {
        try (Stream<Path> files = Files.walk(KUBERNETES)) {
            return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
        }
    }

    private static List<JsonNode> documents(Path file) throws IOException {
        try (JsonParser parser = YAML.getFactory().createParser(file.toFile());
             MappingIterator<JsonNode> docs = YAML.readValues(parser, JsonNode.class)) {
            return docs.readAll().stream().filter(doc -> doc != null && !doc.isNull() && !doc.isMissingNode()).toList();
        }
    }

    private static List<JsonNode> ofKind(List<JsonNode> docs, String kind) {
        return docs.stream().filter(doc -> kind.equals(doc.path("kind").asText())).toList();
    }

    @Test
    void thereAreRelayAndStrimziManifests() throws IOException {
        List<String> kinds = new ArrayList<>();
        for (Path file : manifests()) {
            documents(file).forEach(doc -> kinds.add(doc.path("kind").asText()));
        }
        assertThat(kinds).contains("ConfigMap", "Deployment", "Service", "PodDisruptionBudget", "KafkaConnect",
                "KafkaConnector");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("manifests")
    void everyDocumentIsAKnownKindWithAName(Path file) throws IOException {
        List<JsonNode> docs = documents(file);
        assertThat(docs).as(file.toString()).isNotEmpty();
        Set<String> names = new HashSet<>();
        for (JsonNode doc : docs) {
            String kind = doc.path("apiVersion").asText() + "/" + doc.path("kind").asText();
            assertThat(KINDS).as(file + ": a kind this test checks").contains(kind);
            String name = doc.path("metadata").path("name").asText();
            assertThat(name).as(file + ": metadata.name of a " + kind).matches(DNS_LABEL).hasSizeLessThanOrEqualTo(63);
            assertThat(names.add(kind + "/" + name)).as(file + ": " + kind + " " + name + " twice").isTrue();
            assertThat(doc.path("metadata").has("namespace")).as(file + ": no namespace, kubectl -n chooses it")
                    .isFalse();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("manifests")
    void deploymentsSelectTheirPodsProbeHealthAndMountWhatTheRelayReads(Path file) throws Exception {
        List<JsonNode> docs = documents(file);
        for (JsonNode deployment : ofKind(docs, "Deployment")) {
            String what = file.getFileName() + " Deployment " + deployment.path("metadata").path("name").asText();
            JsonNode spec = deployment.path("spec");
            JsonNode podLabels = spec.path("template").path("metadata").path("labels");
            assertThat(matches(spec.path("selector").path("matchLabels"), podLabels)).as(what + ": selector")
                    .isTrue();
            assertThat(spec.path("replicas").asInt(0)).as(what + ": replicas").isPositive();
            JsonNode pod = spec.path("template").path("spec");
            assertThat(pod.path("securityContext").path("runAsNonRoot").asBoolean()).as(what).isTrue();
            assertThat(pod.path("securityContext").path("runAsUser").asInt()).as(what + ": the image's user")
                    .isEqualTo(10001);
            JsonNode container = pod.path("containers").path(0);
            assertThat(container.path("image").asText()).as(what + ": image").isNotBlank();
            Map<String, Integer> ports = new java.util.HashMap<>();
            container.path("ports").forEach(p -> ports.put(p.path("name").asText(), p.path("containerPort").asInt()));
            assertThat(ports).as(what + ": ports").containsOnlyKeys("data", "admin");
            for (String probe : List.of("startupProbe", "readinessProbe", "livenessProbe")) {
                JsonNode get = container.path(probe).path("httpGet");
                assertThat(get.path("path").asText()).as(what + ": " + probe).isEqualTo("/health");
                assertThat(get.path("port").asText()).as(what + ": " + probe + " port").isEqualTo("admin");
            }
            Map<String, JsonNode> volumes = new java.util.HashMap<>();
            pod.path("volumes").forEach(v -> volumes.put(v.path("name").asText(), v));
            container.path("volumeMounts").forEach(m -> assertThat(volumes).as(what + ": volume of mount " + m)
                    .containsKey(m.path("name").asText()));

            RelayConfig relay = loadRelayConfig(what, docs, volumes, container);
            assertThat(relay.listenerAddress().getPort()).as(what + ": data port").isEqualTo(ports.get("data"));
            assertThat(relay.adminAddress().getPort()).as(what + ": admin port").isEqualTo(ports.get("admin"));
            assertThat(relay.adminAddress().getHostString()).as(what + ": the kubelet probes the pod's address")
                    .isEqualTo("0.0.0.0");
            assertThat(pod.path("terminationGracePeriodSeconds").asLong() * 1000)
                    .as(what + ": grace period longer than the drain")
                    .isGreaterThan(relay.shutdownDrainTimeout().toMillis());
        }
    }

    /**
     * The relay.yaml of the ConfigMap mounted at /etc/jetstream/relay.yaml, loaded with every file it
     * names present where the pod's mounts put them (a Secret volume's items name its files).
     */
    private RelayConfig loadRelayConfig(String what, List<JsonNode> docs, Map<String, JsonNode> volumes,
                                        JsonNode container) throws Exception {
        JsonNode configMount = null;
        for (JsonNode mount : container.path("volumeMounts")) {
            if (mount.path("mountPath").asText().equals("/etc/jetstream/relay.yaml")) {
                configMount = mount;
            }
        }
        assertThat(configMount).as(what + ": relay.yaml mounted where the image reads it").isNotNull();
        String configMapName = volumes.get(configMount.path("name").asText()).path("configMap").path("name").asText();
        JsonNode configMap = ofKind(docs, "ConfigMap").stream()
                .filter(cm -> cm.path("metadata").path("name").asText().equals(configMapName)).findFirst()
                .orElseThrow(() -> new AssertionError(what + ": ConfigMap " + configMapName + " is not in the file"));
        String yaml = configMap.path("data").path(configMount.path("subPath").asText()).asText();
        assertThat(yaml).as(what + ": relay.yaml in ConfigMap " + configMapName).isNotBlank();

        Path root = Files.createDirectories(scratch.resolve(configMapName));
        // ${secrets:/etc/jetstream/secrets:stream-token}: a file of a mounted directory.
        Set<String> secretDirs = new HashSet<>();
        Matcher variable = VARIABLE.matcher(yaml);
        while (variable.find()) {
            String[] parts = variable.group(2).split(":");
            if (parts.length == 2 && parts[0].startsWith("/etc/jetstream/")) {
                secretDirs.add(parts[0]);
                provide(what, volumes, container, root, parts[0] + "/" + parts[1],
                        "secret-" + parts[1] + "-0123456789abcdef");
            }
        }
        // tls.cert.file and the like: files named as they are.
        Matcher files = Pattern.compile("/etc/jetstream/[A-Za-z0-9_./-]+").matcher(yaml);
        while (files.find()) {
            if (!secretDirs.contains(files.group())) {
                provide(what, volumes, container, root, files.group(), "-----BEGIN CERTIFICATE-----\n");
            }
        }
        Path copy = root.resolve("relay.yaml");
        Files.writeString(copy, yaml.replace("/etc/jetstream/", root + "/etc/jetstream/"));
        return RelayConfig.load(copy);
    }

    /** Checks that a mount provides {@code file}, and writes a stand-in for it under {@code root}. */
    private static void provide(String what, Map<String, JsonNode> volumes, JsonNode container, Path root, String file,
                                String content) throws IOException {
        assertMounted(what, volumes, container, file);
        Path copy = root.resolve(file.substring(1));
        Files.createDirectories(copy.getParent());
        Files.writeString(copy, content);
    }

    /** {@code file} is provided by a mount: a directory mount holding it (a Secret's items, if listed, name it). */
    private static void assertMounted(String what, Map<String, JsonNode> volumes, JsonNode container, String file) {
        for (JsonNode mount : container.path("volumeMounts")) {
            String dir = mount.path("mountPath").asText();
            if (file.startsWith(dir + "/") && file.indexOf('/', dir.length() + 1) < 0) {
                JsonNode items = volumes.get(mount.path("name").asText()).path("secret").path("items");
                String name = file.substring(dir.length() + 1);
                if (items.isMissingNode() || items.findValuesAsText("path").contains(name)) {
                    return;
                }
                throw new AssertionError(what + ": " + file + " is not among the items of the volume mounted at " + dir);
            }
        }
        throw new AssertionError(what + ": nothing is mounted where the relay reads " + file);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("manifests")
    void servicesAndDisruptionBudgetsSelectPodsOfTheFile(Path file) throws IOException {
        List<JsonNode> docs = documents(file);
        List<JsonNode> deployments = ofKind(docs, "Deployment");
        for (JsonNode service : ofKind(docs, "Service")) {
            String what = file.getFileName() + " Service " + service.path("metadata").path("name").asText();
            JsonNode selector = service.path("spec").path("selector");
            List<JsonNode> selected = deployments.stream().filter(d -> matches(selector,
                    d.path("spec").path("template").path("metadata").path("labels"))).toList();
            assertThat(selected).as(what + ": selects the pods of one Deployment").hasSize(1);
            Set<String> portNames = new HashSet<>();
            selected.get(0).path("spec").path("template").path("spec").path("containers").path(0).path("ports")
                    .forEach(p -> portNames.add(p.path("name").asText()));
            service.path("spec").path("ports").forEach(p -> assertThat(portNames).as(what + ": targetPort")
                    .contains(p.path("targetPort").asText()));
        }
        for (JsonNode pdb : ofKind(docs, "PodDisruptionBudget")) {
            String what = file.getFileName() + " PodDisruptionBudget " + pdb.path("metadata").path("name").asText();
            JsonNode spec = pdb.path("spec");
            List<JsonNode> selected = deployments.stream().filter(d -> matches(spec.path("selector").path("matchLabels"),
                    d.path("spec").path("template").path("metadata").path("labels"))).toList();
            assertThat(selected).as(what + ": selects pods").isNotEmpty();
            assertThat(spec.has("minAvailable") ^ spec.has("maxUnavailable")).as(what + ": one of the two").isTrue();
            int replicas = selected.stream().mapToInt(d -> d.path("spec").path("replicas").asInt()).sum();
            if (spec.has("minAvailable")) {
                assertThat(spec.path("minAvailable").asInt()).as(what + ": a node drain can still evict a pod")
                        .isLessThan(replicas);
            } else {
                assertThat(spec.path("maxUnavailable").asInt()).as(what).isPositive();
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("manifests")
    void strimziConnectBuildsThePluginInAndEveryConnectorKeyIsDeclared(Path file) throws Exception {
        List<JsonNode> docs = documents(file);
        for (JsonNode connector : ofKind(docs, "KafkaConnector")) {
            String what = file.getFileName() + " KafkaConnector " + connector.path("metadata").path("name").asText();
            String cluster = connector.path("metadata").path("labels").path("strimzi.io/cluster").asText();
            JsonNode connect = ofKind(docs, "KafkaConnect").stream()
                    .filter(c -> c.path("metadata").path("name").asText().equals(cluster)).findFirst()
                    .orElseThrow(() -> new AssertionError(what + ": KafkaConnect " + cluster + " is not in the file"));
            assertThat(connect.path("metadata").path("annotations").path("strimzi.io/use-connector-resources")
                    .asText()).as(what + ": connector resources enabled").isEqualTo("true");
            JsonNode build = connect.path("spec").path("build");
            assertThat(build.path("output").path("image").asText()).as(what + ": build output").isNotBlank();
            JsonNode artifact = build.path("plugins").path(0).path("artifacts").path(0);
            assertThat(artifact.path("type").asText()).as(what + ": plugin artifact").isEqualTo("zip");

            String className = connector.path("spec").path("class").asText();
            String module = className.contains(".source.") ? "connect-source" : "connect-sink";
            assertThat(artifact.path("url").asText()).as(what + ": the plugin zip").contains("jetstream-" + module);
            assertThat(connector.path("spec").path("tasksMax").asInt()).as(what + ": tasksMax").isPositive();

            Set<String> connectMounts = new HashSet<>();
            connect.path("spec").path("template").path("connectContainer").path("volumeMounts")
                    .forEach(m -> connectMounts.add(m.path("mountPath").asText()));
            assertThat(connectMounts).as(what + ": Strimzi mounts additional volumes under /mnt")
                    .allMatch(p -> p.startsWith("/mnt/"));
            List<String> providers = List.of(connect.path("spec").path("config").path("config.providers").asText()
                    .split(","));
            ConfigDef def = connectorConfigDef(module, className);
            connector.path("spec").path("config").fields().forEachRemaining(entry -> {
                String key = entry.getKey();
                String value = entry.getValue().asText();
                assertThat(isDeclared(def, key)).as(what + ": " + key + " is declared by " + className + " or Connect")
                        .isTrue();
                Matcher variable = VARIABLE.matcher(value);
                while (variable.find()) {
                    assertThat(providers).as(what + ": provider of " + variable.group()).contains(variable.group(1));
                    assertThat(variable.group(2)).as(what + ": " + key + " reads a mounted file")
                            .satisfies(path -> assertThat(connectMounts).anyMatch(path::startsWith));
                }
                if (key.startsWith("relay.tls.") && key.endsWith(".file")) {
                    assertThat(connectMounts).as(what + ": " + key + " is mounted").anyMatch(value::startsWith);
                }
            });
        }
    }

    /** The connector's own keys (from the class in its packaged plugin) and Connect's connector keys. */
    private static ConfigDef connectorConfigDef(String module, String className) throws Exception {
        Path plugin = ReplicationEnvironment.pluginFolder(module).resolve("jetstream-" + module).resolve("lib");
        List<URL> jars = new ArrayList<>();
        try (Stream<Path> files = Files.list(plugin)) {
            for (Path jar : files.filter(f -> f.toString().endsWith(".jar")).toList()) {
                jars.add(jar.toUri().toURL());
            }
        }
        try (URLClassLoader loader = new URLClassLoader(jars.toArray(URL[]::new),
                KubernetesManifestsTest.class.getClassLoader())) {
            Connector connector = (Connector) Class.forName(className, true, loader).getDeclaredConstructor()
                    .newInstance();
            ConfigDef def = new ConfigDef(connector.config());
            ConfigDef framework = connector instanceof SinkConnector
                    ? SinkConnectorConfig.configDef() : SourceConnectorConfig.configDef();
            framework.configKeys().values().stream().filter(k -> !def.names().contains(k.name)).forEach(def::define);
            return def;
        }
    }

    private static boolean isDeclared(ConfigDef def, String key) {
        if (def.names().contains(key)) {
            return true;
        }
        for (String prefix : List.of("consumer.override.", "producer.override.", "admin.override.")) {
            if (key.startsWith(prefix)) {
                return true;
            }
        }
        // As MirrorMaker 2: Kafka client settings of the connector's own clients (docs/operations.md).
        Optional<String> clusterPrefix = Stream.of("source.cluster.", "target.cluster.").filter(key::startsWith)
                .findFirst();
        return clusterPrefix.isPresent()
                && AdminClientConfig.configNames().contains(key.substring(clusterPrefix.get().length()));
    }

    /** Every label of the selector is on the pod, with the same value. */
    private static boolean matches(JsonNode selector, JsonNode labels) {
        if (!selector.isObject() || selector.isEmpty()) {
            return false;
        }
        for (Map.Entry<String, JsonNode> label : (Iterable<Map.Entry<String, JsonNode>>) selector::fields) {
            if (!label.getValue().asText().equals(labels.path(label.getKey()).asText(null))) {
                return false;
            }
        }
        return true;
    }
}
