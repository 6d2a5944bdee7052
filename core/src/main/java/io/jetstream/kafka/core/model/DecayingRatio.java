package io.jetstream.kafka.core.model;

import java.time.Duration;

/**
 * Ratio of two accumulated quantities, {@code sum(num) / sum(den)}, with samples weighted by
 * {@code exp(-age/tau)}: the mean record size (bytes over records), the compression ratio (wire
 * bytes over raw bytes), a route's service time per byte (nanos over bytes), or, with a denominator
 * of 1, a time-decayed mean (smoothed round-trip time).
 *
 * <p>Robust to outliers: once {@code warmupSamples} samples are in, a sample whose own ratio lies
 * beyond {@code clampFactor} times the current estimate (or below it divided by the factor) is
 * clamped to that bound before it is added, so one wild sample moves the estimate by a bounded
 * amount, while a real level shift still gets through geometrically within a few {@code tau}.
 * Decay is by elapsed time, not by sample count, so irregular sampling does not bias the estimate.
 *
 * <p>Invariants: both sums are never negative; the estimate exists once a sample with a positive
 * denominator was added. Not thread-safe.
 */
public final class DecayingRatio {

    private final double tauNanos;
    private final double clampFactor;
    private final int warmupSamples;
    private boolean started;
    private long lastNanos;
    private double numerator;
    private double denominator;
    private long samples;

    /**
     * @param timeConstant  {@code tau}: a sample's weight falls to 1/e after this long
     * @param clampFactor   at least 1; 1 or {@link Double#POSITIVE_INFINITY} disables clamping
     * @param warmupSamples samples accepted unclamped before clamping starts
     */
    public DecayingRatio(Duration timeConstant, double clampFactor, int warmupSamples) {
        if (timeConstant.isNegative() || timeConstant.isZero()) {
            throw new IllegalArgumentException("time constant must be positive, got " + timeConstant);
        }
        if (!(clampFactor >= 1.0)) {
            throw new IllegalArgumentException("clamp factor must be >= 1, got " + clampFactor);
        }
        this.tauNanos = timeConstant.toNanos();
        this.clampFactor = clampFactor;
        this.warmupSamples = Math.max(0, warmupSamples);
    }

    /** Adds one sample; samples with a non-positive denominator or non-finite values are ignored. */
    public void add(double num, double den, long nowNanos) {
        boolean usable = den > 0 && num >= 0 && Double.isFinite(num) && Double.isFinite(den);
        if (!usable) {
            return;
        }
        if (!started) {
            started = true;
            lastNanos = nowNanos;
        }
        if (nowNanos > lastNanos) {
            double decay = Math.exp(-(nowNanos - lastNanos) / tauNanos);
            numerator *= decay;
            denominator *= decay;
            lastNanos = nowNanos;
        }
        double current = value();
        boolean clamping = samples >= warmupSamples && clampFactor > 1.0 && current > 0 && Double.isFinite(clampFactor);
        double sampleRatio = num / den;
        if (clamping) {
            sampleRatio = Math.min(Math.max(sampleRatio, current / clampFactor), current * clampFactor);
        }
        numerator += sampleRatio * den;
        denominator += den;
        samples++;
    }

    /** Forgets every sample, as if new. */
    public void reset() {
        numerator = 0;
        denominator = 0;
        samples = 0;
        started = false;
    }

    /** The current ratio, or {@link Double#NaN} before the first usable sample. */
    public double value() {
        return denominator > 0 ? numerator / denominator : Double.NaN;
    }

    public boolean hasValue() {
        return denominator > 0;
    }

    /** Usable samples added so far (not decayed). */
    public long samples() {
        return samples;
    }
}
