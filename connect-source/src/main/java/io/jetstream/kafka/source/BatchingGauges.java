package io.jetstream.kafka.source;

import io.jetstream.kafka.core.model.AdaptiveBatchPolicy;
import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.BatchPolicy;
import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.core.model.DecisionExplanation;
import io.jetstream.kafka.core.model.ModelInputs;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The batching policy's gauges: the caps it chose (as of the clock's now), why, how often it changed
 * its mind, and the figures of its model. A figure the policy does not give (fixed caps have no model)
 * reads NaN. Names are documented in docs/operations.md.
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
        registry.gauge("batch-max-records", "Records at which the batching policy closes a batch now.",
                () -> gauges.decision().maxRecords());
        registry.gauge("batch-max-bytes", "Bytes at which the batching policy closes a batch now.",
                () -> gauges.decision().maxBytes());
        registry.gauge("batch-together-max-bytes", "Bytes up to which records handed over together (one"
                + " delivery of the consumer: a burst or a backlog) may fill a batch now; equal to batch-max-bytes"
                + " with fixed caps.", () -> gauges.decision().togetherMaxBytes());
        registry.gauge("batch-linger-seconds", "Linger the batching policy uses now, in seconds.",
                () -> gauges.decision().linger().toNanos() / 1e9);
        registry.gauge("window-batches", "In-flight window (batches) the batching policy allows now.",
                () -> gauges.decision().maxInFlightBatches());
        registry.gauge("window-bytes", "In-flight window (wire bytes) the batching policy allows now: the adaptive"
                + " policy's pipe estimate, or max.in.flight.bytes.", () -> gauges.decision().maxInFlightBytes());
        registry.gauge("predicted-latency-seconds", "Event latency the batching model predicts for its current"
                + " choice, in seconds.", () -> gauges.explained(e -> e.inForce().totalNanos() / 1e9));
        registry.gauge("batch-decision-reason", "Why the batching policy chose its caps: 0 fixed, 1 warm-up,"
                + " 2 latency-optimal, 3 draining a backlog, 4 no headroom, 5 saturated.",
                () -> gauges.decision().reason().ordinal());
        registry.gauge("batch-decision-changes", "Times the adaptive batching policy changed its batch size"
                + " (flapping shows here; a linger set anew for the partitions' rate is not counted); 0 with fixed"
                + " caps.", () -> policy instanceof AdaptiveBatchPolicy adaptive
                        ? adaptive.decisionChanges() : 0L);
        registry.gauge("path-throughput-bytes-per-second", "Path throughput the batching model uses (adaptive"
                + " policy): measured from the egress relay's receipts once they come, else from acknowledgements,"
                + " else its prior.", () -> gauges.modelInput(ModelInputs::linkBytesPerSecond));
        registry.gauge("path-rtt-seconds", "Base round trip to the egress relay the batching model uses (adaptive"
                + " policy), in seconds.", () -> gauges.modelInput(in -> in.rttNanos() / 1e9));
    }

    private BatchDecision decision() {
        return policy.decision(clock.nanoTime());
    }

    private double modelInput(ToDoubleFunction<ModelInputs> input) {
        return explained(e -> input.applyAsDouble(e.inputs()));
    }

    /** A figure from the explanation of the decision in force; NaN when the policy gives none (fixed caps). */
    private double explained(ToDoubleFunction<DecisionExplanation> figure) {
        return decision().explanation().map(figure::applyAsDouble).orElse(Double.NaN);
    }
}
