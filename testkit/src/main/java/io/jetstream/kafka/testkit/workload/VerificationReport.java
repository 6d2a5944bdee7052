package io.jetstream.kafka.testkit.workload;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What a destination holds compared with a {@link ProducedLog}.
 *
 * @param expected            records the source acknowledged
 * @param delivered           expected records seen at the destination at least once
 * @param missing             expected records never seen ({@code expected - delivered})
 * @param duplicates          extra copies of expected records
 * @param orderViolations     records that arrived after a record that follows them in their source partition (counted
 *                            per source partition and destination partition, on first copies)
 * @param partitionMismatches records in the wrong destination topic, or in another partition number than at the source
 *                            when the same partitions were required
 * @param fieldMismatches     records whose key, value, headers or timestamp differ from the source
 * @param unexpected          records of this run whose sequence id was not expected
 * @param foreign             records of other runs or other writers, ignored
 * @param elapsed             time spent consuming
 * @param missingSample       some missing sequence ids, ascending
 * @param problemSample       descriptions of some order, partition and field problems
 */
public record VerificationReport(
        long expected,
        long delivered,
        long missing,
        long duplicates,
        long orderViolations,
        long partitionMismatches,
        long fieldMismatches,
        long unexpected,
        long foreign,
        Duration elapsed,
        List<Long> missingSample,
        List<String> problemSample) {

    public VerificationReport {
        Objects.requireNonNull(elapsed, "elapsed");
        missingSample = List.copyOf(missingSample);
        problemSample = List.copyOf(problemSample);
    }

    /** Order holds: no reordering within a source partition and every record in the partition it belongs to. */
    public boolean orderOk() {
        return orderViolations == 0 && partitionMismatches == 0;
    }

    /** Everything expected arrived exactly once, in order, unchanged, and nothing of this run arrived unexpected. */
    public boolean isPerfect() {
        boolean complete = missing == 0 && unexpected == 0;
        boolean exactlyOnce = duplicates == 0;
        boolean intact = fieldMismatches == 0;
        return complete && exactlyOnce && orderOk() && intact;
    }

    /** For example {@code events=10000 delivered=10000 lost=0 duplicates=0 order=ok fields=ok}. */
    public String summaryLine() {
        return "events=" + expected + " delivered=" + delivered + " lost=" + missing + " duplicates=" + duplicates
                + " order=" + (orderOk() ? "ok" : "violated") + " fields=" + (fieldMismatches == 0 ? "ok" : "mismatched");
    }

    /** The summary line, every counter, and the samples when there are any. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(summaryLine())
                .append(" order_violations=").append(orderViolations)
                .append(" partition_mismatches=").append(partitionMismatches)
                .append(" field_mismatches=").append(fieldMismatches)
                .append(" unexpected=").append(unexpected)
                .append(" foreign=").append(foreign)
                .append(" elapsed_ms=").append(elapsed.toMillis());
        if (!missingSample.isEmpty()) {
            text.append(" missing_sample=").append(missingSample);
        }
        if (!problemSample.isEmpty()) {
            text.append(" problems=").append(problemSample);
        }
        return text.toString();
    }
}
