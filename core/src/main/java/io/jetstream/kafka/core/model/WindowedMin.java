package io.jetstream.kafka.core.model;

import java.time.Duration;
import java.util.Arrays;

/**
 * Minimum of the samples seen in a sliding time window, e.g. the base round-trip time of a route
 * (the smallest RTT recently seen, free of queueing).
 *
 * <p>The window is cut into {@code buckets} slots, each keeping the minimum of its slot of time, so
 * memory is constant however many samples arrive. A sample stays in the minimum for between
 * {@code (buckets-1)/buckets} and the whole of the window. The slots form a ring indexed by
 * {@code floorDiv(t, slotNanos)}, so negative {@link System#nanoTime()} values work.
 *
 * <p>Not thread-safe.
 */
public final class WindowedMin {

    private final long slotNanos;
    private final long[] slotIds;
    private final double[] minima;

    public WindowedMin(Duration window, int buckets) {
        if (buckets < 2) {
            throw new IllegalArgumentException("need at least 2 buckets, got " + buckets);
        }
        if (window.toNanos() < buckets) {
            throw new IllegalArgumentException("window too short: " + window);
        }
        this.slotNanos = window.toNanos() / buckets;
        this.slotIds = new long[buckets];
        this.minima = new double[buckets];
        Arrays.fill(slotIds, Long.MIN_VALUE);
    }

    public void add(double value, long nowNanos) {
        if (!Double.isFinite(value)) {
            return;
        }
        long id = Math.floorDiv(nowNanos, slotNanos);
        int slot = (int) Math.floorMod(id, (long) slotIds.length);
        if (slotIds[slot] != id) {
            slotIds[slot] = id;
            minima[slot] = value;
        } else if (value < minima[slot]) {
            minima[slot] = value;
        }
    }

    /** The minimum over the window ending at {@code nowNanos}, or {@link Double#NaN} if it is empty. */
    public double min(long nowNanos) {
        long newest = Math.floorDiv(nowNanos, slotNanos);
        long oldest = newest - slotIds.length + 1;
        double min = Double.NaN;
        for (int i = 0; i < slotIds.length; i++) {
            boolean inWindow = slotIds[i] >= oldest && slotIds[i] <= newest;
            if (inWindow && (Double.isNaN(min) || minima[i] < min)) {
                min = minima[i];
            }
        }
        return min;
    }
}
