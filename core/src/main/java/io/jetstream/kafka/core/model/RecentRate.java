package io.jetstream.kafka.core.model;

/**
 * Rate per second over the last {@code k} arrivals (calls to {@link #add}): the amount added after
 * the oldest of them, divided by the time from it to now. Its window is a number of arrivals, not a
 * time, so it adapts to how often arrivals are reported: a sender that hands over records every
 * millisecond sees a rate over the last milliseconds, one that hands over chunks every 100 ms a
 * rate over the last chunks, and chunking does not read as bursts. Without new arrivals the rate
 * decays as time passes.
 *
 * <p>Not thread-safe.
 */
public final class RecentRate {

    private final long[] times;
    private final double[] amounts;
    private int next;
    private int size;

    /** @param arrivals {@code k}, at least 2 */
    public RecentRate(int arrivals) {
        if (arrivals < 2) {
            throw new IllegalArgumentException("need at least 2 arrivals, got " + arrivals);
        }
        this.times = new long[arrivals];
        this.amounts = new double[arrivals];
    }

    public void add(double amount, long nowNanos) {
        times[next] = nowNanos;
        amounts[next] = amount;
        next = (next + 1) % times.length;
        size = Math.min(size + 1, times.length);
    }

    /** Whether {@code k} arrivals have been seen, so that {@link #perSecond} is meaningful. */
    public boolean full() {
        return size == times.length;
    }

    /** The rate per second at {@code nowNanos}, or NaN before {@code k} arrivals. */
    public double perSecond(long nowNanos) {
        if (!full()) {
            return Double.NaN;
        }
        int oldest = next; // the ring is full: the next slot to write holds the oldest arrival
        double sum = 0;
        for (int i = 0; i < amounts.length; i++) {
            if (i != oldest) {
                sum += amounts[i];
            }
        }
        double seconds = (nowNanos - times[oldest]) / 1e9;
        return seconds > 0 ? sum / seconds : Double.NaN;
    }

    /** Seconds covered by the window at {@code nowNanos}, or NaN before {@code k} arrivals. */
    public double windowSeconds(long nowNanos) {
        return full() ? (nowNanos - times[next]) / 1e9 : Double.NaN;
    }
}
