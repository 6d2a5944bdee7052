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
import org.junit.jupiter.api.Test;

/**
 * The shipped Grafana dashboards and Prometheus alert rules name only metrics that are exported:
 * relay names as the relay's registry declares them (with the client library's JVM metrics), and
 * connector names as the JMX exporter rules of {@code config/monitoring/jmx-exporter.yaml} make them
 * from the task metrics documented in {@code docs/operations.md} (whose rows each connector's
 * {@code MetricsDocTest} checks against the metrics its tasks register).
 */
class MonitoringConfigTest {

    private static final Path ROOT = SiteFiles.projectRoot();
    private static final Path DASHBOARDS = ROOT.resolve("config/compose/grafana/dashboards");
    private static final Path ALERTS = ROOT.resolve("config/monitoring/prometheus-alerts.yaml");
    private static final Pattern METRIC = Pattern.compile("\\b((?:jetstream_|jvm_|process_)[a-z0-9_]+|up)\\b");
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
        assertThat(named).as("lag, liveness, RPO, routes, spend cap and gaps are all covered").contains(
                "jetstream_connect_replication_lag_records", "jetstream_connect_catch_up_seconds",
                "jetstream_connect_heartbeat_age_seconds", "jetstream_connect_record_age_seconds",
                "jetstream_connect_data_at_risk_bytes", "jetstream_connect_offset_gaps_total",
                "jetstream_relay_route_state", "jetstream_relay_spend_cap_reached");
    }

    @Test
    void theJmxExporterRulesMapTheConnectorMBeansToTheNamesTheRulesUse() throws IOException {
        JsonNode config = new YAMLMapper().readTree(ROOT.resolve("config/monitoring/jmx-exporter.yaml").toFile());
        List<String> names = new ArrayList<>();
        config.get("rules").forEach(rule -> {
            assertThat(rule.get("pattern").asText()).startsWith("kafka.connect<type=plugins, connector=(.+), task=(.+)");
            names.add(rule.get("name").asText());
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
     * docs/operations.md), named as the JMX exporter rules name them: {@code jetstream_connect_} and
     * the attribute with dashes as underscores.
     */
    private static Set<String> connectorNames() throws IOException {
        Set<String> names = new TreeSet<>();
        for (String line : Files.readAllLines(ROOT.resolve("docs/operations.md"))) {
            if (line.startsWith("| source |") || line.startsWith("| destination |")) {
                String metrics = line.split("\\|")[2];
                Matcher m = TASK_METRIC.matcher(metrics);
                while (m.find()) {
                    names.add("jetstream_connect_" + m.group(1).replace('-', '_').toLowerCase(Locale.ROOT));
                }
            }
        }
        assertThat(names).as("the task metrics table of docs/operations.md").hasSizeGreaterThan(30);
        return names;
    }
}
