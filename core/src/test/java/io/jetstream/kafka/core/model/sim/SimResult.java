package io.jetstream.kafka.core.model.sim;

/**
 * What one batching simulation measured, over records that arrived after the warm-up.
 * Records still undelivered at the end count with their wait so far (a lower bound).
 * {@code drainedPerSecond} counts every record delivered in the measured time, whenever it arrived:
 * the throughput of a sender with a backlog.
 */
public record SimResult(
        String policy,
        long arrived,
        long delivered,
        double recordsPerSecond,
        double meanMillis,
        double p50Millis,
        double p99Millis,
        double withinTarget,
        double timeWeightedMeanMillis,
        long batches,
        long decisionChanges,
        int finalMaxRecords,
        double drainedPerSecond) {

    @Override
    public String toString() {
        return String.format("%-22s delivered %8d/%8d  %9.0f rec/s  mean %8.2f ms  p50 %8.2f  p99 %8.2f  "
                        + "within %.4f  tw-mean %7.2f  batches %7d  changes %4d  final b %d  drained %.0f rec/s",
                policy, delivered, arrived, recordsPerSecond, meanMillis, p50Millis, p99Millis, withinTarget, timeWeightedMeanMillis, batches,
                decisionChanges, finalMaxRecords, drainedPerSecond);
    }
}
