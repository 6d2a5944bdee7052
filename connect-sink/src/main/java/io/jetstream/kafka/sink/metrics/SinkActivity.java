package io.jetstream.kafka.sink.metrics;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one destination-site task wrote and committed, for the task's view ({@link SinkTaskView}):
 * running totals, the times of the last write and the last commit, and recent latencies (moving
 * averages over about the last {@value #SAMPLES} samples).
 *
 * <p>Threads: recorded on the task's and the producer's threads, read on the worker's REST threads;
 * an average updated by two threads at once may lose one sample, which a view can afford.
 */
final class SinkActivity {

    static final int SAMPLES = 100;

    private final LongAdder recordsOut = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder commits = new LongAdder();
    private volatile long lastWriteMillis;
    private volatile long lastCommitMillis;
    private volatile double replicationLatencyMs = Double.NaN;
    private volatile double batchTransitMs = Double.NaN;

    void recordsOut(int count) {
        recordsOut.add(count);
    }

    void duplicates(long count) {
        duplicates.add(count);
    }

    void written(long latencyMillis) {
        lastWriteMillis = System.currentTimeMillis();
        replicationLatencyMs = average(replicationLatencyMs, latencyMillis);
    }

    void batchTransit(long millis) {
        batchTransitMs = average(batchTransitMs, millis);
    }

    /** Progress was stored: an offset flush (at-least-once) or a transaction committed (exactly-once). */
    void committed() {
        commits.increment();
        lastCommitMillis = System.currentTimeMillis();
    }

    private static double average(double previous, double sample) {
        return Double.isNaN(previous) ? sample : previous + (sample - previous) / SAMPLES;
    }

    /** The figures as JSON members, {@code nowMillis} being the wall clock now. */
    Map<String, Object> view(long nowMillis) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("records_out", recordsOut.sum());
        view.put("duplicates_dropped", duplicates.sum());
        view.put("commits", commits.sum());
        view.put("last_write_age_ms", age(lastWriteMillis, nowMillis));
        view.put("last_commit_age_ms", age(lastCommitMillis, nowMillis));
        view.put("replication_latency_ms", replicationLatencyMs);
        view.put("batch_transit_ms", batchTransitMs);
        return view;
    }

    private static Long age(long millis, long nowMillis) {
        return millis == 0 ? null : Math.max(0, nowMillis - millis);
    }
}
