package io.jetstream.kafka.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.testkit.bench.BenchPlan;
import io.jetstream.kafka.testkit.bench.Variants;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class BenchOptionsTest {

    private static final Path OUT = Path.of("target", "bench");

    @Test
    void theScenarioAloneRunsTheFullPlan() throws Exception {
        BenchPlan plan = BenchOptions.parse(new String[] {"wan"}, OUT);
        assertThat(plan.scenario()).isEqualTo("wan");
        assertThat(plan.quick()).isFalse();
        assertThat(plan.variants()).containsExactlyElementsOf(Variants.fullRun());
        assertThat(plan.outputDir()).isEqualTo(OUT);
        assertThat(plan.network()).isEqualTo(BenchPlan.NetworkMode.AUTO);
        assertThat(plan.commandLine()).isEqualTo("./jetstream bench wan");
        assertThat(plan.warmupBurstBytes()).as("a burst before the steady warm-up").isEqualTo(60_000_000L);
    }

    @Test
    void optionsOverrideTheScenarioDefaults() throws Exception {
        BenchPlan plan = BenchOptions.parse(new String[] {"wan", "--quick", "--variants", "js-1route,mm2-tuned-dst",
            "--latency-s", "12", "--latency-rate", "500", "--backlog-mb", "40", "--warmup-s", "2", "--warmup-burst-mb", "5",
            "--uplink-mbit", "20", "--delay-ms", "50", "--network", "loopback", "--out", "/tmp/x"}, OUT);
        assertThat(plan.outputName()).isEqualTo("wan-quick");
        assertThat(plan.variants()).containsExactly("js-1route", "mm2-tuned-dst");
        assertThat(plan.latencyPhase()).isEqualTo(Duration.ofSeconds(12));
        assertThat(plan.latencyRate()).isEqualTo(500);
        assertThat(plan.backlogBytes()).isEqualTo(40_000_000L);
        assertThat(plan.warmup()).isEqualTo(Duration.ofSeconds(2));
        assertThat(plan.warmupBurstBytes()).isEqualTo(5_000_000L);
        assertThat(plan.uplinkBitsPerSecond()).isEqualTo(20_000_000L);
        assertThat(plan.oneWayDelay()).isEqualTo(Duration.ofMillis(50));
        assertThat(plan.network()).isEqualTo(BenchPlan.NetworkMode.LOOPBACK);
        assertThat(plan.outputDir()).isEqualTo(Path.of("/tmp/x"));
    }

    @Test
    void connectorPropertiesAreSetOnTopOfTheShippedFiles() throws Exception {
        BenchPlan plan = BenchOptions.parse(new String[] {"wan", "--sink-prop", "transaction.boundary=interval",
            "--source-prop", "batch.policy=fixed", "--sink-prop", "poll.max.records=500"}, OUT);
        assertThat(plan.sourceProps()).containsExactlyEntriesOf(java.util.Map.of("batch.policy", "fixed"));
        assertThat(plan.sinkProps()).containsOnly(java.util.Map.entry("transaction.boundary", "interval"),
                java.util.Map.entry("poll.max.records", "500"));
        assertThat(BenchOptions.parse(new String[] {"wan"}, OUT).sinkProps()).isEmpty();
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"wan", "--sink-prop", "novalue"}, OUT))
                .hasMessageContaining("--sink-prop: 'novalue' is not KEY=VALUE");
    }

    @Test
    void errorsNameTheOptionAndWhatItAccepts() {
        assertThatThrownBy(() -> BenchOptions.parse(new String[0], OUT)).hasMessageContaining("needs a scenario");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"lan"}, OUT))
                .hasMessageContaining("unknown scenario 'lan'").hasMessageContaining("wan");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"wan", "--variants", "js-9routes"}, OUT))
                .hasMessageContaining("--variants").hasMessageContaining("js-9routes")
                .hasMessageContaining(Variants.MM2_TUNED_SRC);
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"wan", "--latency-s", "soon"}, OUT))
                .hasMessageContaining("--latency-s: 'soon' is not a number");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"wan", "--backlog-mb", "0"}, OUT))
                .hasMessageContaining("--backlog-mb");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"wan", "--warmup-burst-mb", "-1"}, OUT))
                .hasMessageContaining("--warmup-burst-mb");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"wan", "--network", "docker"}, OUT))
                .hasMessageContaining("--network: 'docker'");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"wan", "--delay-ms"}, OUT))
                .hasMessageContaining("--delay-ms needs a value");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"wan", "--fast"}, OUT))
                .hasMessageContaining("unknown option: --fast");
    }

    @Test
    void benchIsACommandOfTheLauncher() {
        assertThat(JetstreamCli.commands()).containsKey("bench");
    }
}
