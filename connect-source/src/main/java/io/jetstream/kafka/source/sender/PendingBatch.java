package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.BatchFrame;

/**
 * A batch in the sender's window ({@link SendWindow}): its signed frame, kept for re-sends, plus what
 * the batching policy and the re-send logic need. Guarded by the sender's lock.
 */
final class PendingBatch {

    final BatchFrame frame;
    final long oldestArrivalNanos;
    final long wireBytes;
    final int records;
    /** The relay of the last attempt, or null before the first. */
    Relay via;
    boolean onWire;
    /** Sealed and never sent: waits in {@link SendWindow}'s queue for the in-flight window. */
    boolean queued;
    /** The destination's final refusal, while the batch waits to be skipped; else null. */
    AckFrame refusal;
    /** For a skip marker: what the skipped batch was and why it was refused; else null. */
    String skips;

    PendingBatch(BatchFrame frame, long oldestArrivalNanos, int records) {
        this.frame = frame;
        this.oldestArrivalNanos = oldestArrivalNanos;
        this.wireBytes = SignedFrames.wireBytes(frame);
        this.records = records;
    }
}
