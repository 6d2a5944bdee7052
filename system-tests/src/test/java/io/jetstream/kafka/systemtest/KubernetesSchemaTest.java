package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonMetaSchema;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.NonValidationKeyword;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.openshift.api.model.monitoring.v1.PodMonitor;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.jetstream.kafka.testkit.site.SiteFiles;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every object under {@code config/kubernetes/} checked against the schema of its API, without a
 * cluster, as an API server with strict field validation ({@code kubectl apply}'s default) would:
 *
 * <ul>
 *   <li>Strimzi's {@code KafkaConnect} and {@code KafkaConnector}: against the {@code openAPIV3Schema}
 *   of their {@code apiVersion} in the CRDs of every Strimzi release the manifests claim
 *   ({@link #STRIMZI_VERSIONS}), which must serve that version. The CRDs are in
 *   {@code src/test/resources/kubernetes-schemas/strimzi/<version>/}, made by Strimzi's own
 *   {@code CrdGenerator} from the release's {@code io.strimzi:api} on Maven Central ({@code generate.sh}
 *   there). As the API server prunes and rejects unknown fields, an object schema with properties is
 *   closed unless it says {@code x-kubernetes-preserve-unknown-fields}. {@code spec.config} keys are
 *   also checked against the prefixes the CRD documents as forbidden; the few CEL rules
 *   ({@code x-kubernetes-validations}) are not evaluated (the one on {@code metricsConfig} is checked
 *   by {@link KubernetesMonitoringManifestsTest}).</li>
 *   <li>Kubernetes' own kinds and the Prometheus Operator's: read into fabric8's kubernetes-model
 *   classes (generated from the Kubernetes OpenAPI and the Prometheus Operator CRDs), failing on a
 *   value of the wrong type; a field the model does not know lands in its
 *   {@code additionalProperties}, and none may.</li>
 * </ul>
 */
class KubernetesSchemaTest {

    /**
     * The Strimzi releases the manifests are validated against, the oldest and the newest of the
     * claimed range first and last: 0.49.0 introduced {@code kafka.strimzi.io/v1}; 1.2.0 is the newest
     * on Maven Central (December 2026). 0.50.1 and 0.51.0 are the newest patches of the minors in
     * between (Central has no 1.0 or 1.1 of {@code io.strimzi:api}).
     */
    static final List<String> STRIMZI_VERSIONS = List.of("0.49.0", "0.50.1", "0.51.0", "1.2.0");
    /** How the manifests and the docs state the range. */
    static final String STRIMZI_RANGE = "Strimzi 0.49 to 1.2";

    private static final Path ROOT = SiteFiles.projectRoot();
    private static final Path STRIMZI_CRDS = ROOT.resolve("system-tests/src/test/resources/kubernetes-schemas/strimzi");
    private static final Map<String, String> CRD_FILES = Map.of("KafkaConnect", "041-Crd-kafkaconnect.yaml",
            "KafkaConnector", "047-Crd-kafkaconnector.yaml");
    private static final Map<String, Class<?>> MODELS = Map.of(
            "v1/ConfigMap", ConfigMap.class,
            "v1/Service", Service.class,
            "apps/v1/Deployment", Deployment.class,
            "policy/v1/PodDisruptionBudget", PodDisruptionBudget.class,
            "networking.k8s.io/v1/NetworkPolicy", NetworkPolicy.class,
            "monitoring.coreos.com/v1/PodMonitor", PodMonitor.class,
            "monitoring.coreos.com/v1/PrometheusRule", PrometheusRule.class);
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ObjectMapper JSON = new ObjectMapper();
    /** OpenAPI v3 as Kubernetes uses it: JSON Schema draft 4 keywords plus its own extensions. */
    private static final JsonSchemaFactory SCHEMAS = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4,
            builder -> builder.metaSchema(JsonMetaSchema.builder(JsonMetaSchema.getV4())
                    .keywords(Stream.of("x-kubernetes-preserve-unknown-fields", "x-kubernetes-int-or-string",
                            "x-kubernetes-validations", "x-kubernetes-list-type", "x-kubernetes-list-map-keys",
                            "x-kubernetes-map-type", "x-kubernetes-embedded-resource", "example", "nullable")
                            .map(NonValidationKeyword::new).toList())
                    .build()));
    /** The CRD's description of spec.config: the prefixes it cannot hold, and the exceptions. */
    private static final Pattern FORBIDDEN = Pattern.compile(
            "cannot be set: (.+?)(?:\\.?$| \\(with the exception of: (.+?)\\)\\.?$)");

    static Stream<Arguments> strimziResources() throws IOException {
        List<Arguments> cases = new ArrayList<>();
        for (Path file : KubernetesMonitoringManifestsTest.manifests()) {
            for (JsonNode doc : KubernetesMonitoringManifestsTest.documents(file)) {
                if (doc.path("apiVersion").asText().startsWith("kafka.strimzi.io/")) {
                    for (String version : STRIMZI_VERSIONS) {
                        cases.add(Arguments.of(version, ROOT.relativize(file) + " " + doc.path("kind").asText() + " "
                                + doc.path("metadata").path("name").asText(), doc));
                    }
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "Strimzi {0}: {1}")
    @MethodSource("strimziResources")
    void strimziResourcesAreValidForEveryStrimziReleaseOfTheRange(String strimzi, String what, JsonNode resource)
            throws IOException {
        assertThat(strimziErrors(strimzi, resource)).as(what + " against the CRD of Strimzi " + strimzi).isEmpty();
    }

    @Test
    void kubernetesAndPrometheusOperatorObjectsMatchTheirApis() throws IOException {
        int checked = 0;
        List<String> errors = new ArrayList<>();
        for (Path file : KubernetesMonitoringManifestsTest.manifests()) {
            for (JsonNode doc : KubernetesMonitoringManifestsTest.documents(file)) {
                String what = ROOT.relativize(file) + " " + doc.path("kind").asText() + " "
                        + doc.path("metadata").path("name").asText();
                if (doc.path("apiVersion").asText().startsWith("kafka.strimzi.io/")) {
                    continue;
                }
                errors.addAll(modelErrors(what, doc));
                checked++;
            }
        }
        assertThat(errors).as("objects that do not match their API").isEmpty();
        assertThat(checked).as("objects checked").isGreaterThan(10);
    }

    /** The kinds of every manifest, the Strimzi ones included, are ones this test validates. */
    @Test
    void everyObjectIsOfAKindWhoseSchemaIsChecked() throws IOException {
        Set<String> kinds = new TreeSet<>();
        for (Path file : KubernetesMonitoringManifestsTest.manifests()) {
            for (JsonNode doc : KubernetesMonitoringManifestsTest.documents(file)) {
                kinds.add(doc.path("apiVersion").asText() + "/" + doc.path("kind").asText());
            }
        }
        Set<String> known = new TreeSet<>(MODELS.keySet());
        CRD_FILES.keySet().forEach(kind -> known.add("kafka.strimzi.io/v1/" + kind));
        assertThat(known).as("kinds with a schema here").containsAll(kinds);
        assertThat(kinds).as("the manifests' kinds").contains("kafka.strimzi.io/v1/KafkaConnect",
                "networking.k8s.io/v1/NetworkPolicy", "monitoring.coreos.com/v1/PodMonitor",
                "monitoring.coreos.com/v1/PrometheusRule");
    }

    /**
     * The checks reject what an API server rejects: each mutation of a shipped resource below fails,
     * so the tests above cannot pass for want of a working schema.
     */
    @Test
    void theChecksRejectWhatTheApiServerWould() throws IOException {
        List<JsonNode> site = KubernetesMonitoringManifestsTest.documents(
                ROOT.resolve("config/kubernetes/strimzi/connect-site-b.yaml"));
        JsonNode connect = KubernetesMonitoringManifestsTest.ofKind(site, "KafkaConnect").get(0);
        JsonNode connector = KubernetesMonitoringManifestsTest.ofKind(site, "KafkaConnector").get(0);
        for (String strimzi : STRIMZI_VERSIONS) {
            assertThat(strimziErrors(strimzi, connect)).as("shipped, Strimzi " + strimzi).isEmpty();

            ObjectNode unknownField = connect.deepCopy();
            ((ObjectNode) unknownField.path("spec")).put("replica", 2);
            assertThat(strimziErrors(strimzi, unknownField)).as("spec.replica, Strimzi " + strimzi).isNotEmpty();

            ObjectNode noGroup = connect.deepCopy();
            ((ObjectNode) noGroup.path("spec")).remove("groupId");
            assertThat(strimziErrors(strimzi, noGroup)).as("v1 without groupId, Strimzi " + strimzi).isNotEmpty();

            ObjectNode wrongType = connector.deepCopy();
            ((ObjectNode) wrongType.path("spec")).put("tasksMax", "one");
            assertThat(strimziErrors(strimzi, wrongType)).as("tasksMax: one, Strimzi " + strimzi).isNotEmpty();

            ObjectNode forbidden = connect.deepCopy();
            ((ObjectNode) forbidden.path("spec").path("config")).put("ssl.keystore.location", "/tmp/ks");
            assertThat(strimziErrors(strimzi, forbidden)).as("config ssl.keystore.location, Strimzi " + strimzi)
                    .anyMatch(e -> e.contains("ssl.keystore.location"));

            ObjectNode beta = connect.deepCopy();
            beta.put("apiVersion", "kafka.strimzi.io/v1beta2");
            boolean served = strimzi.startsWith("0.");
            assertThat(strimziErrors(strimzi, beta).isEmpty()).as("v1beta2 served by Strimzi " + strimzi)
                    .isEqualTo(served);
        }
        ObjectNode inConfig = connect.deepCopy();
        ((ObjectNode) inConfig.path("spec").path("config")).put("group.id", "g");
        assertThat(strimziErrors("1.2.0", inConfig)).as("1.x: group.id only as spec.groupId")
                .anyMatch(e -> e.contains("group.id"));

        JsonNode deployment = KubernetesMonitoringManifestsTest.ofKind(KubernetesMonitoringManifestsTest.documents(
                ROOT.resolve("config/kubernetes/relays-site-a.yaml")), "Deployment").get(0);
        assertThat(modelErrors("shipped", deployment)).isEmpty();
        ObjectNode typo = deployment.deepCopy();
        ((ObjectNode) typo.path("spec").path("template").path("spec").path("containers").path(0))
                .put("imagePullPolicys", "Always");
        assertThat(modelErrors("typo", typo)).as("a misspelt container field").isNotEmpty();
        ObjectNode badType = deployment.deepCopy();
        ((ObjectNode) badType.path("spec")).put("replicas", "two");
        assertThat(modelErrors("replicas: two", badType)).as("a string for an integer").isNotEmpty();
        ObjectNode badMeta = deployment.deepCopy();
        ((ObjectNode) badMeta.path("metadata")).put("label", "x");
        assertThat(modelErrors("metadata.label", badMeta)).as("metadata.label").isNotEmpty();
    }

    /** Each version named is vendored, each vendored one named, and the manifests and docs state the range. */
    @Test
    void theStatedStrimziRangeIsTheValidatedOne() throws IOException {
        Set<String> vendored = new TreeSet<>();
        try (Stream<Path> dirs = Files.list(STRIMZI_CRDS)) {
            dirs.filter(Files::isDirectory).forEach(dir -> vendored.add(dir.getFileName().toString()));
        }
        assertThat(vendored).as(STRIMZI_CRDS + ": the versions validated").containsExactlyInAnyOrderElementsOf(
                STRIMZI_VERSIONS);
        String first = minor(STRIMZI_VERSIONS.get(0));
        String last = minor(STRIMZI_VERSIONS.get(STRIMZI_VERSIONS.size() - 1));
        assertThat(STRIMZI_RANGE).isEqualTo("Strimzi " + first + " to " + last);
        for (String file : List.of("config/kubernetes/strimzi/connect-site-a.yaml",
                "config/kubernetes/strimzi/connect-site-b.yaml", "docs/operations.md", "docs/relay.md")) {
            String text = Files.readString(ROOT.resolve(file));
            assertThat(text).as(file + " states the range").contains(STRIMZI_RANGE);
            assertThat(text).as(file + ": no other claim").doesNotContainPattern("Strimzi[^.\\n]{0,20}0\\.4[0-8]");
        }
        String header = Files.readString(ROOT.resolve("config/kubernetes/strimzi/connect-site-a.yaml"));
        for (String version : STRIMZI_VERSIONS) {
            assertThat(header).as("connect-site-a.yaml names the validated " + version).contains(version);
        }
    }

    private static String minor(String version) {
        return version.substring(0, version.lastIndexOf('.'));
    }

    /** What the API server of a cluster with the CRDs of Strimzi {@code strimzi} says about {@code resource}. */
    static List<String> strimziErrors(String strimzi, JsonNode resource) throws IOException {
        String kind = resource.path("kind").asText();
        String apiVersion = resource.path("apiVersion").asText();
        assertThat(CRD_FILES).as("a CRD for " + kind).containsKey(kind);
        JsonNode crd = YAML.readTree(STRIMZI_CRDS.resolve(strimzi).resolve(CRD_FILES.get(kind)).toFile());
        String group = crd.path("spec").path("group").asText();
        JsonNode served = null;
        for (JsonNode version : crd.path("spec").path("versions")) {
            if ((group + "/" + version.path("name").asText()).equals(apiVersion) && version.path("served").asBoolean()) {
                served = version;
            }
        }
        if (served == null) {
            return List.of(apiVersion + " " + kind + " is not served by Strimzi " + strimzi);
        }
        JsonNode schema = closed(served.path("schema").path("openAPIV3Schema").deepCopy());
        List<String> errors = new ArrayList<>();
        for (ValidationMessage message : SCHEMAS.getSchema(schema).validate(JSON.valueToTree(resource))) {
            errors.add(message.getMessage());
        }
        errors.addAll(modelErrors(kind + " metadata", resource.path("metadata"), ObjectMeta.class));
        JsonNode config = served.path("schema").path("openAPIV3Schema").path("properties").path("spec")
                .path("properties").path("config");
        Matcher forbidden = FORBIDDEN.matcher(config.path("description").asText());
        if (forbidden.find()) {
            List<String> prefixes = Arrays.stream(forbidden.group(1).split(", ")).toList();
            List<String> exceptions = forbidden.group(2) == null ? List.of()
                    : Arrays.stream(forbidden.group(2).split(", ")).toList();
            // KafkaConnect lists prefixes ("ssl.", "group.id"), KafkaConnector whole keys ("tasks.max").
            boolean byPrefix = config.path("description").asText().contains("prefixes");
            resource.path("spec").path("config").fieldNames().forEachRemaining(key -> {
                boolean refused = prefixes.stream().anyMatch(p -> key.equals(p) || (byPrefix && key.startsWith(p)));
                if (refused && !exceptions.contains(key)) {
                    errors.add("spec.config." + key + ": Strimzi " + strimzi + " does not let config set it ("
                            + config.path("description").asText() + ")");
                }
            });
        }
        return errors;
    }

    /**
     * The schema with every object that lists its properties closed to others, as the API server
     * treats a structural schema: unknown fields are pruned (and refused by strict field validation)
     * unless the schema says x-kubernetes-preserve-unknown-fields. Only the structural part is
     * closed: the branches of oneOf, anyOf, allOf and not only validate values (Strimzi's name the
     * outer object's properties to say which combinations are allowed) and do not prune.
     */
    private static JsonNode closed(JsonNode schema) {
        if (schema instanceof ObjectNode object) {
            if (object.has("properties") && !object.has("additionalProperties")
                    && !object.path("x-kubernetes-preserve-unknown-fields").asBoolean()) {
                object.put("additionalProperties", false);
            }
            object.path("properties").forEach(KubernetesSchemaTest::closed);
            for (String key : List.of("items", "additionalProperties")) {
                if (object.path(key).isObject()) {
                    closed(object.path(key));
                }
            }
        }
        return schema;
    }

    private static List<String> modelErrors(String what, JsonNode doc) {
        String kind = doc.path("apiVersion").asText() + "/" + doc.path("kind").asText();
        Class<?> model = MODELS.get(kind);
        if (model == null) {
            return List.of(what + ": no API schema here for " + kind);
        }
        return modelErrors(what, doc, model);
    }

    /** Reads {@code doc} into the fabric8 model class; its type errors and every field it does not know. */
    private static List<String> modelErrors(String what, JsonNode doc, Class<?> model) {
        Object value;
        try {
            value = JSON.treeToValue(doc, model);
        } catch (IOException | IllegalArgumentException e) {
            return List.of(what + ": " + e.getMessage());
        }
        List<String> unknown = new ArrayList<>();
        unknownFields(value, what, unknown);
        return unknown;
    }

    /** Collects the additionalProperties (fields the model does not know) anywhere in a fabric8 model object. */
    private static void unknownFields(Object value, String path, List<String> found) {
        if (value instanceof Map<?, ?> map) {
            map.forEach((key, entry) -> unknownFields(entry, path + "." + key, found));
            return;
        }
        if (value instanceof Collection<?> list) {
            int i = 0;
            for (Object item : list) {
                unknownFields(item, path + "[" + i++ + "]", found);
            }
            return;
        }
        if (value == null || !value.getClass().getName().startsWith("io.fabric8.")) {
            return;
        }
        for (Method getter : value.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || Modifier.isStatic(getter.getModifiers())
                    || !getter.getName().startsWith("get") || getter.getDeclaringClass() == Object.class) {
                continue;
            }
            Object field;
            try {
                field = getter.invoke(value);
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(path + ": " + getter, e);
            }
            if (getter.getName().equals("getAdditionalProperties")) {
                if (field instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    found.add(path + ": fields the API does not have: " + extra.keySet());
                }
            } else {
                unknownFields(field, path + "." + Character.toLowerCase(getter.getName().charAt(3))
                        + getter.getName().substring(4), found);
            }
        }
    }
}
