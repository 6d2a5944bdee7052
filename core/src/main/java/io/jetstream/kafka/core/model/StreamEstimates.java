package io.jetstream.kafka.core.model;

/**
 * What {@link StreamMonitor} currently believes about one stream. Unknown values are
 * {@link Double#NaN} (nothing measured yet); the caller substitutes its priors.
 *
 * @param recordsPerSecond    arrival rate at the sender
 * @param meanRecordBytes     mean uncompressed size of a record (key, value, headers)
 * @param compressionRatio    wire payload bytes per uncompressed byte, batch overhead excluded
 * @param encodeFixedNanos    encode cost of an empty batch ({@code e0})
 * @param encodeNanosPerByte  encode cost per uncompressed byte ({@code e1})
 * @param endToEndNanos       smoothed time from the arrival of a batch's oldest record to its ack
 * @param backlogRecords      records waiting at the sender, as last reported
 * @param backlogBytes        bytes waiting at the sender, as last reported
 * @param observedNanos       how long arrivals have been observed
 * @param batchesSent         batches reported sent so far
 */
public record StreamEstimates(
        double recordsPerSecond,
        double meanRecordBytes,
        double compressionRatio,
        double encodeFixedNanos,
        double encodeNanosPerByte,
        double endToEndNanos,
        long backlogRecords,
        long backlogBytes,
        long observedNanos,
        long batchesSent) {
}
