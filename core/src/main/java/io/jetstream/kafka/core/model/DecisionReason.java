package io.jetstream.kafka.core.model;

/** Why a {@link BatchDecision} has the caps it has. */
public enum DecisionReason {
    /** Static caps from configuration ({@link FixedBatchPolicy}). */
    FIXED,
    /** Not enough has been measured yet; the configured initial caps apply. */
    WARMUP,
    /** The batch size with the lowest predicted latency that keeps up with the arrival rate. */
    LATENCY_OPTIMAL,
    /** As {@link #LATENCY_OPTIMAL}, for the arrival rate plus the rate that drains the backlog in time. */
    DRAIN_BACKLOG,
    /**
     * Only batches far slower than the fastest stable one would keep the headroom (the path runs
     * near capacity): the fastest batch size below saturation, without the headroom.
     */
    NO_HEADROOM,
    /** No batch size keeps up at all: the smallest one within 5% of the highest predicted capacity. */
    SATURATED
}
