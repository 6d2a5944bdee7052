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
 * @param togetherMaxRecords records that arrive together (one delivery of the consumer) may fill a
 *                           batch up to this many, at least {@code maxRecords}: they waited for
 *                           each other already, so a larger batch costs them no linger
 * @param togetherMaxBytes   ... and up to this many uncompressed bytes, at least {@code maxBytes}
 */
public record BatchDecision(
        int maxRecords,
        int maxBytes,
        Duration linger,
        int maxInFlightBatches,
        long maxInFlightBytes,
        DecisionReason reason,
        Optional<DecisionExplanation> explanation,
        int togetherMaxRecords,
        int togetherMaxBytes) {

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
        if (togetherMaxRecords < maxRecords || togetherMaxBytes < maxBytes) {
            throw new IllegalArgumentException("caps for records arriving together (" + togetherMaxRecords
                    + " records, " + togetherMaxBytes + " bytes) must not be below the caps (" + maxRecords
                    + " records, " + maxBytes + " bytes)");
        }
    }

    /** Caps that treat records arriving together like any others. */
    public BatchDecision(int maxRecords, int maxBytes, Duration linger, int maxInFlightBatches, long maxInFlightBytes,
                         DecisionReason reason, Optional<DecisionExplanation> explanation) {
        this(maxRecords, maxBytes, linger, maxInFlightBatches, maxInFlightBytes, reason, explanation, maxRecords,
                maxBytes);
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

    /**
     * Whether another batch of {@code wireBytes} may be sent with this much already in flight. An
     * empty window admits any batch, so a batch larger than the byte budget cannot deadlock. Caps
     * that let records arriving together fill larger batches ({@link #togetherMaxBytes} above
     * {@link #maxBytes}: the adaptive policy's) hold at least two batches of the size being sent:
     * their byte window is sized for batches of {@code maxRecords}, and a gathered batch larger than
     * half of it would otherwise wait for the one before it to be acknowledged, a round trip per
     * batch while a burst drains.
     */
    public boolean admits(int inFlightBatches, long inFlightBytes, long wireBytes) {
        boolean windowOpen = inFlightBatches < maxInFlightBatches;
        long byteWindow = gathers() ? Math.max(maxInFlightBytes, 2 * wireBytes) : maxInFlightBytes;
        boolean bytesFit = inFlightBatches == 0 || inFlightBytes + wireBytes <= byteWindow;
        return windowOpen && bytesFit;
    }

    /** Whether records arriving together may fill batches beyond {@link #maxRecords} or {@link #maxBytes}. */
    public boolean gathers() {
        return togetherMaxRecords > maxRecords || togetherMaxBytes > maxBytes;
    }

    /** Same caps (explanation, reason and the caps for records arriving together aside). */
    public boolean sameCaps(BatchDecision other) {
        return other != null && maxRecords == other.maxRecords && maxBytes == other.maxBytes
                && linger.equals(other.linger) && maxInFlightBatches == other.maxInFlightBatches
                && maxInFlightBytes == other.maxInFlightBytes;
    }

    /**
     * The record cap for a delivery of {@code records} records arriving together: as many of them as
     * the caps for records arriving together allow, never below {@link #maxRecords}.
     */
    public int maxRecordsFor(int records) {
        return Math.max(maxRecords, Math.min(records, togetherMaxRecords));
    }

    /** The byte cap for a delivery of {@code bytes} uncompressed bytes arriving together; see {@link #maxRecordsFor}. */
    public int maxBytesFor(long bytes) {
        return (int) Math.max(maxBytes, Math.min(bytes, togetherMaxBytes));
    }
}
