package io.jetstream.kafka.core.model.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.model.AdaptiveBatchPolicy;
import io.jetstream.kafka.core.model.AdaptiveBatchSettings;
import java.time.Duration;
import java.util.List;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * The adaptive batching policy against the best fixed batch size found by sweeping, on simulated
 * paths (see {@link BatchingSim}). Every figure is printed, and docs/model.md quotes them.
 */
class BatchingSimulationTest {

    private static final long SEED = Long.getLong("sim.seed", 42);
    private static final double SECONDS = 40;
    private static final double WARMUP = 5;

    static List<Arguments> stableConditions() {
        return List.of(
                Arguments.of("wan 2000 rec/s", PathParams.wan(), 2_000.0, 30.0),
                Arguments.of("wan 5000 rec/s", PathParams.wan(), 5_000.0, 30.0),
                Arguments.of("metro 40000 rec/s", PathParams.metro(), 40_000.0, 3.0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stableConditions")
    void stableConditionsConvergeToTheBestFixedSize(String name, PathParams path, double rate, double target) {
        DoubleUnaryOperator constant = t -> rate;
        FixedSweep sweep = FixedSweep.run(path, constant, SECONDS, WARMUP, target, SEED, Duration.ofMillis(100));
        SimResult bestFixed = sweep.bestBy(SimResult::meanMillis);
        BatchingSim sim = new BatchingSim(path, new AdaptiveBatchPolicy(settings(path)), constant, SEED);
        SimResult adaptive = sim.run("adaptive", SECONDS, WARMUP, target);
        print(name, bestFixed, adaptive);

        assertThat(adaptive.meanMillis()).as("mean latency within 5% of the best fixed size")
                .isLessThanOrEqualTo(bestFixed.meanMillis() * 1.05);
        assertThat(adaptive.recordsPerSecond()).as("throughput within 5% of the best fixed size")
                .isGreaterThanOrEqualTo(bestFixed.recordsPerSecond() * 0.95);
        assertThat(adaptive.decisionChanges()).as("changes of caps in %s s, warm-up included", SECONDS)
                .isLessThanOrEqualTo(3);
        long firstModelDecision = sim.decisionLog().get(1)[0];
        assertThat(firstModelDecision).as("warm-up ends within a second").isLessThanOrEqualTo(SimLoop.seconds(1));
    }

    /**
     * Metro path, 256-byte records, the rate steps between 6,000 and 60,000 records/s every 10 s.
     * Metric: the fraction of records delivered later than a 3 ms target (SLO misses), at equal
     * throughput (every policy compared delivers all records). The adaptive policy must miss at
     * least 25% fewer records than the best fixed size (sizes 1..128, linger 100 ms or 3 ms, the
     * best for this metric), have a p99 at least 15% lower, and a mean no worse than 5% above.
     */
    @Test
    void rateStepping10xMissesTheLatencyTargetAQuarterLessOftenThanTheBestFixedSize() {
        PathParams path = PathParams.metro();
        double target = 3.0;
        DoubleUnaryOperator steps = t -> ((long) (t / 10)) % 2 == 0 ? 6_000 : 60_000;
        FixedSweep sweep = FixedSweep.run(path, steps, SECONDS, WARMUP, target, SEED, Duration.ofMillis(100),
                Duration.ofMillis(3));
        SimResult bestLate = sweep.bestBy(r -> 1 - r.withinTarget());
        SimResult bestP99 = sweep.bestBy(SimResult::p99Millis);
        SimResult bestMean = sweep.bestBy(SimResult::meanMillis);
        BatchingSim sim = new BatchingSim(path, new AdaptiveBatchPolicy(settings(path)), steps, SEED);
        SimResult adaptive = sim.run("adaptive", SECONDS, WARMUP, target);
        print("10x steps, best fixed by late fraction (> 3 ms)", bestLate, adaptive);
        print("10x steps, best fixed by p99", bestP99, adaptive);
        print("10x steps, best fixed by mean", bestMean, adaptive);
        System.out.println("  caps (ms:maxRecords/window):" + describe(sim.decisionLog()));

        assertThat(adaptive.delivered()).as("equal throughput: all delivered but the last second's")
                .isGreaterThanOrEqualTo(adaptive.arrived() - 60_000);
        assertThat(1 - adaptive.withinTarget()).as("late fraction at least 25% below the best fixed size's")
                .isLessThanOrEqualTo(0.75 * (1 - bestLate.withinTarget()));
        assertThat(adaptive.p99Millis()).as("p99 at least 15% below the best fixed size's")
                .isLessThanOrEqualTo(0.85 * bestP99.p99Millis());
        assertThat(adaptive.meanMillis()).as("mean no worse than 5% above the best fixed size's")
                .isLessThanOrEqualTo(1.05 * bestMean.meanMillis());
    }

    static List<Arguments> noisyConditions() {
        return List.of(
                Arguments.of("noisy wan 2000 rec/s", PathParams.wan().withNoise(SimLoop.millis(10), 0.2, 0.01), 2_000.0),
                Arguments.of("noisy wan 5000 rec/s", PathParams.wan().withNoise(SimLoop.millis(10), 0.2, 0.01), 5_000.0),
                Arguments.of("noisy metro 40000 rec/s", PathParams.metro().withNoise(SimLoop.millis(1), 0.2, 0.01),
                        40_000.0));
    }

    /**
     * Noise: one-way delay wandering by up to 10 ms (1 ms on metro) every 100 ms, transmission
     * times scaled by 0.8..1.2, and 1% of encodes 20 times slower. The caps may change at most
     * six times in 40 s, and the sender keeps up.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("noisyConditions")
    void noisyMeasurementsDoNotMakeDecisionsFlap(String name, PathParams path, double rate) {
        BatchingSim sim = new BatchingSim(path, new AdaptiveBatchPolicy(settings(path)), t -> rate, SEED);
        SimResult adaptive = sim.run("adaptive", SECONDS, WARMUP, 50);
        System.out.printf("%s: %s%n  caps (ms:maxRecords/window):%s%n", name, adaptive, describe(sim.decisionLog()));
        assertThat(adaptive.decisionChanges()).as("changes of caps in %s s", SECONDS).isLessThanOrEqualTo(6);
        assertThat(adaptive.delivered()).as("keeps up: undelivered at most the last second's").isGreaterThanOrEqualTo(adaptive.arrived() - (long) rate);
    }

    static AdaptiveBatchSettings settings(PathParams path) {
        // the operator configures the frame overhead of the protocol; everything else is measured
        return AdaptiveBatchSettings.builder().batchOverheadBytes(path.overheadBytes()).build();
    }

    private static String describe(List<long[]> log) {
        StringBuilder out = new StringBuilder();
        log.forEach(l -> out.append(' ').append(l[0] / 1_000_000).append(':').append(l[1]).append('/').append(l[2]));
        return out.toString();
    }

    private static void print(String name, SimResult fixed, SimResult adaptive) {
        System.out.printf("%s%n  best fixed: %s%n  adaptive:   %s%n", name, fixed, adaptive);
    }
}
