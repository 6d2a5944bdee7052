package io.jetstream.kafka.core.model;

import java.time.Duration;

/**
 * Least-squares fit of {@code y = intercept + slope * x} over samples weighted by
 * {@code exp(-age/tau)}: the encoding cost of a batch, {@code e(b) = e0 + e1 * bytes}, from timed
 * batches.
 *
 * <p>Both coefficients are kept non-negative (a cost cannot shrink with size nor be negative at
 * zero size): if the free fit gives a negative intercept the line is refitted through the origin,
 * and a negative slope becomes a flat line at the weighted mean. When the samples' {@code x} hardly
 * vary (a fixed batch size), the intercept cannot be told from the slope; the fit then goes through
 * the origin (all cost proportional to size), which is exact at the sampled size.
 *
 * <p>Outliers (a GC pause during one encode): after {@code warmupSamples}, a sample's {@code y} is
 * clamped to within {@code clampFactor} of the current prediction at its {@code x}.
 *
 * <p>Not thread-safe.
 */
public final class LinearFit {

    /** Relative variance of x below which the slope is not identifiable. */
    private static final double MIN_RELATIVE_VARIANCE = 1e-4;

    private final double tauNanos;
    private final double clampFactor;
    private final int warmupSamples;
    private boolean started;
    private long lastNanos;
    private double sw;
    private double sx;
    private double sy;
    private double sxx;
    private double sxy;
    private double syy;
    private long samples;
    private double intercept = Double.NaN;
    private double slope = Double.NaN;
    private boolean slopeIdentified;

    public LinearFit(Duration timeConstant, double clampFactor, int warmupSamples) {
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

    /** Adds the sample {@code (x, y)}; samples with negative or non-finite values are ignored. */
    public void add(double x, double y, long nowNanos) {
        boolean usable = x >= 0 && y >= 0 && Double.isFinite(x) && Double.isFinite(y);
        if (!usable) {
            return;
        }
        if (!started) {
            started = true;
            lastNanos = nowNanos;
        }
        if (nowNanos > lastNanos) {
            double decay = Math.exp(-(nowNanos - lastNanos) / tauNanos);
            sw *= decay;
            sx *= decay;
            sy *= decay;
            sxx *= decay;
            sxy *= decay;
            syy *= decay;
            lastNanos = nowNanos;
        }
        boolean clamping = samples >= warmupSamples && hasFit() && Double.isFinite(clampFactor);
        if (clamping) {
            double predicted = predict(x);
            if (predicted > 0) {
                y = Math.min(Math.max(y, predicted / clampFactor), predicted * clampFactor);
            }
        }
        sw += 1;
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        syy += y * y;
        samples++;
        refit();
    }

    private void refit() {
        double meanX = sx / sw;
        double meanY = sy / sw;
        double varianceX = sxx / sw - meanX * meanX;
        boolean slopeIdentifiable = varianceX > MIN_RELATIVE_VARIANCE * meanX * meanX && varianceX > 0;
        double b = slopeIdentifiable ? (sxy / sw - meanX * meanY) / varianceX : Double.NaN;
        double a = meanY - b * meanX;
        boolean negativeSlope = slopeIdentifiable && b < 0;
        boolean freeFitValid = slopeIdentifiable && a >= 0 && b >= 0;
        slopeIdentified = slopeIdentifiable && b >= 0;
        if (freeFitValid) {
            intercept = a;
            slope = b;
        } else if (negativeSlope || sxx == 0) {
            intercept = meanY;
            slope = 0;
        } else {
            // not identifiable, or negative intercept: all cost proportional to x
            intercept = 0;
            slope = sxy / sxx;
        }
    }

    /** Predicted {@code y} at {@code x}, or {@link Double#NaN} before the first sample. */
    public double predict(double x) {
        return intercept + slope * x;
    }

    public double intercept() {
        return intercept;
    }

    public double slope() {
        return slope;
    }

    /**
     * Whether the samples' {@code x} varied enough to tell the slope from the intercept and the
     * slope came out non-negative (a negative intercept refitted through the origin still counts).
     */
    public boolean slopeIdentified() {
        return slopeIdentified;
    }

    /** Coefficient of variation of the weighted {@code x}: how far apart the sampled sizes are. */
    public double relativeSpreadOfX() {
        if (sw <= 0) {
            return Double.NaN;
        }
        double meanX = sx / sw;
        double varianceX = Math.max(0, sxx / sw - meanX * meanX);
        return meanX > 0 ? Math.sqrt(varianceX) / meanX : Double.NaN;
    }

    /**
     * Standard error of the least-squares slope, {@code sqrt(residual variance / (n var(x)))} with
     * the decayed weight as {@code n}; NaN while the slope is not identifiable. Tells a slope
     * measured from a noisy intercept (batches waiting for a commit) from a real one.
     */
    public double slopeStandardError() {
        if (!slopeIdentified || sw <= 1) {
            return Double.NaN;
        }
        double meanX = sx / sw;
        double meanY = sy / sw;
        double varianceX = sxx / sw - meanX * meanX;
        double covariance = sxy / sw - meanX * meanY;
        double varianceY = syy / sw - meanY * meanY;
        double residual = Math.max(0, varianceY - covariance * covariance / varianceX);
        return Math.sqrt(residual / (sw * varianceX));
    }

    /** Weighted mean of the sampled {@code x}, or NaN before the first sample. */
    public double meanX() {
        return sw > 0 ? sx / sw : Double.NaN;
    }

    /** Weighted mean of the sampled (clamped) {@code y}, or NaN before the first sample. */
    public double meanY() {
        return sw > 0 ? sy / sw : Double.NaN;
    }

    public boolean hasFit() {
        return samples > 0;
    }

    public long samples() {
        return samples;
    }
}
