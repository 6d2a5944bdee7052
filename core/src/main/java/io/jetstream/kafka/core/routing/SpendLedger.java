package io.jetstream.kafka.core.routing;

import java.time.Duration;
import java.util.Arrays;

/**
 * Money spent, in total and over a trailing window, checked against a {@link SpendCap} before each
 * charge, so the cap is never exceeded.
 *
 * <p>The window is cut into {@code buckets} slots, and one slot more is kept: the windowed sum adds
 * the current slot and the {@code buckets} before it, every slot that overlaps the trailing window,
 * so it covers between the window and one slot more: conservative, never an under-count. Memory is
 * constant.
 *
 * <p>Invariants: {@code total() <= cap.total()} and {@code inWindow(t) <= cap.perWindow()} for
 * every {@code t} (charges are only made through {@link #tryCharge}). Not thread-safe: the
 * scheduler serialises calls.
 */
public final class SpendLedger {

    private final SpendCap cap;
    private final long slotNanos;
    private final long[] slotIds;
    private final double[] slotSpend;
    private double total;

    public SpendLedger(SpendCap cap, Duration window, int buckets) {
        if (buckets < 1 || window.toNanos() < buckets) {
            throw new IllegalArgumentException("need a window of at least " + buckets + " ns, got " + window);
        }
        this.cap = cap;
        this.slotNanos = window.toNanos() / buckets;
        this.slotIds = new long[buckets + 1];
        this.slotSpend = new double[buckets + 1];
        Arrays.fill(slotIds, Long.MIN_VALUE);
    }

    /** Whether {@code amount} can be spent at {@code nowNanos} without exceeding the cap. */
    public boolean canAfford(double amount, long nowNanos) {
        boolean withinTotal = total + amount <= cap.total();
        boolean withinWindow = inWindow(nowNanos) + amount <= cap.perWindow();
        return withinTotal && withinWindow;
    }

    /** Records {@code amount} if affordable; returns whether it was recorded. */
    public boolean tryCharge(double amount, long nowNanos) {
        if (amount <= 0) {
            return true;
        }
        if (!canAfford(amount, nowNanos)) {
            return false;
        }
        long id = Math.floorDiv(nowNanos, slotNanos);
        int slot = (int) Math.floorMod(id, (long) slotIds.length);
        if (slotIds[slot] != id) {
            slotIds[slot] = id;
            slotSpend[slot] = 0;
        }
        slotSpend[slot] += amount;
        total += amount;
        return true;
    }

    public double total() {
        return total;
    }

    /** Spend over the trailing window ending at {@code nowNanos} (slot resolution, rounded up). */
    public double inWindow(long nowNanos) {
        long newest = Math.floorDiv(nowNanos, slotNanos);
        long oldest = newest - slotIds.length + 1;
        double sum = 0;
        for (int i = 0; i < slotIds.length; i++) {
            if (slotIds[i] >= oldest && slotIds[i] <= newest) {
                sum += slotSpend[i];
            }
        }
        return sum;
    }

    public SpendCap cap() {
        return cap;
    }
}
