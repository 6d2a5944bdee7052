package io.jetstream.kafka.core.model;

/**
 * What {@link StreamMonitor} currently believes about one stream. Unknown values are
 * {@link Double#NaN} (nothing measured yet).
 *
 * @param recordsPerSecond    arrival rate at the sender
 * @param meanRecordBytes     mean uncompressed size of a record (key, value, headers)
 * @param backlogRecords      records waiting at the sender, as last reported
 * @param backlogBytes        bytes waiting at the sender, as last reported
 */
public record StreamEstimates(
        double recordsPerSecond,
        double meanRecordBytes,
        long backlogRecords,
        long backlogBytes) {
}
