package io.jetstream.kafka.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.bench.BenchPlan;
import io.jetstream.kafka.bench.Variants;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

class BenchArgumentsTest {

    private static final Path OUT = Path.of("target", "bench");

    private static BenchPlan plan(String... args) {
        String[] line = new String[args.length + 1];
        line[0] = "bench";
        System.arraycopy(args, 0, line, 1, args.length);
        return Launcher.parse(BenchCommand.class, line).plan(OUT);
    }

    @Test
    void theScenarioAloneRunsTheFullPlan() {
        BenchPlan plan = plan("wan");
        assertThat(plan).isEqualTo(BenchPlan.defaults("wan", false, OUT, "./jetstream bench wan"));
        assertThat(plan.quick()).isFalse();
        assertThat(plan.variants()).containsExactlyElementsOf(Variants.fullRun());
        assertThat(plan.network()).isEqualTo(BenchPlan.NetworkMode.AUTO);
        assertThat(plan.warmupBurstBytes()).as("a burst before the steady warm-up").isEqualTo(60_000_000L);
    }

    @Test
    void quickRunsTheQuickDefaults() {
        assertThat(plan("wan", "--quick"))
                .isEqualTo(BenchPlan.defaults("wan", true, OUT, "./jetstream bench wan --quick"));
    }

    @Test
    void optionsOverrideTheScenarioDefaults() {
        BenchPlan plan = plan("wan", "--quick", "--variants", "js-1route,mm2-tuned-dst",
            "--latency-s", "12", "--latency-rate", "500", "--backlog-mb", "40", "--warmup-s", "2", "--warmup-burst-mb", "5",
            "--uplink-mbit", "20", "--delay-ms", "50", "--network", "loopback", "--out", "/tmp/x");
        assertThat(plan.outputName()).isEqualTo("wan-quick");
        assertThat(plan.variants()).containsExactly("js-1route", "mm2-tuned-dst");
        assertThat(plan.latencyPhase()).isEqualTo(Duration.ofSeconds(12));
        assertThat(plan.latencyRate()).isEqualTo(500);
        assertThat(plan.warmupRate()).as("the warm-up runs at the latency phase's rate").isEqualTo(500);
        assertThat(plan.backlogBytes()).isEqualTo(40_000_000L);
        assertThat(plan.warmup()).isEqualTo(Duration.ofSeconds(2));
        assertThat(plan.warmupBurstBytes()).isEqualTo(5_000_000L);
        assertThat(plan.uplinkBitsPerSecond()).isEqualTo(20_000_000L);
        assertThat(plan.oneWayDelay()).isEqualTo(Duration.ofMillis(50));
        assertThat(plan.network()).isEqualTo(BenchPlan.NetworkMode.LOOPBACK);
        assertThat(plan.outputDir()).isEqualTo(Path.of("/tmp/x"));
        assertThat(plan.commandLine()).startsWith("./jetstream bench wan --quick --variants js-1route,mm2-tuned-dst ")
                .endsWith(" --out /tmp/x");
        assertThat(plan("wan", "--warmup-s", "1.5").warmup()).isEqualTo(Duration.ofMillis(1500));
        assertThat(plan("wan").idlePhase()).as("the full run measures 20 s idle").isEqualTo(Duration.ofSeconds(20));
        assertThat(plan("wan", "--quick").idlePhase()).as("quick: no idle phase").isZero();
        assertThat(plan("wan", "--quick", "--idle-s", "7").idlePhase()).isEqualTo(Duration.ofSeconds(7));
        assertThat(plan("wan", "--network", "namespaces").network()).isEqualTo(BenchPlan.NetworkMode.NAMESPACES);
    }

    @Test
    void theVaryingRateScenarioHasItsOwnDefaultsAndTakesTheSameOptions() {
        BenchPlan plan = plan("wan", "--scenario", "varying-rate");
        assertThat(plan).isEqualTo(BenchPlan.defaults("wan", BenchPlan.Load.VARYING_RATE, false, OUT,
                "./jetstream bench wan --scenario varying-rate"));
        assertThat(plan.outputName()).isEqualTo("wan-varying-rate");
        assertThat(plan.variants()).containsExactlyElementsOf(Variants.varyingRateRun());
        assertThat(plan.rateSteps()).isNotEmpty();
        BenchPlan quick = plan("wan", "--scenario", "varying-rate", "--quick", "--variants", "js-1route-fixed-small",
                "--uplink-mbit", "20", "--source-prop", "batch.linger.ms=50");
        assertThat(quick.outputName()).isEqualTo("wan-varying-rate-quick");
        assertThat(quick.variants()).containsExactly(Variants.JS_1_ROUTE_FIXED_SMALL);
        assertThat(quick.sourceProps()).containsExactly(Map.entry("batch.linger.ms", "50"));
        assertThat(quick.rateSteps().get(1).ratePerS()).as("rates follow the uplink").isEqualTo(750);
        assertThat(plan("wan", "--scenario", "steady")).isEqualTo(plan("wan", "--scenario", "steady"));
        assertThat(plan("wan", "--scenario", "steady").load()).isEqualTo(BenchPlan.Load.STEADY);
        assertThatThrownBy(() -> plan("wan", "--scenario", "sine"))
                .hasMessage("--scenario: 'sine' is not one of [steady, varying-rate, cold-start, capacity-change, heterogeneous] or grid");
    }

    @Test
    void theScenariosWithEventsHaveTheirOwnDefaultsAndRefuseVariantsThatCannotRunThem() {
        BenchPlan cold = plan("wan", "--scenario", "cold-start");
        assertThat(cold.outputName()).isEqualTo("wan-cold-start");
        assertThat(cold.variants()).containsExactlyElementsOf(Variants.coldStartRun());
        assertThat(cold.eventSchedule(3)).isPresent();
        BenchPlan capacity = plan("wan", "--scenario", "capacity-change", "--quick");
        assertThat(capacity.outputName()).isEqualTo("wan-capacity-change-quick");
        assertThat(capacity.variants()).containsExactly(Variants.JS_3_ROUTES);
        assertThat(capacity.uplinkBitsPerSecond()).isEqualTo(5_000_000L);
        assertThat(plan("wan", "--scenario", "capacity-change", "--uplink-mbit", "40").uplinkBitsPerSecond())
                .isEqualTo(40_000_000L);
        assertThatThrownBy(() -> plan("wan", "--scenario", "capacity-change", "--variants", "js-1route"))
                .hasMessageContaining("js-1route cannot run --scenario capacity-change");
    }

    @Test
    void connectorPropertiesAreSetOnTopOfTheShippedFiles() {
        BenchPlan plan = plan("wan", "--sink-prop", "transaction.boundary=interval",
            "--source-prop", "batch.linger.ms=5", "--sink-prop", "poll.max.records = 500");
        assertThat(plan.sourceProps()).containsExactlyEntriesOf(Map.of("batch.linger.ms", "5"));
        assertThat(plan.sinkProps()).containsOnly(Map.entry("transaction.boundary", "interval"),
                Map.entry("poll.max.records", "500"));
        assertThat(plan("wan").sinkProps()).isEmpty();
        assertThatThrownBy(() -> plan("wan", "--sink-prop", "novalue"))
                .hasMessage("--sink-prop: 'novalue' is not KEY=VALUE");
        assertThatThrownBy(() -> plan("wan", "--source-prop", "=value"))
                .hasMessage("--source-prop: '=value' is not KEY=VALUE");
    }

    @Test
    void errorsNameTheOptionAndWhatItAccepts() {
        assertThatThrownBy(() -> plan()).isInstanceOf(ParameterException.class).hasMessageContaining("<scenario>");
        assertThatThrownBy(() -> plan("lan")).hasMessage("unknown scenario 'lan'; known: wan");
        assertThatThrownBy(() -> plan("wan", "--variants", "js-9routes"))
                .hasMessageContaining("--variants").hasMessageContaining("js-9routes")
                .hasMessageContaining(Variants.MM2_TUNED_SRC);
        assertThatThrownBy(() -> plan("wan", "--variants", ",")).hasMessageStartingWith("--variants: no variant given");
        assertThatThrownBy(() -> plan("wan", "--latency-s", "soon"))
                .hasMessageContaining("--latency-s").hasMessageContaining("'soon'");
        assertThatThrownBy(() -> plan("wan", "--backlog-mb", "0")).hasMessage("--backlog-mb: 0 is not between 1 and 100000");
        assertThatThrownBy(() -> plan("wan", "--warmup-burst-mb", "-1")).hasMessageStartingWith("--warmup-burst-mb: -1");
        assertThatThrownBy(() -> plan("wan", "--warmup-s", "601")).hasMessageStartingWith("--warmup-s: 601");
        assertThatThrownBy(() -> plan("wan", "--latency-rate", "0")).hasMessageStartingWith("--latency-rate: 0");
        assertThatThrownBy(() -> plan("wan", "--uplink-mbit", "0.5")).hasMessageStartingWith("--uplink-mbit: 0.5");
        assertThatThrownBy(() -> plan("wan", "--delay-ms", "1001")).hasMessageStartingWith("--delay-ms: 1001");
        assertThatThrownBy(() -> plan("wan", "--network", "docker"))
                .hasMessage("--network: 'docker' is not one of auto, namespaces, loopback");
        assertThatThrownBy(() -> plan("wan", "--delay-ms")).hasMessageContaining("--delay-ms");
        assertThatThrownBy(() -> plan("wan", "--fast")).hasMessageContaining("Unknown option: '--fast'");
    }

    @Test
    void badUsageExits2BeforeAnythingRuns() {
        for (String[] line : new String[][] {{"bench"}, {"bench", "lan"}, {"bench", "wan", "--backlog-mb", "0"},
            {"bench", "wan", "--fast"}}) {
            assertThat(Launcher.run(line).exitCode()).as(String.join(" ", line)).isEqualTo(2);
        }
    }

    @Test
    void theUsageNamesEveryOptionAndTheKnownVariants() {
        Launcher.Outcome help = Launcher.run("bench", "wan", "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.text()).contains("<scenario>", "--quick", "--variants", "--warmup-s", "--warmup-burst-mb",
                "--latency-s", "--idle-s", "--latency-rate", "--backlog-mb", "--uplink-mbit", "--delay-ms", "--network",
                "--source-prop", "--sink-prop", "--out", "--scenario", "varying-rate", Variants.MM2_TUNED_SRC,
                Variants.JS_1_ROUTE_FIXED_MEDIUM, "~20% of one 40 Mbit/s uplink", "cold-start", "capacity-change",
                Variants.JS_3_ROUTES);
    }

    @Test
    void partitionsSetTheTopicsCountAndSeveralCountsMakeASweepWhoseFirstCountIsThePlans() {
        assertThat(plan("wan", "--quick").partitions()).isEqualTo(BenchPlan.PARTITIONS);
        assertThat(plan("wan", "--quick", "--partitions", "1200").partitions()).isEqualTo(1200);
        assertThat(plan("wan", "--partitions", "6,120,1200").partitions()).isEqualTo(6);
        assertThat(Launcher.parse(BenchCommand.class, "bench", "wan", "--partitions", "6, 120,1200")
                .arguments().partitionCounts()).containsExactly(6, 120, 1200);
        assertThatThrownBy(() -> plan("wan", "--partitions", "0")).hasMessageStartingWith("--partitions: 0");
        assertThatThrownBy(() -> plan("wan", "--partitions", "6,lots"))
                .hasMessage("--partitions: 'lots' is not a whole number");
        assertThatThrownBy(() -> plan("wan", "--partitions", "6,6")).hasMessage("--partitions: 6 is given twice");
        assertThatThrownBy(() -> plan("wan", "--partitions", "20001")).hasMessageStartingWith("--partitions: 20001");
    }

    @Test
    void recordBytesSetTheValueSizeWithinItsRange() {
        assertThat(plan("wan").valueBytes()).isEqualTo(BenchPlan.VALUE_BYTES);
        assertThat(plan("wan", "--record-bytes", "100").valueBytes()).isEqualTo(100);
        assertThatThrownBy(() -> plan("wan", "--record-bytes", "10"))
                .hasMessageStartingWith("--record-bytes must be within 24-1048576, was 10");
    }

    @Test
    void congestionControlIsBbrOrRenoInTheGridUnlessGivenAndMustBeAKernelName() {
        assertThat(plan("wan").congestionControl()).isEqualTo("bbr");
        assertThat(plan("wan", "--congestion-control", "reno").congestionControl()).isEqualTo("reno");
        assertThat(plan("wan", "--scenario", "grid", "--congestion-control", "bbr").congestionControl())
                .as("the grid's cells keep it").isEqualTo("bbr");
        assertThat(plan("wan", "--scenario", "grid").congestionControl()).as("the grid's own default")
                .isEqualTo("reno");
        assertThatThrownBy(() -> plan("wan", "--congestion-control", "Reno; rm"))
                .hasMessageStartingWith("--congestion-control must be a kernel congestion control name");
        assertThat(Launcher.run("bench", "wan", "--help").text()).contains("--congestion-control", "ProbeRTT");
    }

    @Test
    void brokerStorageIsDiskOrMemoryInTheGridUnlessGiven() {
        assertThat(plan("wan").brokerStorage()).isEqualTo(BenchPlan.BrokerStorage.DISK);
        assertThat(plan("wan", "--broker-storage", "memory").brokerStorage()).isEqualTo(BenchPlan.BrokerStorage.MEMORY);
        assertThat(plan("wan", "--scenario", "grid").withPartitions(1200).withValueBytes(100).brokerStorage())
                .as("the grid's own default, kept by a cell's plan").isEqualTo(BenchPlan.BrokerStorage.MEMORY);
        assertThat(plan("wan", "--scenario", "grid", "--broker-storage", "disk").brokerStorage())
                .isEqualTo(BenchPlan.BrokerStorage.DISK);
        assertThatThrownBy(() -> plan("wan", "--broker-storage", "ssd"))
                .hasMessage("--broker-storage must be disk or memory, was 'ssd'");
        assertThat(Launcher.run("bench", "wan", "--help").text()).contains("--broker-storage", "page faults");
    }

    @Test
    void theGridIsASteadyBaseThatRefusesTheOptionsEachCellSets() {
        BenchCommand grid = Launcher.parse(BenchCommand.class, "bench", "wan", "--scenario", "grid", "--out", "/tmp/g");
        assertThat(grid.arguments().grid()).isTrue();
        BenchPlan base = grid.plan(OUT);
        assertThat(base.load()).isEqualTo(BenchPlan.Load.STEADY);
        assertThat(base.outputDir()).isEqualTo(Path.of("/tmp/g"));
        assertThat(Launcher.parse(BenchCommand.class, "bench", "wan").arguments().grid()).isFalse();
        for (String option : new String[] {"--uplink-mbit", "--delay-ms", "--partitions", "--record-bytes",
            "--latency-s", "--backlog-mb", "--variants"}) {
            String value = option.equals("--variants") ? "js-1route" : "10";
            assertThatThrownBy(() -> plan("wan", "--scenario", "grid", option, value)).as(option)
                    .hasMessageStartingWith(option + ": --scenario grid sets it per cell");
        }
        assertThat(Launcher.run("bench", "wan", "--help").text()).contains("grid", "--record-bytes", "--cells");
        assertThat(grid.arguments().gridCells()).hasSize(11);
        assertThat(Launcher.parse(BenchCommand.class, "bench", "wan", "--scenario", "grid", "--cells", "d5, p1200")
                .arguments().gridCells()).extracting(io.jetstream.kafka.bench.EnvironmentGrid.Cell::name)
                .containsExactly("d5", "p1200");
        assertThatThrownBy(() -> Launcher.parse(BenchCommand.class, "bench", "wan", "--scenario", "grid", "--cells",
                "d7").arguments().gridCells()).hasMessageStartingWith("--cells: unknown [d7]");
        assertThatThrownBy(() -> Launcher.parse(BenchCommand.class, "bench", "wan", "--cells", "d5").arguments()
                .gridCells()).hasMessage("--cells: only --scenario grid has cells");
    }
}
