package io.jetstream.kafka.core.model;

import java.time.Duration;
import java.util.Objects;

/**
 * The caps a {@link BatchPolicy} gives the sender.
 *
 * @param maxRecords         a batch closes when it holds this many records
 * @param maxBytes           ... or this many uncompressed bytes (never above the frame limit)
 * @param linger             ... or when its oldest record has waited this long
 * @param maxInFlightBatches batches sent and not yet acknowledged, at most
 * @param maxInFlightBytes   wire bytes sent and not yet acknowledged, at most (memory bound)
 */
public record BatchDecision(
        int maxRecords,
        int maxBytes,
        Duration linger,
        int maxInFlightBatches,
        long maxInFlightBytes) {

    public BatchDecision {
        Objects.requireNonNull(linger, "linger");
        if (maxRecords < 1 || maxBytes < 1 || maxInFlightBatches < 1 || maxInFlightBytes < 1) {
            throw new IllegalArgumentException("caps must be positive: " + maxRecords + " records, " + maxBytes
                    + " bytes, " + maxInFlightBatches + " batches and " + maxInFlightBytes + " bytes in flight");
        }
        if (linger.isNegative()) {
            throw new IllegalArgumentException("linger must not be negative, got " + linger);
        }
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
     * empty window admits any batch, so a batch larger than the byte budget cannot deadlock.
     */
    public boolean admits(int inFlightBatches, long inFlightBytes, long wireBytes) {
        boolean windowOpen = inFlightBatches < maxInFlightBatches;
        boolean bytesFit = inFlightBatches == 0 || inFlightBytes + wireBytes <= maxInFlightBytes;
        return windowOpen && bytesFit;
    }
}
