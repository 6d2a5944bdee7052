package io.jetstream.kafka.core.model;

import java.util.Objects;

/**
 * Static caps from configuration: the baseline the adaptive policy is measured against, and the
 * policy to use when an operator wants Kafka-producer-like behaviour ({@code batch.size},
 * {@code linger.ms}, {@code max.in.flight}). Ignores every report. Immutable and thread-safe.
 */
public final class FixedBatchPolicy implements BatchPolicy {

    private final BatchDecision decision;

    public FixedBatchPolicy(BatchDecision caps) {
        Objects.requireNonNull(caps, "caps");
        this.decision = BatchDecision.of(caps.maxRecords(), caps.maxBytes(), caps.linger(), caps.maxInFlightBatches(),
                caps.maxInFlightBytes(), DecisionReason.FIXED);
    }

    @Override
    public BatchDecision decision(long nowNanos) {
        return decision;
    }

    @Override
    public String toString() {
        return "FixedBatchPolicy" + decision;
    }
}
