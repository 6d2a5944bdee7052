package io.jetstream.kafka.source;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one source-site task sent and what the destination acknowledged, for the task's view
 * ({@link SourceTaskView}): running totals, the time of the last acknowledgement and the recent
 * measured latency (a moving average over about the last {@value #LATENCY_SAMPLES} batches
 * acknowledged, so it follows the caps in force rather than the whole run).
 *
 * <p>Threads: recorded on the task's event loop, read on the worker's REST threads.
 */
final class Deliveries {

    /** Batches the measured latency averages over, roughly (the weight of each new batch is its inverse). */
    static final int LATENCY_SAMPLES = 20;

    private final LongAdder batchesSent = new LongAdder();
    private final LongAdder recordsSent = new LongAdder();
    private final LongAdder uncompressedBytesSent = new LongAdder();
    private final LongAdder wireBytesSent = new LongAdder();
    private final LongAdder recordsAcked = new LongAdder();
    private final LongAdder batchesAcked = new LongAdder();
    private final LongAdder recordsResent = new LongAdder();
    private final LongAdder nacks = new LongAdder();
    private final LongAdder timeouts = new LongAdder();
    private volatile long lastAckMillis;
    private volatile double recentLatencyMs = Double.NaN;

    void batchSent(int records, long uncompressedBytes, long wireBytes) {
        batchesSent.increment();
        recordsSent.add(records);
        uncompressedBytesSent.add(uncompressedBytes);
        wireBytesSent.add(wireBytes);
    }

    /** Called on one thread (the task's event loop): the average is updated without a lock. */
    void batchAcked(int records, long latencyNanos) {
        batchesAcked.increment();
        recordsAcked.add(records);
        lastAckMillis = System.currentTimeMillis();
        double ms = latencyNanos / 1e6;
        double previous = recentLatencyMs;
        recentLatencyMs = Double.isNaN(previous) ? ms : previous + (ms - previous) / LATENCY_SAMPLES;
    }

    void resent(int records) {
        recordsResent.add(records);
    }

    void nack() {
        nacks.increment();
    }

    void timeout() {
        timeouts.increment();
    }

    /** Mean time from a batch's oldest record reaching the task to its acknowledgement, recently; NaN before any. */
    double recentLatencyMs() {
        return recentLatencyMs;
    }

    /** The figures as JSON members, {@code nowMillis} being the wall clock now. */
    Map<String, Object> view(long nowMillis) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("batches_sent", batchesSent.sum());
        view.put("records_sent", recordsSent.sum());
        view.put("records_acked", recordsAcked.sum());
        view.put("batches_acked", batchesAcked.sum());
        view.put("uncompressed_bytes_sent", uncompressedBytesSent.sum());
        view.put("wire_bytes_sent", wireBytesSent.sum());
        long last = lastAckMillis;
        view.put("last_ack_age_ms", last == 0 ? null : Math.max(0, nowMillis - last));
        view.put("records_resent", recordsResent.sum());
        view.put("nacks", nacks.sum());
        view.put("ack_timeouts", timeouts.sum());
        return view;
    }
}
