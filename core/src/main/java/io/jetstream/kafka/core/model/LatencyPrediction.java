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
        boolean keepsUp) {

    /** Predicted mean latency of a record from arrival at the sender to delivery at the destination. */
    public double totalNanos() {
        return propagationNanos + controllableNanos();
    }

    /** The part of {@link #totalNanos()} that batching can change: all but propagation. */
    public double controllableNanos() {
        return batchingNanos + encodeNanos + queueingNanos + transmissionNanos + decodeNanos;
    }
}
