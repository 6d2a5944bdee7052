package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The varying-rate load's plan, schedule and verdict (issue 13); the bench run itself is WanBenchIT's. */
class VaryingRateTest {

    @Test
    void theScheduleSteps10xUpAndDownWithBurstsAndTopsOutUnderOneUplink() {
        List<RateStep> steps = RateStep.varyingRate(false, 40_000_000L);
        List<Double> rates = steps.stream().filter(s -> !s.isBurst()).map(RateStep::ratePerS).toList();
        assertThat(rates).containsExactly(60.0, 600.0, 6000.0, 600.0, 600.0, 60.0, 60.0);
        for (int i = 1; i < rates.size(); i++) {
            double ratio = rates.get(i) / rates.get(i - 1);
            assertThat(ratio).as("step %d", i).isIn(0.1, 1.0, 10.0);
        }
        assertThat(steps).filteredOn(RateStep::isBurst).hasSize(2)
                .allSatisfy(b -> assertThat(b.records()).isEqualTo(30_000));
        assertThat(steps).filteredOn(s -> !s.isBurst())
                .allSatisfy(s -> assertThat(s.duration()).isBetween(Duration.ofSeconds(20), Duration.ofSeconds(60)));
        assertThat(steps).extracting(RateStep::name).doesNotHaveDuplicates();
        // one uplink of 40 Mbit/s carried ~7,600 records/s of this payload: the top step is 0.8 of it
        assertThat(RateStep.varyingRate(false, 20_000_000L).get(2).ratePerS()).isEqualTo(3000);

        List<RateStep> quick = RateStep.varyingRate(true, 40_000_000L);
        assertThat(quick).extracting(RateStep::name).containsExactly("low", "high", "burst", "low-after-burst");
        assertThat(quick.get(1).ratePerS() / quick.get(0).ratePerS()).isGreaterThanOrEqualTo(10);
        assertThat(quick.stream().mapToLong(s -> s.duration().toSeconds()).sum()).isLessThanOrEqualTo(20);
        assertThatThrownBy(() -> new RateStep("x", 10, Duration.ZERO, 0)).hasMessageContaining("step x");
    }

    @Test
    void theVaryingRateLoadHasItsOwnVariantsOutputAndSteps() {
        BenchPlan steady = BenchPlan.defaults("wan", false, Path.of("out"), "cmd");
        assertThat(steady.load()).isEqualTo(BenchPlan.Load.STEADY);
        assertThat(steady.rateSteps()).isEmpty();
        assertThat(steady.variants()).doesNotContain(Variants.JS_1_ROUTE_FIXED_SMALL);

        BenchPlan full = BenchPlan.defaults("wan", BenchPlan.Load.VARYING_RATE, false, Path.of("out"), "cmd");
        assertThat(full.outputName()).isEqualTo("wan-varying-rate");
        assertThat(full.variants()).containsExactlyElementsOf(Variants.varyingRateRun());
        assertThat(full.rateSteps()).isEqualTo(RateStep.varyingRate(false, full.uplinkBitsPerSecond()));
        BenchPlan quick = BenchPlan.defaults("wan", BenchPlan.Load.VARYING_RATE, true, Path.of("out"), "cmd");
        assertThat(quick.outputName()).isEqualTo("wan-varying-rate-quick");
        assertThat(quick.variants()).containsExactly(Variants.JS_1_ROUTE, Variants.JS_1_ROUTE_FIXED_SMALL);

        assertThat(BenchPlan.Load.of("varying-rate")).isEqualTo(BenchPlan.Load.VARYING_RATE);
        assertThatThrownBy(() -> BenchPlan.Load.of("sine")).hasMessageContaining("--scenario")
                .hasMessageContaining("steady, varying-rate");
    }

    @Test
    void theSweepSetsOnlyBatchingKeysAndOneRoute() {
        List<Variant> sweep = Variants.select(Variants.varyingRateRun());
        assertThat(sweep).allSatisfy(v -> {
            assertThat(v.routes()).isEqualTo(1);
            assertThat(v.sourceProps().keySet()).allMatch(k -> k.startsWith("batch."));
        });
        assertThat(sweep).extracting(Variant::id).containsExactly(Variants.JS_1_ROUTE, Variants.JS_1_ROUTE_FIXED_SMALL,
                Variants.JS_1_ROUTE_FIXED_MEDIUM, Variants.JS_1_ROUTE_FIXED_LARGE);
        assertThat(Variants.select(RateComparison.SWEEP)).allSatisfy(v -> assertThat(v.sourceProps())
                .containsKey("batch.linger.ms").doesNotContainKey("batch.policy"));
        assertThat(Variants.byId(Variants.JS_1_ROUTE_FIXED_MEDIUM).sourceProps())
                .isEqualTo(Map.of("batch.max.records", "256", "batch.linger.ms", "5"));
        assertThat(Variants.byId(Variants.JS_1_ROUTE).sourceProps()).as("today's defaults, as shipped").isEmpty();
    }

    @Test
    void theDefaultsAreComparedWithTheBestSettingOfTheSweepInEachStepAndOverall() {
        // p99 per step (low, high, burst); small batches win at low rate, large ones at high rate
        VariantResult defaults = stepped(Variants.JS_1_ROUTE, 50, 90, 900);
        VariantResult small = stepped(Variants.JS_1_ROUTE_FIXED_SMALL, 40, 300, 2000);
        VariantResult large = stepped(Variants.JS_1_ROUTE_FIXED_LARGE, 150, 80, 800);
        VariantResult notInTheSweep = stepped(Variants.JS_1_ROUTE_ZSTD, 10, 10, 10);

        RateComparison c = RateComparison.of(List.of(defaults, small, large, notInTheSweep), 25).orElseThrow();

        assertThat(c.defaultsVariant()).isEqualTo(Variants.JS_1_ROUTE);
        assertThat(c.latencyTargetMs()).isEqualTo(75);
        // geometric means: defaults (50*90*900)^(1/3) = 159.4; small 310.7; large 212.5
        assertThat(c.bestFixedOverall()).as("only the sweep is compared").isEqualTo(Variants.JS_1_ROUTE_FIXED_LARGE);
        assertThat(c.scores().get(Variants.JS_1_ROUTE)).isCloseTo(159.4, org.assertj.core.data.Offset.offset(0.1));
        assertThat(c.defaultsVsBestFixed()).isCloseTo(1.333, org.assertj.core.data.Offset.offset(0.01));
        assertThat(c.steps()).extracting(RateComparison.StepVerdict::bestFixed)
                .containsExactly(Variants.JS_1_ROUTE_FIXED_SMALL, Variants.JS_1_ROUTE_FIXED_LARGE,
                        Variants.JS_1_ROUTE_FIXED_LARGE);
        assertThat(c.steps()).extracting(RateComparison.StepVerdict::within5Percent).containsExactly(false, false, false);
        assertThat(c.steps().get(1).ratio()).isCloseTo(80 / 90.0, org.assertj.core.data.Offset.offset(0.001));
        assertThat(c.steps().get(0).bestFixedOverallP99Ms()).isEqualTo(150);
        assertThat(c.steps().get(0).defaultsMetLatencyTarget()).isTrue();
        assertThat(c.stepsCompared()).isEqualTo(3);
        assertThat(c.everyStepWithin5Percent()).isFalse();

        VariantResult better = stepped(Variants.JS_1_ROUTE, 40, 82, 600);
        RateComparison win = RateComparison.of(List.of(better, small, large), 25).orElseThrow();
        assertThat(win.everyStepWithin5Percent()).isTrue();
        assertThat(win.defaultsVsBestFixed()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void fallingBehindIsReportedBesideTheLatencyItCosts() {
        VariantResult defaults = stepped(Variants.JS_1_ROUTE, 50, 900, 900);
        List<VariantResult.Step> steps = new ArrayList<>(defaults.steps());
        VariantResult.Step high = steps.get(1);
        steps.set(1, new VariantResult.Step(high.name(), false, high.records(), 3000, 2000, false, 400, 900, 950, 420, 6,
                0.5, 1.2, 1.0, 3));
        VariantResult behind = withSteps(defaults, steps);
        VariantResult small = stepped(Variants.JS_1_ROUTE_FIXED_SMALL, 40, 300, 2000);

        RateComparison c = RateComparison.of(List.of(behind, small), 25).orElseThrow();

        assertThat(c.steps().get(1).fellBehind()).containsExactly(Variants.JS_1_ROUTE);
        assertThat(c.steps().get(1).defaultsKeptUp()).isFalse();
        assertThat(c.steps().get(1).bestFixedKeptUp()).isTrue();
        assertThat(c.steps().get(1).within5Percent()).isFalse();
        assertThat(c.throughputKept()).isFalse();
        assertThat(c.scores()).containsOnlyKeys(Variants.JS_1_ROUTE, Variants.JS_1_ROUTE_FIXED_SMALL);
        assertThat(c.bestFixedOverall()).isEqualTo(Variants.JS_1_ROUTE_FIXED_SMALL);
        assertThat(RateComparison.of(List.of(behind), 25).orElseThrow().defaultsVsBestFixed())
                .as("no setting of the sweep ran").isNull();
        assertThat(RateComparison.of(List.of(small), 25)).as("the defaults did not run, no verdict").isEmpty();
    }

    @Test
    void theTasksDecisionsAreSummedUpPerConnectorAndWindow() {
        List<TaskMetricsReader.Sample> samples = TaskMetricsReader.parse(List.of(
                "1000 js-source-a 0 batch-max-records=1.0 batch-linger-seconds=0.002 window-batches=1024.0",
                "1000 js-source-a 1 batch-max-records=3.0 batch-linger-seconds=0.004 batch-records-avg=NaN",
                "1500 js-source-a 0 batch-max-records=5.0 batch-linger-seconds=0.003",
                "1500 js-source-a 1 batch-max-rec",
                "1500 js-source-b 0 batch-max-records=960.0"));
        assertThat(samples).hasSize(5);

        TaskMetricsReader.Decisions a = TaskMetricsReader.summarize(samples.stream()
                .filter(s -> s.connector().equals("js-source-a")).toList()).orElseThrow();
        assertThat(a.batchMaxRecordsMean()).isEqualTo(3.0);
        assertThat(a.batchMaxRecordsMax()).isEqualTo(5.0);
        assertThat(a.lingerMsMean()).isEqualTo(3.0);
        assertThat(a.samples()).as("the cut line too, without figures").isEqualTo(4);
        TaskMetricsReader.Decisions b = TaskMetricsReader.summarize(samples.stream()
                .filter(s -> s.connector().equals("js-source-b")).toList()).orElseThrow();
        assertThat(b.batchMaxRecordsMean()).isEqualTo(960.0);
        assertThat(b.lingerMsMean()).as("not sampled").isNull();
        assertThat(TaskMetricsReader.summarize(List.of())).isEmpty();
    }

    private static VariantResult stepped(String id, long lowP99, long highP99, long burstP99) {
        List<VariantResult.Step> steps = List.of(
                new VariantResult.Step("low", false, 600, 100, 99, true, lowP99 / 2, lowP99, lowP99 + 5, lowP99 / 2.0,
                        6, 0.3, 1.0, 0.07, 1.5),
                new VariantResult.Step("high", false, 18_000, 3000, 2990, true, highP99 / 2, highP99, highP99 + 5,
                        highP99 / 2.0, 6, 0.6, 1.5, 2.0, 40),
                new VariantResult.Step("burst", true, 6000, 9000, 7000, true, burstP99 / 2, burstP99, burstP99 + 5,
                        burstP99 / 2.0, 1, 0.8, 1.9, 4.5, 300));
        return withSteps(Fixtures.variant(id, "jetstream", "zstd", 8, 650, 0.05, 100), steps);
    }

    private static VariantResult withSteps(VariantResult v, List<VariantResult.Step> steps) {
        return new VariantResult(v.id(), v.title(), v.replicator(), v.topic(), v.destinationTopic(), v.wireCodec(),
                null, null, v.verification(), v.deployment(), v.timeline(), v.latencyCdf(), v.latencyOverTime(),
                v.error(), steps);
    }
}
