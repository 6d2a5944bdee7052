package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.testkit.site.SiteFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.apache.kafka.common.MetricNameTemplate;
import org.apache.kafka.connect.runtime.ConnectMetricsRegistry;
import org.junit.jupiter.api.Test;

/**
 * The shipped Grafana dashboards and Prometheus alert rules name only metrics that are exported:
 * relay names as the relay's registry declares them (with the client library's JVM metrics), and
 * connector names as the JMX exporter rules of {@code config/monitoring/jmx-exporter.yaml} make them
 * from the task metrics documented in {@code docs/operations.md} (whose rows each connector's
 * {@code MetricsDocTest} checks against the metrics its tasks register) and from Kafka Connect's own
 * metrics ({@link ConnectMetricsRegistry}: task and connector status, task counts by state, error
 * handling). The rules are applied here as the exporter applies them (first matching rule, pattern
 * unanchored, name lowercased); {@code PrometheusAlertsIT} runs the real exporter.
 */
class MonitoringConfigTest {

    private static final Path ROOT = SiteFiles.projectRoot();
    private static final Path DASHBOARDS = ROOT.resolve("config/compose/grafana/dashboards");
    private static final Path ALERTS = ROOT.resolve("config/monitoring/prometheus-alerts.yaml");
    private static final Path EXPORTER = ROOT.resolve("config/monitoring/jmx-exporter.yaml");
    private static final Pattern METRIC = Pattern.compile("\\b((?:jetstream_|kafka_connect_|jvm_|process_)[a-z0-9_]+|up)\\b");
    /** A backquoted metric name in a row of the task metrics table of docs/operations.md. */
    private static final Pattern TASK_METRIC = Pattern.compile("`([a-z][a-z0-9-]+)`");

    @Test
    void dashboardsAndAlertRulesNameOnlyExportedMetrics() throws IOException {
        Set<String> exported = new TreeSet<>(relayNames());
        exported.addAll(connectorNames());
        exported.add("up"); // Prometheus' own, per scrape target

        List<String> expressions = new ArrayList<>();
        try (var files = Files.list(DASHBOARDS)) {
            for (Path dashboard : files.filter(p -> p.toString().endsWith(".json")).toList()) {
                JsonNode json = new ObjectMapper().readTree(dashboard.toFile());
                assertThat(json.get("panels")).as("%s has panels", dashboard).isNotEmpty();
                json.findValues("expr").forEach(e -> expressions.add(dashboard.getFileName() + ": " + e.asText()));
            }
        }
        JsonNode rules = new YAMLMapper().readTree(ALERTS.toFile());
        int alerts = 0;
        for (JsonNode group : rules.get("groups")) {
            for (JsonNode rule : group.get("rules")) {
                assertThat(rule.path("alert").asText()).as("every rule is an alert with a name").isNotBlank();
                assertThat(rule.path("annotations").path("summary").asText()).as(rule.path("alert").asText())
                        .isNotBlank();
                expressions.add(rule.get("alert").asText() + ": " + rule.get("expr").asText());
                alerts++;
            }
        }
        assertThat(alerts).isGreaterThanOrEqualTo(8);

        Set<String> named = new TreeSet<>();
        for (String expression : expressions) {
            Matcher m = METRIC.matcher(expression);
            boolean any = false;
            while (m.find()) {
                any = true;
                named.add(m.group(1));
                assertThat(exported).as("metric %s in %s", m.group(1), expression).contains(m.group(1));
            }
            assertThat(any).as("names a metric: %s", expression).isTrue();
        }
        assertThat(named).as("lag, liveness, RPO, routes, spend cap, gaps, task state, skipped records, "
                + "truncations and ack timeouts are all covered").contains(
                "jetstream_connect_replication_lag_records", "jetstream_connect_catch_up_seconds",
                "jetstream_connect_heartbeat_age_seconds", "jetstream_connect_record_age_seconds",
                "jetstream_connect_data_at_risk_bytes", "jetstream_connect_offset_gaps_total",
                "jetstream_relay_route_state", "jetstream_relay_spend_cap_reached",
                "kafka_connect_worker_connector_failed_task_count", "kafka_connect_worker_connector_paused_task_count",
                "kafka_connect_connector_status", "jetstream_connect_paused",
                "jetstream_connect_skipped_refused_records_total", "kafka_connect_task_error_total_records_skipped",
                "jetstream_connect_offset_truncations_total", "jetstream_connect_ack_timeouts_total");
    }

    /**
     * Connect's task status is a string attribute: the exporter turns it into one series per task
     * with the state as a label, so a FAILED task is a series {@code status="failed"} of value 1.
     */
    @Test
    void theJmxExporterRulesKeepConnectsTaskStatusAndTaskCountsByState() throws IOException {
        ExporterRules rules = ExporterRules.load(EXPORTER);
        assertThat(rules.export("kafka.connect:type=connector-task-metrics,connector=jetstream-sink,task=0",
                "status", "failed")).isEqualTo(
                "kafka_connect_connector_task_status{connector=jetstream-sink, task=0, status=failed} 1.0");
        assertThat(rules.export("kafka.connect:type=connector-metrics,connector=jetstream-sink", "status",
                "paused")).isEqualTo("kafka_connect_connector_status{connector=jetstream-sink, status=paused} 1.0");
        assertThat(rules.export("kafka.connect:type=connect-worker-metrics,connector=jetstream-sink",
                "connector-failed-task-count", 1.0)).isEqualTo(
                "kafka_connect_worker_connector_failed_task_count{connector=jetstream-sink} 1.0");
        assertThat(rules.export("kafka.connect:type=plugins,connector=jetstream-source,task=3,topic=orders,partition=7",
                "replication-lag-records", 12.0)).isEqualTo("jetstream_connect_replication_lag_records"
                + "{connector=jetstream-source, task=3, topic=orders, partition=7} 12.0");
        assertThat(rules.export("kafka.connect:type=plugins,connector=jetstream-source,task=3", "ack-timeouts-total",
                2.0)).isEqualTo("jetstream_connect_ack_timeouts_total{connector=jetstream-source, task=3} 2.0");
        assertThat(rules.export("kafka.connect:type=producer-metrics,client-id=connector-producer-x", "record-send-rate",
                1.0)).as("the worker's clients stay out").isNull();
    }

    @Test
    void theJmxExporterRulesMapTheConnectorMBeansToTheNamesTheRulesUse() throws IOException {
        JsonNode config = new YAMLMapper().readTree(ROOT.resolve("config/monitoring/jmx-exporter.yaml").toFile());
        List<String> names = new ArrayList<>();
        config.get("rules").forEach(rule -> {
            if (rule.get("pattern").asText().startsWith("kafka.connect<type=plugins, ")) {
                assertThat(rule.get("pattern").asText()).startsWith("kafka.connect<type=plugins, connector=(.+), task=(.+)");
                names.add(rule.get("name").asText());
            }
        });
        assertThat(names).containsExactly("jetstream_connect_$5_total", "jetstream_connect_$3_total",
                "jetstream_connect_$5", "jetstream_connect_$3");
    }

    /** Every relay series name: declared families (histograms with their suffixes) and the JVM metrics. */
    private static Set<String> relayNames() {
        Set<String> names = new TreeSet<>();
        try (RelayMetrics metrics = new RelayMetrics("doc")) {
            metrics.registerJvmMetrics();
            for (RelayMetrics.Family family : metrics.families()) {
                names.add(family.name());
            }
            // every family the client writes, JVM metrics included, by its TYPE line
            for (String line : metrics.scrape().split("\n")) {
                if (line.startsWith("# TYPE ")) {
                    String[] parts = line.split(" ");
                    names.add(parts[2]);
                    if (parts[3].equals("histogram") || parts[3].equals("summary")) {
                        names.add(parts[2] + "_bucket");
                        names.add(parts[2] + "_sum");
                        names.add(parts[2] + "_count");
                    }
                }
            }
            for (RelayMetrics.Family family : metrics.families()) {
                if (family.type().equals("histogram")) {
                    names.add(family.name() + "_bucket");
                    names.add(family.name() + "_sum");
                    names.add(family.name() + "_count");
                }
            }
        }
        return names;
    }

    /**
     * The task metrics of both connectors (the source and destination rows of the table in
     * docs/operations.md) and Kafka Connect's own metrics, named as the JMX exporter rules name them.
     */
    private static Set<String> connectorNames() throws IOException {
        ExporterRules rules = ExporterRules.load(EXPORTER);
        Set<String> names = new TreeSet<>();
        for (String line : Files.readAllLines(ROOT.resolve("docs/operations.md"))) {
            if (line.startsWith("| source |") || line.startsWith("| destination |")) {
                String metrics = line.split("\\|")[2];
                Matcher m = TASK_METRIC.matcher(metrics);
                while (m.find()) {
                    String exported = rules.export("kafka.connect:type=plugins,connector=c,task=0", m.group(1), 1.0);
                    assertThat(exported).as("the exporter rules export %s", m.group(1)).isNotNull();
                    names.add(exported.substring(0, exported.indexOf('{')));
                }
            }
        }
        assertThat(names).as("the task metrics table of docs/operations.md").hasSizeGreaterThan(30);
        for (MetricNameTemplate template : new ConnectMetricsRegistry().getAllTemplates()) {
            StringBuilder bean = new StringBuilder("kafka.connect:type=").append(template.group());
            template.tags().forEach(tag -> bean.append(',').append(tag).append('=').append(tag.equals("task") ? "0" : "c"));
            String exported = rules.export(bean.toString(), template.name(),
                    template.name().equals("status") ? "running" : 1.0);
            if (exported != null) {
                names.add(exported.substring(0, exported.indexOf('{') < 0 ? exported.indexOf(' ') : exported.indexOf('{')));
            }
        }
        return names;
    }

    /**
     * The rules of a JMX exporter config applied as the exporter (1.x) applies them to one MBean
     * attribute: only MBeans that {@code includeObjectNames} matches; the first rule whose pattern
     * (unanchored) matches {@code domain<key=value, ...><>attribute: value}; the name with the
     * captures put in, invalid characters as underscores and lowercased; {@code value} replacing
     * the attribute's where the rule sets one (a string attribute has none of its own).
     */
    record ExporterRules(List<ObjectName> include, List<JsonNode> rules) {

        static ExporterRules load(Path file) throws IOException {
            JsonNode config = new YAMLMapper().readTree(file.toFile());
            assertThat(config.path("lowercaseOutputName").asBoolean()).isTrue();
            List<ObjectName> include = new ArrayList<>();
            for (JsonNode name : config.get("includeObjectNames")) {
                try {
                    include.add(new ObjectName(name.asText()));
                } catch (MalformedObjectNameException e) {
                    throw new AssertionError(name.asText(), e);
                }
            }
            List<JsonNode> rules = new ArrayList<>();
            config.get("rules").forEach(rules::add);
            return new ExporterRules(include, rules);
        }

        /** {@code name{label=value, ...} value} as exported, or null when no rule exports the attribute. */
        String export(String mbean, String attribute, Object value) {
            ObjectName name;
            try {
                name = new ObjectName(mbean);
            } catch (MalformedObjectNameException e) {
                throw new AssertionError(mbean, e);
            }
            if (include.stream().noneMatch(pattern -> pattern.apply(name))) {
                return null;
            }
            String properties = name.getKeyPropertyListString().replace(",", ", ");
            String matched = name.getDomain() + "<" + properties + "><>" + attribute + ": " + value;
            for (JsonNode rule : rules) {
                Matcher m = Pattern.compile("^.*(?:" + rule.get("pattern").asText() + ").*$").matcher(matched);
                if (!m.matches()) {
                    continue;
                }
                double exported;
                if (rule.has("value")) {
                    exported = Double.parseDouble(m.replaceAll(rule.get("value").asText()));
                } else if (value instanceof Number number) {
                    exported = number.doubleValue();
                } else {
                    return null; // the exporter drops a string attribute without a value of the rule's
                }
                String metric = m.replaceAll(rule.get("name").asText()).replaceAll("[^a-zA-Z0-9:_]", "_")
                        .replaceAll("__+", "_").toLowerCase(Locale.ROOT);
                List<String> labels = new ArrayList<>();
                rule.path("labels").fields().forEachRemaining(label -> labels.add(label.getKey() + "="
                        + m.replaceAll(label.getValue().asText())));
                return metric + (labels.isEmpty() ? "" : labels.toString().replace('[', '{').replace(']', '}'))
                        + " " + exported;
            }
            return null;
        }
    }
}
