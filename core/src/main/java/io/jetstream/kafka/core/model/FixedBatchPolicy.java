package io.jetstream.kafka.core.model;

import java.util.Objects;

/**
 * Static caps from configuration ({@code batch.max.records}, {@code batch.max.bytes},
 * {@code batch.linger.ms} and the in-flight window), as a Kafka producer batches ({@code batch.size},
 * {@code linger.ms}, {@code max.in.flight}). Ignores every report. Immutable and thread-safe.
 *
 * <p>The policy when {@code batch.linger.ms} is set; unset, the linger follows the path's round trip
 * ({@link RoundTripLingerPolicy}). An adaptive policy, which chose all the caps from a latency model of
 * the measured rate, sizes, costs and path, was built, measured on the benchmark's environment grid and
 * removed, for no cell of the grid needed it (docs/model.md, "Why there is no adaptive batching").
 */
public final class FixedBatchPolicy implements BatchPolicy {

    private final BatchDecision caps;

    public FixedBatchPolicy(BatchDecision caps) {
        this.caps = Objects.requireNonNull(caps, "caps");
    }

    @Override
    public BatchDecision decision(long nowNanos) {
        return caps;
    }

    @Override
    public String toString() {
        return "FixedBatchPolicy" + caps;
    }
}
