package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.jetstream.kafka.testkit.site.SiteFiles;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped Prometheus alert rules checked by Prometheus' own tool, {@code promtool} (Debian's
 * {@code prometheus} package): the rules file is valid (expressions, durations, annotation
 * templates), the docker-compose trial's Prometheus config loads it, and each alert fires on its
 * condition, after its {@code for}, and not without it ({@code promtool test rules} with the
 * scenarios in {@code prometheus-alerts-scenarios.yaml}). Skipped with a loud line where promtool is
 * missing, failed in CI ({@link PrometheusBinaries}).
 */
class PrometheusRulesTest {

    private static final Path ROOT = SiteFiles.projectRoot();
    private static final Path ALERTS = ROOT.resolve("config/monitoring/prometheus-alerts.yaml");

    @Test
    void theShippedAlertRulesPassPromtoolsCheck() throws Exception {
        Path promtool = PrometheusBinaries.promtool("config/monitoring/prometheus-alerts.yaml with promtool");
        PrometheusBinaries.Result result = PrometheusBinaries.run(ROOT,
                List.of(promtool.toString(), "check", "rules", ALERTS.toString()));
        assertThat(result.exit()).as(result.output()).isZero();
        assertThat(result.output()).contains("SUCCESS");
    }

    @Test
    void theComposeTrialsPrometheusConfigLoadsTheShippedRulesAndScrapesRelaysAndWorkers(@TempDir Path dir)
            throws Exception {
        Path promtool = PrometheusBinaries.promtool("config/compose/prometheus.yml with promtool");
        Path rules = dir.resolve("jetstream-alerts.yaml");
        Files.copy(ALERTS, rules);
        Path config = dir.resolve("prometheus.yml");
        String compose = Files.readString(ROOT.resolve("config/compose/prometheus.yml"));
        assertThat(compose).contains("/etc/prometheus/jetstream-alerts.yaml");
        Files.writeString(config, compose.replace("/etc/prometheus/jetstream-alerts.yaml", rules.toString()));
        PrometheusBinaries.Result result = PrometheusBinaries.run(dir,
                List.of(promtool.toString(), "check", "config", config.toString()));
        assertThat(result.exit()).as(result.output()).isZero();

        JsonNode jobs = new YAMLMapper().readTree(config.toFile()).get("scrape_configs");
        assertThat(jobs.findValuesAsText("job_name")).containsExactlyInAnyOrder("jetstream-relays",
                "jetstream-connect");
        for (JsonNode job : jobs) {
            List<String> targets = StreamSupport.stream(job.get("static_configs").get(0).get("targets").spliterator(),
                    false).map(JsonNode::asText).toList();
            if (job.get("job_name").asText().equals("jetstream-connect")) {
                assertThat(targets).as("both Connect workers' JMX exporters")
                        .containsExactlyInAnyOrder("connect-a:9404", "connect-b:9404");
            } else {
                assertThat(targets).containsExactlyInAnyOrder("relay-ingress:7071", "relay-egress:7071");
            }
        }
    }

    /**
     * {@code promtool test rules} compares annotations too; the scenarios leave them out (their
     * templates are checked above), so they run against a copy of the rules without annotations.
     */
    @Test
    void everyAlertFiresOnItsConditionAfterItsForAndNotWithoutIt(@TempDir Path dir) throws Exception {
        Path promtool = PrometheusBinaries.promtool("the alert rules' scenarios with promtool test rules");
        YAMLMapper yaml = new YAMLMapper();
        JsonNode rules = yaml.readTree(ALERTS.toFile());
        for (JsonNode group : rules.get("groups")) {
            for (JsonNode rule : group.get("rules")) {
                ((ObjectNode) rule).remove("annotations");
            }
        }
        yaml.writeValue(dir.resolve("prometheus-alerts.yaml").toFile(), rules);
        Path scenarios = dir.resolve("prometheus-alerts-scenarios.yaml");
        try (InputStream in = Objects.requireNonNull(
                PrometheusRulesTest.class.getResourceAsStream("/prometheus-alerts-scenarios.yaml"))) {
            Files.copy(in, scenarios);
        }
        PrometheusBinaries.Result result = PrometheusBinaries.run(dir,
                List.of(promtool.toString(), "test", "rules", scenarios.toString()));
        assertThat(result.exit()).as(result.output()).isZero();
        assertThat(result.output()).contains("SUCCESS");

        // Every alert of the jetstream-connect group has a scenario.
        JsonNode tested = yaml.readTree(scenarios.toFile());
        List<String> alertsTested = tested.findValuesAsText("alertname");
        for (JsonNode group : rules.get("groups")) {
            if (group.get("name").asText().equals("jetstream-connect")) {
                for (JsonNode rule : group.get("rules")) {
                    assertThat(alertsTested).as("a scenario for " + rule.get("alert").asText())
                            .contains(rule.get("alert").asText());
                }
            }
        }
    }
}
