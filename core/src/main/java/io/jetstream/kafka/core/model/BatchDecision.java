package io.jetstream.kafka.core.model;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The caps a {@link BatchPolicy} gives the sender, with the reasoning behind them.
 *
 * @param maxRecords         a batch closes when it holds this many records
 * @param maxBytes           ... or this many uncompressed bytes (never above the frame limit)
 * @param linger             ... or when its oldest record has waited this long
 * @param maxInFlightBatches batches sent and not yet acknowledged, at most
 * @param maxInFlightBytes   wire bytes sent and not yet acknowledged, at most (memory bound)
 * @param reason             why these caps
 * @param explanation        the measured inputs and predicted latency (empty for fixed caps and warm-up)
 */
public record BatchDecision(
        int maxRecords,
        int maxBytes,
        Duration linger,
        int maxInFlightBatches,
        long maxInFlightBytes,
        DecisionReason reason,
        Optional<DecisionExplanation> explanation) {

    public BatchDecision {
        Objects.requireNonNull(linger, "linger");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(explanation, "explanation");
        if (maxRecords < 1 || maxBytes < 1 || maxInFlightBatches < 1 || maxInFlightBytes < 1) {
            throw new IllegalArgumentException("caps must be positive: " + maxRecords + " records, " + maxBytes
                    + " bytes, " + maxInFlightBatches + " batches and " + maxInFlightBytes + " bytes in flight");
        }
        if (linger.isNegative()) {
            throw new IllegalArgumentException("linger must not be negative, got " + linger);
        }
    }

    /** Caps without an explanation, e.g. from configuration. */
    public static BatchDecision of(int maxRecords, int maxBytes, Duration linger, int maxInFlightBatches,
                                   long maxInFlightBytes, DecisionReason reason) {
        return new BatchDecision(maxRecords, maxBytes, linger, maxInFlightBatches, maxInFlightBytes, reason,
                Optional.empty());
    }

    /**
     * Whether an open batch of {@code records} records and {@code bytes} uncompressed bytes, whose
     * oldest record arrived at {@code oldestArrivalNanos}, must close at {@code nowNanos}.
     */
    public boolean closes(int records, long bytes, long oldestArrivalNanos, long nowNanos) {
        boolean full = records >= maxRecords || bytes >= maxBytes;
        boolean waitedLongEnough = records > 0 && nowNanos - oldestArrivalNanos >= linger.toNanos();
        return full || waitedLongEnough;
    }

    /** Whether another batch of {@code wireBytes} may be sent with this much already in flight. */
    public boolean admits(int inFlightBatches, long inFlightBytes, long wireBytes) {
        boolean windowOpen = inFlightBatches < maxInFlightBatches;
        // an empty window admits any batch, so a batch larger than the byte budget cannot deadlock
        boolean bytesFit = inFlightBatches == 0 || inFlightBytes + wireBytes <= maxInFlightBytes;
        return windowOpen && bytesFit;
    }

    /** Same caps (explanation and reason aside). */
    public boolean sameCaps(BatchDecision other) {
        return other != null && maxRecords == other.maxRecords && maxBytes == other.maxBytes
                && linger.equals(other.linger) && maxInFlightBatches == other.maxInFlightBatches
                && maxInFlightBytes == other.maxInFlightBytes;
    }
}
