package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.config.StreamSpec;
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
import java.util.Locale;
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
import org.assertj.core.api.SoftAssertions;
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
 * Connect itself, and the plugin zip it downloads is named as the release build names it; each
 * relay set's NetworkPolicy admits only its peers. {@link KubernetesSchemaTest} checks the same
 * files against their APIs' schemas, {@link KubernetesMonitoringManifestsTest} their monitoring.
 */
class KubernetesManifestsTest {

    private static final Path KUBERNETES = SiteFiles.configFile("kubernetes");
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([^}:]+):([^}]*)}");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Set<String> KINDS = Set.of("v1/ConfigMap", "v1/Service", "apps/v1/Deployment",
            "policy/v1/PodDisruptionBudget", "networking.k8s.io/v1/NetworkPolicy", "kafka.strimzi.io/v1/KafkaConnect",
            "kafka.strimzi.io/v1/KafkaConnector", "monitoring.coreos.com/v1/PodMonitor",
            "monitoring.coreos.com/v1/PrometheusRule");

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
                "KafkaConnector", "NetworkPolicy", "PodMonitor", "PrometheusRule");
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
     * names present where the pod's mounts put them (a Secret volume's items name its files). A token
     * file holds a stand-in value that names the Secret key it comes from ({@link SecretKey#standIn()}),
     * so that a loaded token can be traced back to its Secret.
     */
    private RelayConfig loadRelayConfig(String what, List<JsonNode> docs, Map<String, JsonNode> volumes,
                                        JsonNode container) throws Exception {
        return loadRelayConfig(what, relayYaml(what, docs, volumes, container).yaml(),
                secretFiles(volumes, container.path("volumeMounts")));
    }

    /** The ConfigMap name and relay.yaml mounted at /etc/jetstream/relay.yaml. */
    private static ConfigMapFile relayYaml(String what, List<JsonNode> docs, Map<String, JsonNode> volumes,
                                           JsonNode container) {
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
        return new ConfigMapFile(configMapName, yaml);
    }

    private record ConfigMapFile(String name, String yaml) {
    }

    private RelayConfig loadRelayConfig(String what, String yaml, Map<String, SecretKey> secretFiles)
            throws Exception {
        Path root = Files.createTempDirectory(scratch, "relay");
        Set<String> variableFiles = variableFiles(yaml);
        for (String file : relayReads(yaml)) {
            SecretKey source = mountedFrom(what, secretFiles, file);
            provide(root, file, variableFiles.contains(file) ? source.standIn() : "-----BEGIN CERTIFICATE-----\n");
        }
        Path copy = root.resolve("relay.yaml");
        Files.writeString(copy, yaml.replace("/etc/jetstream/", root + "/etc/jetstream/"));
        return RelayConfig.load(copy);
    }

    /** The files of a mounted directory that {@code ${provider:/dir:file}} variables read, as dir/file. */
    private static Set<String> variableFiles(String text) {
        Set<String> files = new java.util.TreeSet<>();
        Matcher variable = VARIABLE.matcher(text);
        while (variable.find()) {
            String[] parts = variable.group(2).split(":");
            if (parts.length == 2 && parts[0].startsWith("/")) {
                files.add(parts[0] + "/" + parts[1]);
            }
        }
        return files;
    }

    /**
     * The files a relay.yaml reads: those of its variables, and each other path under /etc/jetstream/
     * named as it is (tls.cert.file and the like).
     */
    private static Set<String> relayReads(String yaml) {
        Set<String> files = new java.util.TreeSet<>(variableFiles(yaml));
        Set<String> variableDirs = new HashSet<>();
        files.forEach(f -> variableDirs.add(f.substring(0, f.lastIndexOf('/'))));
        Matcher named = Pattern.compile("/etc/jetstream/[A-Za-z0-9_./-]+").matcher(yaml);
        while (named.find()) {
            if (!variableDirs.contains(named.group())) {
                files.add(named.group());
            }
        }
        return files;
    }

    /** Writes a stand-in for {@code file} under {@code root}. */
    private static void provide(Path root, String file, String content) throws IOException {
        Path copy = root.resolve(file.substring(1));
        Files.createDirectories(copy.getParent());
        Files.writeString(copy, content);
    }

    /**
     * The Secret key a mount provides as {@code file}: a Secret (or a projected volume's Secret)
     * mounted at its directory, whose items, if listed, name it.
     */
    private static SecretKey mountedFrom(String what, Map<String, SecretKey> secretFiles, String file) {
        SecretKey listed = secretFiles.get(file);
        if (listed != null) {
            return listed;
        }
        String dir = file.substring(0, file.lastIndexOf('/'));
        SecretKey whole = secretFiles.get(dir + "/*");
        if (whole != null) {
            return new SecretKey(whole.secret(), file.substring(dir.length() + 1));
        }
        if (secretFiles.keySet().stream().anyMatch(f -> f.startsWith(dir + "/"))) {
            throw new AssertionError(what + ": " + file + " is not among the items of the volume mounted at " + dir);
        }
        throw new AssertionError(what + ": nothing is mounted where the pod reads " + file);
    }

    /**
     * The Secret keys a container can read, by the path of their file: Secret volumes and the Secrets
     * of projected volumes, each item a file; a Secret mounted without items is every key of it,
     * recorded as {@code <dir>/*} with key {@code *}.
     */
    private static Map<String, SecretKey> secretFiles(Map<String, JsonNode> volumes, JsonNode mounts) {
        Map<String, SecretKey> files = new java.util.TreeMap<>();
        for (JsonNode mount : mounts) {
            JsonNode volume = volumes.get(mount.path("name").asText());
            if (volume == null) {
                continue;
            }
            String dir = mount.path("mountPath").asText();
            List<JsonNode> secrets = new ArrayList<>();
            if (volume.has("secret")) {
                secrets.add(volume.path("secret"));
            }
            volume.path("projected").path("sources").forEach(source -> {
                if (source.has("secret")) {
                    secrets.add(source.path("secret"));
                }
            });
            for (JsonNode secret : secrets) {
                // A Secret volume names it secretName, a projected volume's Secret source name.
                String name = secret.path(secret.has("secretName") ? "secretName" : "name").asText();
                if (!secret.has("items")) {
                    files.put(dir + "/*", new SecretKey(name, "*"));
                }
                secret.path("items").forEach(item -> files.put(dir + "/" + item.path("path").asText(),
                        new SecretKey(name, item.path("key").asText())));
            }
        }
        return files;
    }

    /**
     * A key of a Kubernetes Secret; {@code *} is every key (a Secret mounted whole). Secrets of one name
     * hold the same value wherever they are created (the manifests' convention: the relay token is one
     * secret at both sites), so a Secret's name identifies a credential across the files.
     */
    private record SecretKey(String secret, String key) {

        boolean covers(SecretKey other) {
            return secret.equals(other.secret) && (key.equals("*") || key.equals(other.key));
        }

        /** A token of at least 16 characters that names this key. */
        String standIn() {
            return "token-of-" + secret + "-" + key;
        }

        @Override
        public String toString() {
            return "Secret " + secret + " key " + key;
        }
    }

    @Test
    void everySecretKeyAPodCanReadIsOneItsConfigurationReads() throws IOException {
        SoftAssertions softly = new SoftAssertions();
        List<Pod> pods = pods();
        assertThat(pods).as("relay and Connect pods").anyMatch(Pod::isRelay).anyMatch(pod -> !pod.isRelay());
        for (Pod pod : pods) {
            for (String file : pod.reads()) {
                String dir = file.substring(0, file.lastIndexOf('/') + 1);
                if (pod.secretFiles().keySet().stream().anyMatch(mounted -> mounted.startsWith(dir))) {
                    mountedFrom(pod.what(), pod.secretFiles(), file);
                }
            }
            pod.secretFiles().forEach((file, key) -> {
                if (key.key().equals("*")) {
                    softly.fail(pod.what() + ": mounts every key of Secret " + key.secret() + " at "
                            + file.substring(0, file.lastIndexOf('/')) + "; list the items it reads");
                } else {
                    softly.assertThat(pod.reads()).as(pod.what() + ": mounts " + key + " as " + file
                            + ", which its configuration never reads").contains(file);
                }
            });
        }
        softly.assertAll();
    }

    /**
     * Least privilege across both sites: the token that grants a role at a relay can be read only by
     * that relay's own pods, by the connectors that act in that role (source-site workers: SENDER,
     * destination-site workers: SUBSCRIBER) and, for RELAY, by relays. So the destination-site workers
     * cannot send or pose as a relay, the source-site workers cannot subscribe, and nobody but a source
     * worker holds a token that makes it a SENDER at the egress relays.
     */
    @Test
    void aTokenThatGrantsARoleAtARelayIsReadableOnlyByThatRelayAndByThePartiesOfTheRole() throws Exception {
        SoftAssertions softly = new SoftAssertions();
        List<Pod> pods = pods();
        for (Pod relay : pods.stream().filter(Pod::isRelay).toList()) {
            Map<String, SecretKey> byStandIn = new java.util.HashMap<>();
            for (String file : variableFiles(relay.relayYaml())) {
                SecretKey source = mountedFrom(relay.what(), relay.secretFiles(), file);
                byStandIn.put(source.standIn(), source);
            }
            RelayConfig config = loadRelayConfig(relay.what(), relay.relayYaml(), relay.secretFiles());
            for (StreamSpec stream : config.streams().values()) {
                for (PeerRole role : PeerRole.values()) {
                    SecretKey granting = byStandIn.get(stream.tokenFor(role).value());
                    assertThat(granting).as(relay.what() + ": the token of " + role + " comes from a Secret")
                            .isNotNull();
                    for (Pod other : pods) {
                        boolean sameRelay = relay.relayConfigMap().equals(other.relayConfigMap());
                        boolean partyOfTheRole = role == other.connectorRole()
                                || role == PeerRole.RELAY && other.isRelay();
                        if (!sameRelay && !partyOfTheRole) {
                            softly.assertThat(other.holds(granting)).as(relay.what() + ": " + role + " of stream "
                                    + stream.id() + " is granted by " + granting + ", which " + other.what()
                                    + " can read").isFalse();
                        }
                    }
                }
            }
        }
        softly.assertAll();
    }

    @Test
    void theSharedTokenGrantsNoRoleAtAnyRelay() throws Exception {
        SoftAssertions softly = new SoftAssertions();
        for (Pod relay : pods().stream().filter(Pod::isRelay).toList()) {
            RelayConfig config = loadRelayConfig(relay.what(), relay.relayYaml(), relay.secretFiles());
            for (StreamSpec stream : config.streams().values()) {
                for (PeerRole role : PeerRole.values()) {
                    softly.assertThat(stream.hasOwnToken(role)).as(relay.what() + ": stream " + stream.id()
                            + " gives " + role + " a token of its own (streams." + stream.id() + "."
                            + role.name().toLowerCase(Locale.ROOT) + ".token), else its shared token grants it")
                            .isTrue();
                }
            }
        }
        softly.assertAll();
    }

    /**
     * Every role at every relay is bound to certificate identities, each role to the same ones at
     * every relay, and no identity is bound to two roles (one workload's certificate cannot take
     * another's role).
     */
    @Test
    void everyRoleAtEveryRelayIsBoundToTheCertificateIdentitiesOfItsParty() throws Exception {
        SoftAssertions softly = new SoftAssertions();
        Map<PeerRole, Set<String>> bound = new java.util.EnumMap<>(PeerRole.class);
        for (Pod relay : pods().stream().filter(Pod::isRelay).toList()) {
            RelayConfig config = loadRelayConfig(relay.what(), relay.relayYaml(), relay.secretFiles());
            for (StreamSpec stream : config.streams().values()) {
                for (PeerRole role : PeerRole.values()) {
                    String key = "streams." + stream.id() + "." + role.name().toLowerCase(Locale.ROOT) + ".identities";
                    softly.assertThat(stream.bindsCertificates(role)).as(relay.what() + ": " + key + " is set")
                            .isTrue();
                    Set<String> identities = new java.util.TreeSet<>();
                    stream.roleIdentities().getOrDefault(role, List.of())
                            .forEach(identity -> identities.add(identity.toString()));
                    Set<String> first = bound.putIfAbsent(role, identities);
                    softly.assertThat(identities).as(relay.what() + ": " + key + " as at the other relays")
                            .isEqualTo(first == null ? identities : first);
                }
            }
        }
        for (PeerRole role : bound.keySet()) {
            for (PeerRole other : bound.keySet()) {
                if (role != other) {
                    Set<String> shared = new HashSet<>(bound.get(role));
                    shared.retainAll(bound.get(other));
                    softly.assertThat(shared).as(role + " and " + other + " bound to one identity").isEmpty();
                }
            }
        }
        softly.assertAll();
    }

    /**
     * A pod the manifests run: a relay Deployment's (with its ConfigMap and relay.yaml) or a
     * KafkaConnect's (with the role of its connector: SENDER at the source site, SUBSCRIBER at the
     * destination), the Secret keys it can read by file, and the files its configuration reads.
     */
    private record Pod(String what, Map<String, SecretKey> secretFiles, Set<String> reads, String relayConfigMap,
                       String relayYaml, PeerRole connectorRole) {

        boolean isRelay() {
            return relayConfigMap != null;
        }

        boolean holds(SecretKey key) {
            return secretFiles.values().stream().anyMatch(mounted -> mounted.covers(key));
        }
    }

    private static List<Pod> pods() throws IOException {
        List<Pod> pods = new ArrayList<>();
        for (Path file : manifests()) {
            List<JsonNode> docs = documents(file);
            for (JsonNode deployment : ofKind(docs, "Deployment")) {
                String what = file.getFileName() + " Deployment " + deployment.path("metadata").path("name").asText();
                JsonNode pod = deployment.path("spec").path("template").path("spec");
                Map<String, JsonNode> volumes = volumes(pod.path("volumes"));
                JsonNode container = pod.path("containers").path(0);
                ConfigMapFile relay = relayYaml(what, docs, volumes, container);
                pods.add(new Pod(what, secretFiles(volumes, container.path("volumeMounts")), relayReads(relay.yaml()),
                        relay.name(), relay.yaml(), null));
            }
            for (JsonNode connect : ofKind(docs, "KafkaConnect")) {
                String name = connect.path("metadata").path("name").asText();
                String what = file.getFileName() + " KafkaConnect " + name;
                JsonNode template = connect.path("spec").path("template");
                Set<String> reads = new java.util.TreeSet<>();
                Set<PeerRole> roles = new HashSet<>();
                for (JsonNode connector : ofKind(docs, "KafkaConnector")) {
                    if (!connector.path("metadata").path("labels").path("strimzi.io/cluster").asText().equals(name)) {
                        continue;
                    }
                    roles.add(connector.path("spec").path("class").asText().contains(".source.")
                            ? PeerRole.SENDER : PeerRole.SUBSCRIBER);
                    connector.path("spec").path("config").fields().forEachRemaining(entry -> {
                        reads.addAll(variableFiles(entry.getValue().asText()));
                        if (entry.getKey().endsWith(".file") || entry.getKey().endsWith(".location")) {
                            reads.add(entry.getValue().asText());
                        }
                    });
                }
                assertThat(roles).as(what + ": its connectors act in one role").hasSizeLessThanOrEqualTo(1);
                pods.add(new Pod(what, secretFiles(volumes(template.path("pod").path("volumes")),
                        template.path("connectContainer").path("volumeMounts")), reads, null, null,
                        roles.stream().findFirst().orElse(null)));
            }
        }
        return pods;
    }

    private static Map<String, JsonNode> volumes(JsonNode list) {
        Map<String, JsonNode> volumes = new java.util.HashMap<>();
        list.forEach(v -> volumes.put(v.path("name").asText(), v));
        return volumes;
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

    /**
     * Each relay Deployment's pods are under a NetworkPolicy of their file that admits on the data
     * port only the Connect workers whose connector lists the relays' Service (selected in the
     * namespace their file is applied in) and, where the Service is a LoadBalancer (the other site's
     * relays connect to it), address blocks, with the client's address kept so the block can match;
     * and on the admin port only Prometheus. No rule admits every source or every port.
     */
    @Test
    void networkPoliciesLetOnlyTheRelaysPeersReachTheirPorts() throws IOException {
        Map<String, String> namespaces = new java.util.HashMap<>();
        Map<String, Set<String>> connectsByService = new java.util.HashMap<>();
        for (Path file : manifests()) {
            String namespace = applyNamespace(file);
            for (JsonNode connector : ofKind(documents(file), "KafkaConnector")) {
                String cluster = connector.path("metadata").path("labels").path("strimzi.io/cluster").asText();
                namespaces.put(cluster, namespace);
                for (String relay : connector.path("spec").path("config").path("relays").asText().split(",")) {
                    // <service>.<namespace>.svc:<port>
                    String[] host = relay.strip().split(":")[0].split("\\.");
                    connectsByService.computeIfAbsent(host[1] + "/" + host[0], k -> new HashSet<>()).add(cluster);
                }
            }
        }
        int relays = 0;
        for (Path file : manifests()) {
            List<JsonNode> docs = documents(file);
            String namespace = applyNamespace(file);
            for (JsonNode deployment : ofKind(docs, "Deployment")) {
                relays++;
                String what = file.getFileName() + " Deployment " + deployment.path("metadata").path("name").asText();
                JsonNode podLabels = deployment.path("spec").path("template").path("metadata").path("labels");
                List<JsonNode> services = ofKind(docs, "Service").stream()
                        .filter(svc -> matches(svc.path("spec").path("selector"), podLabels)).toList();
                Set<String> senders = new java.util.TreeSet<>();
                services.forEach(svc -> senders.addAll(connectsByService.getOrDefault(
                        namespace + "/" + svc.path("metadata").path("name").asText(), Set.of())));
                assertThat(senders).as(what + ": a connector lists its Service").isNotEmpty();
                boolean fromOtherSite = services.stream()
                        .anyMatch(svc -> svc.path("spec").path("type").asText().equals("LoadBalancer"));
                services.stream().filter(svc -> svc.path("spec").path("type").asText().equals("LoadBalancer"))
                        .forEach(svc -> assertThat(svc.path("spec").path("externalTrafficPolicy").asText())
                                .as(what + ": the client's address reaches the pod").isEqualTo("Local"));

                List<JsonNode> policies = ofKind(docs, "NetworkPolicy").stream()
                        .filter(np -> matches(np.path("spec").path("podSelector").path("matchLabels"), podLabels)).toList();
                assertThat(policies).as(what + ": one NetworkPolicy selects its pods").hasSize(1);
                JsonNode policy = policies.get(0).path("spec");
                assertThat(policy.path("policyTypes").toString()).as(what + ": policyTypes").contains("\"Ingress\"");
                Set<String> dataPeers = new java.util.TreeSet<>();
                Set<String> adminPeers = new java.util.TreeSet<>();
                for (JsonNode rule : policy.path("ingress")) {
                    assertThat(rule.path("from").size()).as(what + ": a rule without from admits every source").isPositive();
                    assertThat(rule.path("ports").size()).as(what + ": a rule without ports admits every port").isPositive();
                    for (JsonNode port : rule.path("ports")) {
                        String name = port.path("port").asText();
                        assertThat(name).as(what + ": a port of the relay").isIn("data", "admin");
                        for (JsonNode peer : rule.path("from")) {
                            (name.equals("data") ? dataPeers : adminPeers).add(peer(peer));
                        }
                    }
                }
                Set<String> expected = new java.util.TreeSet<>();
                senders.forEach(c -> expected.add("namespace " + namespaces.get(c) + " pods strimzi.io/cluster=" + c));
                assertThat(dataPeers).as(what + ": the data port's peers").isNotEmpty().allSatisfy(peer -> {
                    if (peer.startsWith("ipBlock ")) {
                        assertThat(fromOtherSite).as(what + ": " + peer + " only where the other site connects").isTrue();
                        assertThat(peer).as(what).doesNotEndWith("/0");
                    } else {
                        assertThat(expected).as(what + ": the data port admits").contains(peer);
                    }
                });
                assertThat(dataPeers).as(what + ": its connectors' workers").containsAll(expected);
                assertThat(dataPeers.stream().anyMatch(p -> p.startsWith("ipBlock "))).as(what + ": the other site's relays")
                        .isEqualTo(fromOtherSite);
                assertThat(adminPeers).as(what + ": the admin port: Prometheus only")
                        .containsExactly("namespace monitoring pods app.kubernetes.io/name=prometheus");
            }
        }
        assertThat(relays).isPositive();
    }

    /** A NetworkPolicy peer as text: its address block, or its namespace and pod labels (all required). */
    private static String peer(JsonNode peer) {
        if (peer.has("ipBlock")) {
            return "ipBlock " + peer.path("ipBlock").path("cidr").asText();
        }
        JsonNode namespace = peer.path("namespaceSelector").path("matchLabels");
        JsonNode pods = peer.path("podSelector").path("matchLabels");
        assertThat(namespace.size()).as("peer " + peer + ": a namespace named").isEqualTo(1);
        assertThat(pods.size()).as("peer " + peer + ": pods by label").isPositive();
        String cluster = pods.path("strimzi.io/cluster").asText(null);
        String labels = cluster != null ? "strimzi.io/cluster=" + cluster
                : "app.kubernetes.io/name=" + pods.path("app.kubernetes.io/name").asText();
        return "namespace " + namespace.path("kubernetes.io/metadata.name").asText() + " pods " + labels;
    }

    /** The namespace a manifest's header applies it in: {@code kubectl -n <namespace> apply}. */
    private static String applyNamespace(Path file) throws IOException {
        Matcher m = Pattern.compile("kubectl -n ([a-z0-9-]+) apply").matcher(Files.readString(file));
        assertThat(m.find()).as(file + ": its header says where to apply it").isTrue();
        return m.group(1);
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
            // The file `mvn -Drevision=<release> package` makes: <module>/target/jetstream-<module>-<release>.zip.
            assertThat(artifact.path("url").asText()).as(what + ": the plugin zip")
                    .endsWith("/jetstream-" + module + "-" + ReleaseArtifactsTest.releaseVersion() + ".zip");
            assertThat(ReleaseArtifactsTest.pluginZip(module).getFileName().toString()).as(what + ": the build's zip")
                    .startsWith("jetstream-" + module + "-").endsWith(".zip");
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
        Path folder = ReplicationEnvironment.pluginFolder(module);
        Path plugin = folder.resolve(folder.getFileName()).resolve("lib");
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
