package io.jetstream.kafka.core.model;

/**
 * The {@link LatencyModel}'s prediction for one batch size: the parts of a record's mean latency
 * (all in nanoseconds), the utilisations, and whether the sender keeps up.
 *
 * @param batchRecords             {@code b}
 * @param wireBytes                {@code h + rho * s * b}
 * @param window                   batches in flight needed to fill the pipe (bandwidth-delay product), capped
 * @param batchingNanos            mean wait for the batch to fill, {@code (b - 1) / (2 r)}
 * @param encodeNanos              {@code e0 + e1 * s * b}
 * @param queueingNanos            predicted waiting for the encoder and for the link
 * @param propagationNanos         {@code R / 2}, the one-way part of the round trip
 * @param transmissionNanos        {@code wireBytes / C}
 * @param decodeNanos              decode at the destination, {@code decodeCostFactor * encodeNanos}
 * @param linkUtilisation          offered wire bytes per second over the usable link capacity
 * @param encoderUtilisation       encoder busy fraction
 * @param capacityRecordsPerSecond records per second this batch size can carry at most
 * @param keepsUp                  both utilisations are within {@code 1 - headroom}
 * @param fixedDelayNanos          {@code c}, the fixed delay at the far end (commit interval), the same
 *                                 for every batch size: a latency floor, not a cost batching can change
 * @param farEndUtilisation        busy fraction of the far end's serial per-batch cost {@code k}
 */
public record LatencyPrediction(
        int batchRecords,
        double wireBytes,
        int window,
        double batchingNanos,
        double encodeNanos,
        double queueingNanos,
        double propagationNanos,
        double transmissionNanos,
        double decodeNanos,
        double linkUtilisation,
        double encoderUtilisation,
        double capacityRecordsPerSecond,
        boolean keepsUp,
        double fixedDelayNanos,
        double farEndUtilisation) {

    /** A prediction without a fixed delay at the far end. */
    public LatencyPrediction(int batchRecords, double wireBytes, int window, double batchingNanos, double encodeNanos,
                             double queueingNanos, double propagationNanos, double transmissionNanos,
                             double decodeNanos, double linkUtilisation, double encoderUtilisation,
                             double capacityRecordsPerSecond, boolean keepsUp) {
        this(batchRecords, wireBytes, window, batchingNanos, encodeNanos, queueingNanos, propagationNanos,
                transmissionNanos, decodeNanos, linkUtilisation, encoderUtilisation, capacityRecordsPerSecond, keepsUp,
                0, 0);
    }

    /**
     * Predicted mean latency of a record from arrival at the sender to delivery (commit) at the
     * destination: propagation, the fixed delay and the controllable part.
     */
    public double totalNanos() {
        return propagationNanos + fixedDelayNanos + controllableNanos();
    }

    /** The part of {@link #totalNanos()} that batching can change: all but propagation. */
    public double controllableNanos() {
        return batchingNanos + encodeNanos + queueingNanos + transmissionNanos + decodeNanos;
    }
}
