package io.jetstream.kafka.core.model.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.model.AdaptiveBatchPolicy;
import io.jetstream.kafka.core.model.AdaptiveBatchSettings;
import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.DecisionReason;
import java.time.Duration;
import java.util.List;
import java.util.function.DoubleUnaryOperator;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The destination acknowledges batches only when its Kafka transaction commits (Connect's
 * exactly-once mode; at-least-once acknowledges after an offset flush): every 100 ms or every
 * second, whatever the batch size. On the emulated WAN of the demo (1.5 MB/s, 25 ms one way) the
 * adaptive policy, configured as the connector configures it (caps 10,000 records, 1 MiB, 20 ms,
 * window 1,024 batches, 64 MiB), must carry as much as the best fixed batch size of a sweep and be
 * about as fast. This is the collapse of docs/experiments.md, reproduced in simulation.
 */
class PeriodicCommitSimulationTest {

    private static final long SEED = Long.getLong("sim.seed", 42);
    private static final double SECONDS = 40;
    private static final double WARMUP = 5;
    static final int[] SIZES = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1_024, 10_000};
    static final Duration LINGER = Duration.ofMillis(20);
    static final int WINDOW = 1_024;
    static final long WINDOW_BYTES = 64L << 20;

    static List<Arguments> commitConditions() {
        List<Arguments> conditions = new java.util.ArrayList<>();
        for (boolean receipts : new boolean[] {false, true}) {
            String with = receipts ? ", receipts" : "";
            conditions.add(Arguments.of("commit 100 ms, 1500 rec/s" + with, 100, 1_500.0, 0, receipts));
            conditions.add(Arguments.of("commit 1000 ms, 1500 rec/s" + with, 1_000, 1_500.0, 0, receipts));
            conditions.add(Arguments.of("commit 100 ms, 4000 rec/s (saturating)" + with, 100, 4_000.0, 0, receipts));
            conditions.add(Arguments.of("commit 1000 ms, 4000 rec/s (saturating)" + with, 1_000, 4_000.0, 0,
                    receipts));
            conditions.add(Arguments.of("commit 100 ms, 2 ms per batch at the destination, 1500 rec/s" + with, 100,
                    1_500.0, 2, receipts));
            conditions.add(Arguments.of("commit 1000 ms, 2 ms per batch at the destination, 4000 rec/s (saturating)"
                    + with, 1_000, 4_000.0, 2, receipts));
        }
        return conditions;
    }

    /**
     * Throughput within 5% of the best fixed size's; when the load fits the link (all delivered),
     * mean latency (arrival to commit) within 10% of the best fixed size's.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("commitConditions")
    void adaptiveCarriesAsMuchAsTheBestFixedSizeUnderPeriodicCommit(String name, int commitMillis, double rate,
                                                                    int destinationBatchMillis, boolean receipts) {
        PathParams path = PathParams.emulatedWan().withCommitPeriod(SimLoop.millis(commitMillis))
                .withDestinationBatchCost(SimLoop.millis(destinationBatchMillis));
        DoubleUnaryOperator constant = t -> rate;
        FixedSweep sweep = FixedSweep.run(path, constant, SECONDS, WARMUP, 1_000, SEED, SIZES, WINDOW, WINDOW_BYTES,
                LINGER);
        BatchingSim sim = new BatchingSim(path, new AdaptiveBatchPolicy(connectorSettings(path)), constant, SEED);
        if (receipts) {
            sim.withReceipts();
        }
        SimResult adaptive = sim.run("adaptive", SECONDS, WARMUP, 1_000);
        boolean fits = sweep.results().stream().anyMatch(r -> r.delivered() >= 0.999 * r.arrived());
        SimResult bestThroughput = fits ? sweep.bestBy(r -> -r.recordsPerSecond()) : sweep.bestThroughput();
        System.out.printf("%s%n  best fixed by throughput: %s%n", name, bestThroughput);
        SimResult bestMean = fits ? sweep.bestBy(SimResult::meanMillis) : null;
        if (fits) {
            System.out.printf("  best fixed by mean:       %s%n", bestMean);
        }
        System.out.printf("  adaptive:                 %s%n  wire bytes per batch: adaptive %.0f%n"
                + "  caps (ms:maxRecords/window):%s%n", adaptive,
                (double) adaptive.delivered() / Math.max(1, adaptive.batches()) * path.compressionRatio()
                        * path.recordBytes() + path.overheadBytes(), describe(sim.decisionLog()));

        // a backlog (no size keeps up): records delivered per second whenever they arrived; else the
        // delivered share of the arrivals (commit instants make the former jump by a commit's worth)
        ToDoubleFunction<SimResult> throughput = fits ? SimResult::recordsPerSecond : SimResult::drainedPerSecond;
        assertThat(throughput.applyAsDouble(adaptive)).as("throughput within 5% of the best fixed size's")
                .isGreaterThanOrEqualTo(0.95 * throughput.applyAsDouble(bestThroughput));
        if (fits) {
            assertThat(adaptive.meanMillis()).as("mean latency within 10% of the best fixed size's")
                    .isLessThanOrEqualTo(1.10 * bestMean.meanMillis());
        }
    }

    /** As {@code SourceSiteConfig.batchPolicy()} builds it, with the demo's frame overhead. */
    static AdaptiveBatchSettings connectorSettings(PathParams path) {
        BatchDecision caps = BatchDecision.of(10_000, 1 << 20, LINGER, WINDOW, WINDOW_BYTES, DecisionReason.FIXED);
        return AdaptiveBatchSettings.builder().maxBatchRecords(10_000).maxBatchBytes(1 << 20).maxLinger(LINGER)
                .maxInFlightBatches(WINDOW).maxInFlightBytes(WINDOW_BYTES).initial(caps)
                .batchOverheadBytes(path.overheadBytes()).build();
    }

    static String describe(List<long[]> log) {
        StringBuilder out = new StringBuilder();
        log.stream().limit(40)
                .forEach(l -> out.append(' ').append(l[0] / 1_000_000).append(':').append(l[1]).append('/').append(l[2]));
        if (log.size() > 40) {
            out.append(" ... (").append(log.size()).append(" in all)");
        }
        return out.toString();
    }
}
