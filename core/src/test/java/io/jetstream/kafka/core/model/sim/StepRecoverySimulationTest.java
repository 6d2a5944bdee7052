package io.jetstream.kafka.core.model.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.model.AdaptiveBatchPolicy;
import java.util.List;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * After a step in the arrival rate or in the link's capacity, the adaptive policy is back within
 * 5% of the best static setting within 10 simulated seconds.
 *
 * <p>The best static setting is the fixed batch size with the lowest mean latency in a sweep run
 * with the condition after the step held from the start. That size is then run on the same step
 * trace (same seed, same arrivals, same commit instants) as the adaptive policy, and the two are
 * compared second by second (records grouped by the second they arrived in, mean latency to
 * commit, over a sliding two-second window). Recovery time = from the step to the start of the
 * first window from which on every window of the adaptive policy is within 5% (plus 0.5 ms, the
 * histogram's resolution) of the fixed size's, and every record of it was delivered.
 */
class StepRecoverySimulationTest {

    private static final long SEED = Long.getLong("sim.seed", 42);
    private static final double SECONDS = 40;
    private static final int STEP_AT = 20;
    private static final int WINDOW = 2;

    static List<Arguments> steps() {
        PathParams wan = PathParams.emulatedWan();
        PathParams commit = wan.withCommitPeriod(SimLoop.millis(100));
        return List.of(
                // 10x up: at 2,000 rec/s batches of one record would load the link to 95%
                Arguments.of("rate 200 -> 2000 rec/s, emulated wan", wan, 200.0, 2_000.0, 0.0),
                Arguments.of("rate 200 -> 2000 rec/s, emulated wan, commit 100 ms", commit, 200.0, 2_000.0, 0.0),
                Arguments.of("rate 2000 -> 500 rec/s, emulated wan, commit 100 ms", commit, 2_000.0, 500.0, 0.0),
                // half the capacity: batches of one record at 1,000 rec/s would load the link to 95%
                Arguments.of("link 1.5 -> 0.75 MB/s at 1000 rec/s, emulated wan", wan, 1_000.0, 1_000.0, 0.75e6),
                Arguments.of("link 1.5 -> 0.75 MB/s at 1000 rec/s, emulated wan, commit 100 ms", commit, 1_000.0,
                        1_000.0, 0.75e6));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("steps")
    void backWithinFivePercentOfTheBestStaticSettingWithinTenSeconds(String name, PathParams path, double before,
                                                                     double after, double capacityAfter) {
        boolean capacityStep = capacityAfter > 0;
        PathParams afterPath = capacityStep ? path.withLinkBytesPerSecond(capacityAfter) : path;
        FixedSweep sweep = FixedSweep.run(afterPath, t -> after, SECONDS, 5, 1_000, SEED,
                PeriodicCommitSimulationTest.SIZES, PeriodicCommitSimulationTest.WINDOW,
                PeriodicCommitSimulationTest.WINDOW_BYTES, PeriodicCommitSimulationTest.LINGER);
        SimResult bestStatic = sweep.bestBy(SimResult::meanMillis);
        int bestSize = bestStatic.finalMaxRecords();

        DoubleUnaryOperator trace = t -> t < STEP_AT ? before : after;
        BatchingSim fixed = new BatchingSim(path, FixedSweep.fixed(bestSize, PeriodicCommitSimulationTest.LINGER,
                PeriodicCommitSimulationTest.WINDOW, PeriodicCommitSimulationTest.WINDOW_BYTES), trace, SEED);
        BatchingSim adaptive = new BatchingSim(path,
                new AdaptiveBatchPolicy(PeriodicCommitSimulationTest.connectorSettings(path)), trace, SEED);
        if (capacityStep) {
            fixed.linkCapacityAt(STEP_AT, capacityAfter);
            adaptive.linkCapacityAt(STEP_AT, capacityAfter);
        }
        SimResult fixedRun = fixed.run("fixed " + bestSize, SECONDS, 5, 1_000);
        SimResult adaptiveRun = adaptive.run("adaptive", SECONDS, 5, 1_000);

        int lastWindowStart = (int) SECONDS - 1 - WINDOW; // the last second's records may still be in flight
        int recoveredFrom = -1;
        StringBuilder perWindow = new StringBuilder();
        for (int s = STEP_AT; s <= lastWindowStart; s++) {
            double a = windowMean(adaptive, s);
            double f = windowMean(fixed, s);
            boolean allDelivered = windowDelivered(adaptive, s) >= windowDelivered(fixed, s) * 0.999;
            boolean within = allDelivered && a <= f * 1.05 + 0.5;
            perWindow.append(String.format(" %d:%.1f/%.1f", s - STEP_AT, a, f));
            if (!within) {
                recoveredFrom = -1;
            } else if (recoveredFrom < 0) {
                recoveredFrom = s;
            }
        }
        int recoverySeconds = recoveredFrom < 0 ? Integer.MAX_VALUE : recoveredFrom - STEP_AT;
        System.out.printf("%s%n  best static after the step: %s%n  fixed %d on the step trace: %s%n"
                        + "  adaptive on the step trace:  %s%n  2 s windows after the step (s:adaptive/fixed ms):%s%n"
                        + "  recovered within 5%% after %s s%n  caps (ms:maxRecords/window):%s%n",
                name, bestStatic, bestSize, fixedRun, adaptiveRun, perWindow,
                recoverySeconds == Integer.MAX_VALUE ? "never" : recoverySeconds,
                PeriodicCommitSimulationTest.describe(adaptive.decisionLog().stream()
                        .filter(l -> l[0] >= (STEP_AT - 1) * 1_000_000_000L).toList()));

        assertThat(recoverySeconds).as("seconds after the step until within 5% of the best static setting")
                .isLessThanOrEqualTo(10);
    }

    private static double windowMean(BatchingSim sim, int from) {
        double sum = 0;
        long n = 0;
        for (int s = from; s < from + WINDOW; s++) {
            long count = sim.deliveredOfSecond(s);
            if (count > 0) {
                sum += sim.meanMillisOfSecond(s) * count;
                n += count;
            }
        }
        return n == 0 ? Double.NaN : sum / n;
    }

    private static long windowDelivered(BatchingSim sim, int from) {
        long n = 0;
        for (int s = from; s < from + WINDOW; s++) {
            n += sim.deliveredOfSecond(s);
        }
        return n;
    }
}
