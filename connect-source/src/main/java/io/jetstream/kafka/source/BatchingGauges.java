package io.jetstream.kafka.source;

import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.BatchPolicy;
import io.jetstream.kafka.core.model.Clock;
import java.util.function.Supplier;

/**
 * The batching policy's gauges: the caps in force (as of the clock's now), which are the configured
 * ones, so that a dashboard shows them beside what they produce. Names are documented in
 * docs/operations.md.
 */
final class BatchingGauges {

    /** Where the gauges go: {@link SourceSiteMetrics#gauge} in the task. */
    interface Registry {
        void gauge(String metric, String doc, Supplier<Number> value);
    }

    private final BatchPolicy policy;
    private final Clock clock;

    private BatchingGauges(BatchPolicy policy, Clock clock) {
        this.policy = policy;
        this.clock = clock;
    }

    /** Registers the gauges of {@code policy}, each read on demand at {@code clock}'s now. */
    static void register(Registry registry, BatchPolicy policy, Clock clock) {
        BatchingGauges gauges = new BatchingGauges(policy, clock);
        registry.gauge("batch-max-records", "Records at which a batch closes (batch.max.records).",
                () -> gauges.decision().maxRecords());
        registry.gauge("batch-max-bytes", "Uncompressed bytes at which a batch closes (batch.max.bytes).",
                () -> gauges.decision().maxBytes());
        registry.gauge("batch-linger-seconds", "Longest a record waits for its batch to fill (batch.linger.ms),"
                + " in seconds.", () -> gauges.decision().linger().toNanos() / 1e9);
        registry.gauge("window-batches", "In-flight window: the most batches sent and not yet acknowledged.",
                () -> gauges.decision().maxInFlightBatches());
        registry.gauge("window-bytes", "In-flight window: the most wire bytes sent and not yet acknowledged"
                + " (max.in.flight.bytes).", () -> gauges.decision().maxInFlightBytes());
    }

    private BatchDecision decision() {
        return policy.decision(clock.nanoTime());
    }
}
