package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.BatchFrame;

/**
 * A batch in the sender's window ({@link SendWindow}): its frame, kept for re-sends, plus what
 * the batching policy and the re-send logic need. Guarded by the sender's lock.
 */
final class PendingBatch {

    /** Signed once it first leaves alone ({@link SignedFrames#signed}); until then maybe without a MAC. */
    BatchFrame frame;
    final long oldestArrivalNanos;
    final long wireBytes;
    final int records;
    /** The bytes the batch adds to the body of a BATCHES frame ({@link SignedFrames#sectionBytes}). */
    final long sectionBytes;
    /** The relay of the last attempt, or null before the first. */
    Relay via;
    boolean onWire;
    /** Sealed and never sent: waits in {@link SendWindow}'s queue for the in-flight window. */
    boolean queued;
    /**
     * The id of the BATCHES frame the batch was last sent in ({@link FramesInFlight}), or 0 when it
     * was last sent alone (or never).
     */
    long frameId;
    /**
     * Whether the batch goes in a BATCH frame of its own, never with others: a skip marker, or a
     * batch whose BATCHES frame was refused for good (its own answer then tells whether it is the one).
     */
    boolean alone;
    /** The destination's final refusal, while the batch waits to be skipped; else null. */
    AckFrame refusal;
    /** For a skip marker: what the skipped batch was and why it was refused; else null. */
    String skips;

    PendingBatch(BatchFrame frame, long oldestArrivalNanos, int records) {
        this.frame = frame;
        this.oldestArrivalNanos = oldestArrivalNanos;
        this.wireBytes = SignedFrames.wireBytes(frame);
        this.records = records;
        this.sectionBytes = SignedFrames.sectionBytes(frame);
    }
}
