package io.jetstream.kafka.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Percentiles of end-to-end latencies (ms) by the nearest-rank method: the p-th percentile is the
 * smallest value such that at least p% of the values are at or below it; and the CDF points the
 * report plots.
 *
 * @param count the number of values
 * @param p50   median, ms
 * @param p99   99th percentile, ms
 * @param p999  99.9th percentile, ms
 * @param max   largest value, ms
 * @param mean  mean, ms
 */
public record LatencyStats(long count, long p50, long p99, long p999, long max, double mean) {

    /** No values: every figure 0. */
    public static final LatencyStats EMPTY = new LatencyStats(0, 0, 0, 0, 0, 0);

    public static LatencyStats of(int[] millis) {
        if (millis.length == 0) {
            return EMPTY;
        }
        int[] sorted = millis.clone();
        Arrays.sort(sorted);
        double sum = 0;
        for (int value : sorted) {
            sum += value;
        }
        return new LatencyStats(sorted.length, percentile(sorted, 50), percentile(sorted, 99),
                percentile(sorted, 99.9), sorted[sorted.length - 1], sum / sorted.length);
    }

    /** Nearest rank: the value at rank ceil(p/100 * n) (1-based) of the sorted values. */
    static long percentile(int[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        // the epsilon keeps 99.9% of 1000 at rank 999 despite binary floating point
        int rank = (int) Math.ceil(p / 100.0 * sorted.length - 1e-9);
        return sorted[Math.max(0, Math.min(sorted.length, rank) - 1)];
    }

    /**
     * At most {@code points} points (latency ms, fraction of values at or below it) of the empirical
     * CDF, taken at evenly spaced ranks plus the maximum, for plotting.
     */
    static List<double[]> cdf(int[] millis, int points) {
        List<double[]> cdf = new ArrayList<>();
        if (millis.length == 0) {
            return cdf;
        }
        int[] sorted = millis.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        int step = Math.max(1, n / Math.max(1, points));
        for (int i = step - 1; i < n; i += step) {
            cdf.add(new double[] {sorted[i], (i + 1) / (double) n});
        }
        if (cdf.isEmpty() || cdf.get(cdf.size() - 1)[1] < 1.0) {
            cdf.add(new double[] {sorted[n - 1], 1.0});
        }
        return cdf;
    }

    /**
     * Latency as it went during a phase: for each {@code bucketMillis} of arrival time from
     * {@code startMillis}, the point (seconds since the start at the bucket's end, median latency ms,
     * largest latency ms) of the records that arrived in it; buckets without arrivals are left out.
     * A median that climbs through the phase means the replicator fell behind the offered rate.
     */
    static List<double[]> overTime(long[] arrivalsMillis, int[] latenciesMillis, long startMillis, long bucketMillis) {
        java.util.TreeMap<Long, List<Integer>> buckets = new java.util.TreeMap<>();
        for (int i = 0; i < Math.min(arrivalsMillis.length, latenciesMillis.length); i++) {
            long bucket = Math.max(0, arrivalsMillis[i] - startMillis) / bucketMillis;
            buckets.computeIfAbsent(bucket, b -> new ArrayList<>()).add(latenciesMillis[i]);
        }
        List<double[]> points = new ArrayList<>();
        buckets.forEach((bucket, values) -> {
            int[] sorted = values.stream().mapToInt(Integer::intValue).sorted().toArray();
            points.add(new double[] {(bucket + 1) * bucketMillis / 1000.0, percentile(sorted, 50),
                sorted[sorted.length - 1]});
        });
        return points;
    }
}
