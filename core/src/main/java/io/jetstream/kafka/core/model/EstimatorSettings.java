package io.jetstream.kafka.core.model;

import java.time.Duration;
import java.util.Objects;

/**
 * How fast the estimators of {@link StreamMonitor} and {@link LinkMonitor} forget, and how hard
 * they resist outliers.
 *
 * @param rateTimeConstant   time constant of the arrival rate (short: the rate is what changes)
 * @param sampleTimeConstant time constant of record size, compression ratio and encode cost
 * @param linkTimeConstant   time constant of a link's throughput and smoothed round-trip time
 * @param minRttWindow       window of the base round-trip time (minimum of recent samples)
 * @param clampFactor        a sample beyond this factor of the estimate is clamped to it (>= 1)
 * @param warmupSamples      samples taken unclamped, and needed before an estimate is trusted
 */
public record EstimatorSettings(
        Duration rateTimeConstant,
        Duration sampleTimeConstant,
        Duration linkTimeConstant,
        Duration minRttWindow,
        double clampFactor,
        int warmupSamples) {

    public EstimatorSettings {
        Objects.requireNonNull(rateTimeConstant, "rateTimeConstant");
        Objects.requireNonNull(sampleTimeConstant, "sampleTimeConstant");
        Objects.requireNonNull(linkTimeConstant, "linkTimeConstant");
        Objects.requireNonNull(minRttWindow, "minRttWindow");
        if (!(clampFactor >= 1.0)) {
            throw new IllegalArgumentException("clampFactor must be >= 1, got " + clampFactor);
        }
        if (warmupSamples < 1) {
            throw new IllegalArgumentException("warmupSamples must be >= 1, got " + warmupSamples);
        }
    }

    /** 1 s for the rate, 5 s for sizes and costs, 3 s for links, 10 s of RTT minimum, clamp 4x after 3 samples. */
    public static EstimatorSettings defaults() {
        return new EstimatorSettings(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(3),
                Duration.ofSeconds(10), 4.0, 3);
    }
}
