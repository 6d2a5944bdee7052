package io.jetstream.kafka.core.model;

import java.time.Duration;
import java.util.Objects;

/**
 * Caps, model constants, priors and hysteresis of {@link AdaptiveBatchPolicy}. Build with
 * {@link #builder()}; every field has a default suited to a WAN path of tens of milliseconds.
 *
 * @param maxBatchRecords         hard cap on records per batch
 * @param maxBatchBytes           hard cap on uncompressed bytes per batch (at most the frame limit)
 * @param minLinger               linger never below this
 * @param maxLinger               latency cap: no record waits longer than this for its batch to close
 * @param maxInFlightBatches      hard cap on batches in flight
 * @param maxInFlightBytes        memory cap on wire bytes in flight
 * @param batchOverheadBytes      wire bytes a batch adds besides its records ({@code h})
 * @param decodeCostFactor        decode cost at the destination as a fraction of the encode cost
 * @param encoderThreads          threads encoding batches in parallel at the sender
 * @param headroom                {@code eps}: keep every utilisation at or below {@code 1 - eps}
 * @param serviceVariability      {@code cs2}, squared coefficient of variation of service times
 * @param backlogDrainTime        a backlog is planned to drain within this time
 * @param minDwell                caps stay at least this long unless the sender falls behind
 * @param minGain                 a new batch size must cut the predicted latency by this fraction
 * @param recomputeInterval       the decision is recomputed at most this often
 * @param warmup                  arrivals observed before the model is trusted
 * @param initial                 caps during warm-up
 * @param priorLinkBytesPerSecond path throughput assumed until measured; optimistic by default
 *                                (1 Gbit/s): too high a prior makes the path queue, which measures
 *                                it, while too low a prior is never corrected
 * @param priorRtt                round-trip time assumed until measured
 * @param priorCompressionRatio   compression ratio assumed until measured
 * @param estimators              time constants and outlier clamping of the monitors
 */
public record AdaptiveBatchSettings(
        int maxBatchRecords,
        int maxBatchBytes,
        Duration minLinger,
        Duration maxLinger,
        int maxInFlightBatches,
        long maxInFlightBytes,
        int batchOverheadBytes,
        double decodeCostFactor,
        int encoderThreads,
        double headroom,
        double serviceVariability,
        Duration backlogDrainTime,
        Duration minDwell,
        double minGain,
        Duration recomputeInterval,
        Duration warmup,
        BatchDecision initial,
        double priorLinkBytesPerSecond,
        Duration priorRtt,
        double priorCompressionRatio,
        EstimatorSettings estimators) {

    public AdaptiveBatchSettings {
        requirePositive("maxBatchRecords", maxBatchRecords);
        requirePositive("maxBatchBytes", maxBatchBytes);
        requirePositive("maxInFlightBatches", maxInFlightBatches);
        requirePositive("maxInFlightBytes", maxInFlightBytes);
        requirePositive("encoderThreads", encoderThreads);
        requirePositive("priorLinkBytesPerSecond", priorLinkBytesPerSecond);
        requirePositive("priorCompressionRatio", priorCompressionRatio);
        if (batchOverheadBytes < 0 || decodeCostFactor < 0 || serviceVariability < 0 || minGain < 0) {
            throw new IllegalArgumentException("batchOverheadBytes, decodeCostFactor, serviceVariability and minGain"
                    + " must not be negative");
        }
        if (!(headroom >= 0 && headroom < 1)) {
            throw new IllegalArgumentException("headroom must be in [0, 1), got " + headroom);
        }
        for (Duration d : new Duration[] {minLinger, maxLinger, backlogDrainTime, minDwell, recomputeInterval, warmup,
            priorRtt}) {
            Objects.requireNonNull(d, "duration");
            if (d.isNegative()) {
                throw new IllegalArgumentException("durations must not be negative, got " + d);
            }
        }
        if (minLinger.compareTo(maxLinger) > 0) {
            throw new IllegalArgumentException("minLinger " + minLinger + " exceeds maxLinger " + maxLinger);
        }
        if (backlogDrainTime.isZero()) {
            throw new IllegalArgumentException("backlogDrainTime must be positive");
        }
        Objects.requireNonNull(initial, "initial");
        Objects.requireNonNull(estimators, "estimators");
    }

    private static void requirePositive(String name, double value) {
        if (!(value > 0)) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    public static AdaptiveBatchSettings defaults() {
        return builder().build();
    }

    /** Mutable builder; {@link #build()} validates. */
    public static final class Builder {
        private int maxBatchRecords = 100_000;
        private int maxBatchBytes = 1 << 20;
        private Duration minLinger = Duration.ZERO;
        private Duration maxLinger = Duration.ofMillis(100);
        private int maxInFlightBatches = 256;
        private long maxInFlightBytes = 16L << 20;
        private int batchOverheadBytes = 64;
        private double decodeCostFactor = 0.5;
        private int encoderThreads = 1;
        private double headroom = 0.2;
        private double serviceVariability = 0.25;
        private Duration backlogDrainTime = Duration.ofMillis(50);
        private Duration minDwell = Duration.ofSeconds(1);
        private double minGain = 0.05;
        private Duration recomputeInterval = Duration.ofMillis(100);
        private Duration warmup = Duration.ofMillis(500);
        private BatchDecision initial;
        private double priorLinkBytesPerSecond = 125e6;
        private Duration priorRtt = Duration.ofMillis(50);
        private double priorCompressionRatio = 1.0;
        private EstimatorSettings estimators = EstimatorSettings.defaults();

        private Builder() {
        }

        public Builder maxBatchRecords(int v) { maxBatchRecords = v; return this; }
        public Builder maxBatchBytes(int v) { maxBatchBytes = v; return this; }
        public Builder minLinger(Duration v) { minLinger = v; return this; }
        public Builder maxLinger(Duration v) { maxLinger = v; return this; }
        public Builder maxInFlightBatches(int v) { maxInFlightBatches = v; return this; }
        public Builder maxInFlightBytes(long v) { maxInFlightBytes = v; return this; }
        public Builder batchOverheadBytes(int v) { batchOverheadBytes = v; return this; }
        public Builder decodeCostFactor(double v) { decodeCostFactor = v; return this; }
        public Builder encoderThreads(int v) { encoderThreads = v; return this; }
        public Builder headroom(double v) { headroom = v; return this; }
        public Builder serviceVariability(double v) { serviceVariability = v; return this; }
        public Builder backlogDrainTime(Duration v) { backlogDrainTime = v; return this; }
        public Builder minDwell(Duration v) { minDwell = v; return this; }
        public Builder minGain(double v) { minGain = v; return this; }
        public Builder recomputeInterval(Duration v) { recomputeInterval = v; return this; }
        public Builder warmup(Duration v) { warmup = v; return this; }
        public Builder initial(BatchDecision v) { initial = v; return this; }
        public Builder priorLinkBytesPerSecond(double v) { priorLinkBytesPerSecond = v; return this; }
        public Builder priorRtt(Duration v) { priorRtt = v; return this; }
        public Builder priorCompressionRatio(double v) { priorCompressionRatio = v; return this; }
        public Builder estimators(EstimatorSettings v) { estimators = v; return this; }

        public AdaptiveBatchSettings build() {
            BatchDecision warmupCaps = initial != null ? initial : BatchDecision.of(Math.min(500, maxBatchRecords),
                    Math.min(256 << 10, maxBatchBytes), Duration.ofMillis(5).compareTo(maxLinger) < 0
                            ? Duration.ofMillis(5) : maxLinger,
                    Math.min(16, maxInFlightBatches), maxInFlightBytes, DecisionReason.WARMUP);
            return new AdaptiveBatchSettings(maxBatchRecords, maxBatchBytes, minLinger, maxLinger, maxInFlightBatches,
                    maxInFlightBytes, batchOverheadBytes, decodeCostFactor, encoderThreads, headroom,
                    serviceVariability, backlogDrainTime, minDwell, minGain, recomputeInterval, warmup, warmupCaps,
                    priorLinkBytesPerSecond, priorRtt, priorCompressionRatio, estimators);
        }
    }
}
