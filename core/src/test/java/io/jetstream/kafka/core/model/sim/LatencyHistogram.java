package io.jetstream.kafka.core.model.sim;

/** Weighted latency histogram with 1% wide logarithmic buckets, exact mean. */
public final class LatencyHistogram {

    private static final double BUCKETS_PER_E = 100;
    private final long[] counts = new long[3200];
    private long total;
    private double sumNanos;

    public void record(long latencyNanos, long count) {
        if (count <= 0) {
            return;
        }
        long ns = Math.max(1, latencyNanos);
        int bucket = (int) Math.min(counts.length - 1, Math.log(ns) * BUCKETS_PER_E);
        counts[bucket] += count;
        total += count;
        sumNanos += (double) ns * count;
    }

    public long count() {
        return total;
    }

    public double meanMillis() {
        return total == 0 ? Double.NaN : sumNanos / total / 1e6;
    }

    public double percentileMillis(double p) {
        long rank = (long) Math.ceil(p / 100.0 * total);
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank && seen > 0) {
                return Math.exp((i + 1) / BUCKETS_PER_E) / 1e6;
            }
        }
        return Double.NaN;
    }

    /** Fraction of recorded records whose latency is at most {@code millis} (bucket resolution). */
    public double fractionWithinMillis(double millis) {
        if (total == 0) {
            return Double.NaN;
        }
        int limit = (int) (Math.log(millis * 1e6) * BUCKETS_PER_E);
        long within = 0;
        for (int i = 0; i < counts.length && i < limit; i++) {
            within += counts[i];
        }
        return (double) within / total;
    }
}
