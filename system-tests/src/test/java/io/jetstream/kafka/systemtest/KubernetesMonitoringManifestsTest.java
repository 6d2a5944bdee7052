package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.jetstream.kafka.testkit.site.SiteFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Monitoring on Kubernetes: the copies of {@code config/monitoring/} that the manifests carry, and
 * what has Prometheus (Operator) scrape the relays and the Connect workers.
 *
 * <p>Two files under {@code config/kubernetes/} are generated from {@code config/monitoring/} and
 * must stay equal to it: {@code strimzi/connect-metrics.yaml}, the ConfigMap whose
 * {@code jmx-exporter.yaml} is {@code config/monitoring/jmx-exporter.yaml} byte for byte (the
 * KafkaConnects' {@code metricsConfig} names it), and {@code prometheus-rules.yaml}, the
 * PrometheusRule whose {@code spec.groups} are the {@code groups} of
 * {@code config/monitoring/prometheus-alerts.yaml}. When those change, the tests below fail until
 * the copies are regenerated with
 * {@code mvn -pl system-tests -am test -Dtest=KubernetesMonitoringManifestsTest -Djetstream.manifests.update=true
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class KubernetesMonitoringManifestsTest {

    private static final Path ROOT = SiteFiles.projectRoot();
    private static final Path KUBERNETES = ROOT.resolve("config/kubernetes");
    private static final Path JMX_EXPORTER = ROOT.resolve("config/monitoring/jmx-exporter.yaml");
    private static final Path ALERTS = ROOT.resolve("config/monitoring/prometheus-alerts.yaml");
    static final Path CONNECT_METRICS = KUBERNETES.resolve("strimzi/connect-metrics.yaml");
    static final Path PROMETHEUS_RULES = KUBERNETES.resolve("prometheus-rules.yaml");
    static final String CONNECT_METRICS_CONFIG_MAP = "jetstream-connect-metrics";
    static final String JMX_EXPORTER_KEY = "jmx-exporter.yaml";
    private static final boolean UPDATE = Boolean.getBoolean("jetstream.manifests.update");
    private static final String REGENERATE = "regenerate with mvn -pl system-tests -am test "
            + "-Dtest=KubernetesMonitoringManifestsTest -Djetstream.manifests.update=true "
            + "-Dsurefire.failIfNoSpecifiedTests=false";
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /** A job label matcher in a PromQL expression: {@code job="name"}. */
    private static final Pattern JOB = Pattern.compile("\\bjob\\s*=\\s*\"([^\"]+)\"");

    /** The ConfigMap with the JMX exporter rules, as {@code strimzi/connect-metrics.yaml} holds it. */
    static String connectMetricsManifest(String jmxExporterYaml) {
        return """
                # GENERATED from config/monitoring/jmx-exporter.yaml by KubernetesMonitoringManifestsTest: do not
                # edit; change that file and regenerate (the test fails while the two differ).
                # The JMX exporter rules for the Connect workers of connect-site-a.yaml and connect-site-b.yaml:
                # their metricsConfig (type jmxPrometheusExporter) names this ConfigMap, and Strimzi serves the
                # connectors' metrics as jetstream_connect_* on port 9404 (tcp-prometheus). Apply it in the
                # namespace of the KafkaConnect, with it:
                #   kubectl -n kafka apply -f config/kubernetes/strimzi/connect-metrics.yaml
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: %s
                  labels:
                    app.kubernetes.io/name: jetstream-connect
                    app.kubernetes.io/part-of: jetstream
                data:
                  %s: %s
                """.formatted(CONNECT_METRICS_CONFIG_MAP, JMX_EXPORTER_KEY, blockScalar(jmxExporterYaml, "    "));
    }

    /** The PrometheusRule with the alert rule groups, as {@code prometheus-rules.yaml} holds it. */
    static String prometheusRulesManifest(String alertsYaml) {
        Matcher groups = Pattern.compile("(?m)^groups:").matcher(alertsYaml);
        assertThat(groups.find()).as(ALERTS + " has groups:").isTrue();
        String indented = alertsYaml.substring(groups.start()).lines()
                .map(line -> line.isEmpty() ? line : "  " + line).reduce((a, b) -> a + "\n" + b).orElseThrow();
        return """
                # GENERATED from config/monitoring/prometheus-alerts.yaml by KubernetesMonitoringManifestsTest: do
                # not edit; change that file and regenerate (the test fails while their groups differ).
                # The alert rules for the Prometheus Operator (monitoring.coreos.com/v1). They read the jobs the
                # PodMonitors of relays-site-*.yaml (jetstream-relays) and strimzi/connect-site-*.yaml
                # (jetstream-connect) give their targets. Apply it where your Prometheus looks for rules, with the
                # labels its ruleSelector asks for (kube-prometheus-stack: release: <its release name>):
                #   kubectl -n monitoring apply -f config/kubernetes/prometheus-rules.yaml
                apiVersion: monitoring.coreos.com/v1
                kind: PrometheusRule
                metadata:
                  name: jetstream-alerts
                  labels:
                    app.kubernetes.io/part-of: jetstream
                spec:
                %s
                """.formatted(indented);
    }

    /** A literal block scalar of {@code text}, each line indented, that reads back as exactly {@code text}. */
    private static String blockScalar(String text, String indent) {
        assertThat(text).as("text for a block scalar").isNotEmpty().doesNotStartWith(" ").doesNotEndWith("\n\n");
        String body = text.lines().map(line -> line.isEmpty() ? line : indent + line)
                .reduce((a, b) -> a + "\n" + b).orElseThrow();
        // "|" keeps the one final line break, "|-" none.
        return (text.endsWith("\n") ? "|" : "|-") + "\n" + body;
    }

    @Test
    void theConnectMetricsConfigMapHoldsTheShippedJmxExporterRules() throws IOException {
        String rules = Files.readString(JMX_EXPORTER);
        if (UPDATE) {
            Files.writeString(CONNECT_METRICS, connectMetricsManifest(rules));
        }
        List<JsonNode> docs = documents(CONNECT_METRICS);
        assertThat(docs).as(CONNECT_METRICS + ": one ConfigMap").hasSize(1);
        assertThat(docs.get(0).path("metadata").path("name").asText()).isEqualTo(CONNECT_METRICS_CONFIG_MAP);
        assertThat(docs.get(0).path("data").path(JMX_EXPORTER_KEY).asText())
                .as(CONNECT_METRICS + " holds config/monitoring/jmx-exporter.yaml: " + REGENERATE).isEqualTo(rules);
    }

    @Test
    void thePrometheusRuleHoldsTheShippedAlertRuleGroups() throws IOException {
        String alerts = Files.readString(ALERTS);
        if (UPDATE) {
            Files.writeString(PROMETHEUS_RULES, prometheusRulesManifest(alerts));
        }
        List<JsonNode> docs = documents(PROMETHEUS_RULES);
        assertThat(docs).as(PROMETHEUS_RULES + ": one PrometheusRule").hasSize(1);
        assertThat(docs.get(0).path("kind").asText()).isEqualTo("PrometheusRule");
        JsonNode groups = YAML.readTree(ALERTS.toFile()).path("groups");
        assertThat(groups.size()).as(ALERTS + ": groups").isPositive();
        assertThat(docs.get(0).path("spec").path("groups"))
                .as(PROMETHEUS_RULES + " has the groups of config/monitoring/prometheus-alerts.yaml: " + REGENERATE)
                .isEqualTo(groups);
    }

    /**
     * Each KafkaConnect exports its metrics with the shipped JMX exporter rules (metricsConfig naming
     * the generated ConfigMap and key), and a PodMonitor of the same file selects its workers by the
     * labels Strimzi gives them and scrapes the exporter's port.
     */
    @Test
    void everyKafkaConnectExportsTheConnectorMetricsAndAPodMonitorScrapesItsWorkers() throws IOException {
        int connects = 0;
        for (Path file : manifests()) {
            List<JsonNode> docs = documents(file);
            for (JsonNode connect : ofKind(docs, "KafkaConnect")) {
                connects++;
                String name = connect.path("metadata").path("name").asText();
                String what = file.getFileName() + " KafkaConnect " + name;
                JsonNode metrics = connect.path("spec").path("metricsConfig");
                assertThat(metrics.path("type").asText()).as(what + ": metricsConfig.type").isEqualTo("jmxPrometheusExporter");
                JsonNode ref = metrics.path("valueFrom").path("configMapKeyRef");
                assertThat(ref.path("name").asText()).as(what + ": the ConfigMap of strimzi/connect-metrics.yaml")
                        .isEqualTo(CONNECT_METRICS_CONFIG_MAP);
                assertThat(ref.path("key").asText()).as(what).isEqualTo(JMX_EXPORTER_KEY);
                // Strimzi's labels on the worker pods of KafkaConnect <name> (the build pod is <name>-connect-build).
                Map<String, String> workerLabels = Map.of("strimzi.io/cluster", name, "strimzi.io/kind", "KafkaConnect",
                        "strimzi.io/name", name + "-connect");
                List<JsonNode> monitors = ofKind(docs, "PodMonitor").stream()
                        .filter(m -> selects(m.path("spec").path("selector"), workerLabels)).toList();
                assertThat(monitors).as(what + ": a PodMonitor selects its workers").hasSize(1);
                JsonNode endpoint = monitors.get(0).path("spec").path("podMetricsEndpoints").path(0);
                assertThat(endpoint.path("port").asText()).as(what + ": Strimzi's metrics port name")
                        .isEqualTo("tcp-prometheus");
                assertThat(endpoint.path("path").asText("/metrics")).isEqualTo("/metrics");
                assertThat(selects(monitors.get(0).path("spec").path("selector"), Map.of("strimzi.io/cluster", name,
                        "strimzi.io/kind", "KafkaConnect", "strimzi.io/name", name + "-connect-build")))
                        .as(what + ": not the image build's pod").isFalse();
            }
        }
        assertThat(connects).as("KafkaConnects under config/kubernetes").isPositive();
    }

    /** Every relay Deployment's pods are scraped on their admin port, where the relay serves /metrics. */
    @Test
    void everyRelayIsScrapedOnItsAdminPortByAPodMonitor() throws IOException {
        int relays = 0;
        for (Path file : manifests()) {
            List<JsonNode> docs = documents(file);
            for (JsonNode deployment : ofKind(docs, "Deployment")) {
                relays++;
                String what = file.getFileName() + " Deployment " + deployment.path("metadata").path("name").asText();
                JsonNode labels = deployment.path("spec").path("template").path("metadata").path("labels");
                Map<String, String> podLabels = new java.util.HashMap<>();
                labels.fields().forEachRemaining(e -> podLabels.put(e.getKey(), e.getValue().asText()));
                List<JsonNode> monitors = ofKind(docs, "PodMonitor").stream()
                        .filter(m -> selects(m.path("spec").path("selector"), podLabels)).toList();
                assertThat(monitors).as(what + ": a PodMonitor selects its pods").hasSize(1);
                JsonNode endpoint = monitors.get(0).path("spec").path("podMetricsEndpoints").path(0);
                assertThat(endpoint.path("port").asText()).as(what + ": the admin port").isEqualTo("admin");
                assertThat(endpoint.path("path").asText()).as(what).isEqualTo("/metrics");
                Set<String> ports = new TreeSet<>();
                deployment.path("spec").path("template").path("spec").path("containers").path(0).path("ports")
                        .forEach(p -> ports.add(p.path("name").asText()));
                assertThat(ports).as(what + ": its container has the port").contains("admin");
            }
        }
        assertThat(relays).as("relay Deployments under config/kubernetes").isPositive();
    }

    /** Every {@code job="..."} the alert rules name is the job a PodMonitor gives its targets. */
    @Test
    void everyJobTheAlertRulesNameIsOneAPodMonitorGivesItsTargets() throws IOException {
        Set<String> jobs = new TreeSet<>();
        for (Path file : manifests()) {
            for (JsonNode monitor : ofKind(documents(file), "PodMonitor")) {
                for (JsonNode endpoint : monitor.path("spec").path("podMetricsEndpoints")) {
                    for (JsonNode relabel : endpoint.path("relabelings")) {
                        if (relabel.path("targetLabel").asText().equals("job")) {
                            jobs.add(relabel.path("replacement").asText());
                        }
                    }
                }
            }
        }
        assertThat(jobs).as("jobs the PodMonitors set").contains("jetstream-relays", "jetstream-connect");
        Set<String> named = new TreeSet<>();
        for (JsonNode group : YAML.readTree(ALERTS.toFile()).path("groups")) {
            for (JsonNode rule : group.path("rules")) {
                Matcher job = JOB.matcher(rule.path("expr").asText());
                while (job.find()) {
                    named.add(job.group(1));
                }
            }
        }
        assertThat(jobs).as("the jobs config/monitoring/prometheus-alerts.yaml names").containsAll(named);
    }

    /** Every label the selector's matchLabels asks for is among {@code labels}, with its value. */
    private static boolean selects(JsonNode selector, Map<String, String> labels) {
        JsonNode match = selector.path("matchLabels");
        if (!match.isObject() || match.isEmpty() || selector.has("matchExpressions")) {
            return false;
        }
        for (Map.Entry<String, JsonNode> label : (Iterable<Map.Entry<String, JsonNode>>) match::fields) {
            if (!label.getValue().asText().equals(labels.get(label.getKey()))) {
                return false;
            }
        }
        return true;
    }

    static List<Path> manifests() throws IOException {
        try (Stream<Path> files = Files.walk(KUBERNETES)) {
            return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
        }
    }

    static List<JsonNode> documents(Path file) throws IOException {
        try (JsonParser parser = YAML.getFactory().createParser(file.toFile());
             MappingIterator<JsonNode> docs = YAML.readValues(parser, JsonNode.class)) {
            List<JsonNode> all = new ArrayList<>();
            for (JsonNode doc : docs.readAll()) {
                if (doc != null && !doc.isNull() && !doc.isMissingNode()) {
                    all.add(doc);
                }
            }
            return all;
        }
    }

    static List<JsonNode> ofKind(List<JsonNode> docs, String kind) {
        return docs.stream().filter(doc -> kind.equals(doc.path("kind").asText())).toList();
    }
}
