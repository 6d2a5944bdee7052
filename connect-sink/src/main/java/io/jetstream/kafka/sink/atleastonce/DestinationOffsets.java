package io.jetstream.kafka.sink.atleastonce;

import io.jetstream.kafka.sink.progress.SourceOffsets;

/**
 * Where the records of one origin partition land in their destination partition, in at-least-once
 * mode, so that a task taking a partition over can count the records its predecessor wrote after
 * the last stored progress: those are written again, i.e. duplicates at the destination.
 *
 * <p>How: when a task instance takes a partition over it reads the destination partition's end
 * offset {@code E}; as the only writer of that partition, its {@code s}-th record lands at
 * {@code E + s}. Each record's stored progress carries that predicted destination offset next to
 * its origin offset. The next instance reads the stored progress {@code (L, D_L)} and the end
 * offset {@code E'}: the predecessor wrote {@code E' - 1 - D_L} records after {@code L}, and the
 * sender re-sends exactly those, because none of them was acknowledged.
 *
 * <p>Self-correcting: every write reports its real offset; when it differs from the prediction
 * (a record filtered by a transformation, another writer, a producer retry that wrote twice) the
 * base moves so the following predictions are right again. Not exact when another producer writes
 * the destination partition, or when a crash follows such a drift before the correction reached a
 * stored record.
 *
 * <p>Threads: {@link #predictNext} on the task thread; {@link #onWritten}/{@link #onSkipped} on the
 * producer's thread, in the order the records were created (Connect's producer keeps per-partition
 * order).
 */
final class DestinationOffsets {

    /** No prediction: the destination end offset could not be read at takeover. */
    static final long UNKNOWN = SourceOffsets.UNKNOWN_DESTINATION_OFFSET;

    private final boolean known;
    /** Destination offset of the record created first, as corrected by writes; may go below zero. */
    private volatile long base;
    private long created;
    private long completed;
    private volatile long corrections;

    private DestinationOffsets(boolean known, long base) {
        this.known = known;
        this.base = base;
    }

    /** A cursor for a partition whose destination end offset could not be read: predicts nothing. */
    static DestinationOffsets unknown() {
        return new DestinationOffsets(false, 0);
    }

    /** A cursor starting at the destination partition's end offset at takeover. */
    static DestinationOffsets startingAt(long endOffset) {
        if (endOffset < 0) {
            throw new IllegalArgumentException("end offset must be >= 0: " + endOffset);
        }
        return new DestinationOffsets(true, endOffset);
    }

    /**
     * Records the predecessor wrote after its last stored progress: {@code endOffset - 1 - storedDestination},
     * zero when the stored progress has no destination offset or the log is shorter than predicted.
     */
    static long rewrittenAfter(long storedDestination, long endOffset) {
        if (storedDestination < 0 || endOffset < 0) {
            return 0;
        }
        return Math.max(0, endOffset - 1 - storedDestination);
    }

    /** The destination offset the next created record will get, or {@link #UNKNOWN}. */
    long predictNext() {
        if (!known) {
            return UNKNOWN;
        }
        return base + created++;
    }

    /** A created record was written at {@code actualOffset}. */
    void onWritten(long actualOffset) {
        long s = completed++;
        if (known && base + s != actualOffset) {
            base = actualOffset - s;
            corrections++;
        }
    }

    /** A created record was not written (dropped by a transformation or a converter error). */
    void onSkipped() {
        completed++; // its prediction is taken by nobody: the next write corrects the base
    }

    /** How often a prediction turned out wrong and the base moved. */
    long corrections() {
        return corrections;
    }
}
