package io.jetstream.kafka.core.model;

/**
 * The measured (or, before measurement, prior) quantities the {@link LatencyModel} is evaluated
 * with. Exposed in every {@link DecisionExplanation} so a metric shows what the decision saw.
 *
 * @param arrivalRecordsPerSecond   measured arrival rate {@code r}
 * @param effectiveRecordsPerSecond {@code r} plus the backlog beyond one batch divided by the drain time
 * @param meanRecordBytes           mean uncompressed record size {@code s}
 * @param compressionRatio          wire payload bytes per uncompressed byte {@code rho}
 * @param encodeFixedNanos          encode cost per batch {@code e0}
 * @param encodeNanosPerByte        encode cost per uncompressed byte {@code e1}
 * @param linkBytesPerSecond        throughput {@code C} of the path to the destination
 * @param rttNanos                  base round-trip time {@code R} of that path
 * @param ackLatencyNanos           mean time from sending a batch to its acknowledgement, {@code A}
 *                                  (a window slot is held this long; at least {@code R})
 * @param backlogRecords            records waiting at the sender
 */
public record ModelInputs(
        double arrivalRecordsPerSecond,
        double effectiveRecordsPerSecond,
        double meanRecordBytes,
        double compressionRatio,
        double encodeFixedNanos,
        double encodeNanosPerByte,
        double linkBytesPerSecond,
        double rttNanos,
        double ackLatencyNanos,
        long backlogRecords) {
}
