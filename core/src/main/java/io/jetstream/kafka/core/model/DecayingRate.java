package io.jetstream.kafka.core.model;

import java.time.Duration;

/**
 * Rate per second of a counted quantity (records, bytes), averaged with exponentially decaying
 * weights in time.
 *
 * <p>The estimate at time {@code t} is {@code S(t) / W(t)}, where {@code S} is the sum of the
 * amounts added, each weighted by {@code exp(-(t - t_i)/tau)}, and {@code W} is the integral of the
 * same weight over the time observed since the first sample, {@code tau * (1 - exp(-T/tau))}.
 * Dividing by {@code W} instead of {@code tau} makes the estimate unbiased while less than a few
 * {@code tau} have been observed, and makes irregular sampling harmless: the weight depends on when
 * amounts arrived, not on how often {@link #add} is called. Without new samples the rate decays
 * towards zero, as it should when arrivals stop.
 *
 * <p>Invariants: the decayed sum is never negative; time never moves backwards inside the
 * estimator (an older {@code nowNanos} is treated as the latest one seen). Not thread-safe.
 */
public final class DecayingRate {

    /** {@code W} is floored so the first samples cannot produce an unbounded rate. */
    private static final double MIN_WINDOW_FRACTION = 0.05;
    /** A restarted estimate behaves as if this many time constants had been observed. */
    private static final double RESTART_HISTORY_TIME_CONSTANTS = 5;

    private final double tauNanos;
    private boolean started;
    private long startNanos;
    private long lastNanos;
    private double decayedSum;

    /** @param timeConstant {@code tau}: a sample's weight falls to 1/e after this long */
    public DecayingRate(Duration timeConstant) {
        if (timeConstant.isNegative() || timeConstant.isZero()) {
            throw new IllegalArgumentException("time constant must be positive, got " + timeConstant);
        }
        this.tauNanos = timeConstant.toNanos();
    }

    /** Adds {@code amount} (not negative) observed at {@code nowNanos}. */
    public void add(double amount, long nowNanos) {
        add(amount, nowNanos, nowNanos);
    }

    /**
     * Adds {@code amount} (not negative) observed at {@code nowNanos} that accrued since
     * {@code sinceNanos}: bytes delivered at an acknowledgement were under way since their batch was
     * sent. If this is the first sample, observation starts there, so the first sample reads as
     * {@code amount} over that span rather than over the floor of the window (a single 1 MiB batch
     * acknowledged 0.7 s after it was sent reads 2 MiB/s, not 20).
     */
    public void add(double amount, long nowNanos, long sinceNanos) {
        if (amount < 0 || !Double.isFinite(amount)) {
            throw new IllegalArgumentException("amount must be finite and not negative, got " + amount);
        }
        if (!started) {
            started = true;
            startNanos = Math.min(sinceNanos, nowNanos);
            lastNanos = nowNanos;
        }
        decayTo(nowNanos);
        decayedSum += amount;
    }

    /**
     * The amounts added, each weighted by {@code exp(-age/tau)}: at a steady rate about
     * {@code rate * tau}, and never more than was added, however recently (unlike
     * {@link #perSecond}, which reads a first sample over a short window). 0 before the first sample.
     */
    public double recentAmount(long nowNanos) {
        if (!started) {
            return 0.0;
        }
        long now = Math.max(nowNanos, lastNanos);
        return decayedSum * Math.exp(-(now - lastNanos) / tauNanos);
    }

    /** The rate per second at {@code nowNanos}; 0 before the first sample. */
    public double perSecond(long nowNanos) {
        if (!started) {
            return 0.0;
        }
        long now = Math.max(nowNanos, lastNanos);
        double sum = decayedSum * Math.exp(-(now - lastNanos) / tauNanos);
        double observed = now - startNanos;
        double window = Math.max(tauNanos * -Math.expm1(-observed / tauNanos), tauNanos * MIN_WINDOW_FRACTION);
        return sum / window * 1e9;
    }

    /**
     * Forgets the past and continues as if {@code perSecond} had been observed for many time
     * constants up to {@code nowNanos}: used when a step change is detected elsewhere, so the
     * estimate does not lag behind it for a time constant.
     */
    public void restart(double perSecond, long nowNanos) {
        started = true;
        startNanos = nowNanos - (long) (RESTART_HISTORY_TIME_CONSTANTS * tauNanos);
        lastNanos = nowNanos;
        double window = tauNanos * -Math.expm1(-RESTART_HISTORY_TIME_CONSTANTS);
        decayedSum = Math.max(0, perSecond) * window / 1e9;
    }

    private void decayTo(long nowNanos) {
        if (nowNanos > lastNanos) {
            decayedSum *= Math.exp(-(nowNanos - lastNanos) / tauNanos);
            lastNanos = nowNanos;
        }
    }
}
