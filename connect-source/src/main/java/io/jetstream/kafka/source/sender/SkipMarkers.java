package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.core.batch.BatchDecoder;
import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.delivery.InFlightWindow;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchHeader;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Batches the destination refused for good, and what takes their place.
 *
 * <p>A refused batch stops the task ({@link #fatalError()}), unless refused batches are skipped
 * ({@link SenderSettings#skipRefused()}, the connector's {@code errors.tolerance=all}). Then the
 * batch waits in its place in the window, not sent again, until the task has taken it
 * ({@link #next()}, decoded from the frame kept for re-sends: no record is kept twice) and reported
 * its records; {@link #skip} then puts a skip marker in its place ({@link RecordBatch#skipMarker}):
 * same predecessor and offsets, no records, so the batches after it chain on as before and the
 * destination moves past the skipped offsets. The partition commits past them once the marker is
 * acknowledged. A marker the destination refuses too stops the task: nothing is skipped twice, and
 * nothing loops.
 *
 * <p>Not thread-safe: used under the sender's lock ({@link #fatalError()} excepted).
 */
final class SkipMarkers implements AutoCloseable {

    private final boolean skipRefused;
    private final SendWindow window;
    private final SignedFrames frames;
    private final SenderEvents events;
    /** Reads back a refused batch's records from its frame (task thread). */
    private final BatchDecoder decoder = new BatchDecoder();
    /** Ids of refused batches the task has not taken yet; each is an entry of the window. */
    private final ArrayDeque<Long> refused = new ArrayDeque<>();
    private final AtomicReference<RuntimeException> fatal = new AtomicReference<>();

    SkipMarkers(boolean skipRefused, SendWindow window, SignedFrames frames, SenderEvents events) {
        this.skipRefused = skipRefused;
        this.window = window;
        this.frames = frames;
        this.events = events;
    }

    /**
     * The destination refused a batch for good. A skip marker refused too, or any batch when refused
     * batches are not skipped, stops the task with a message naming the batch and the reason; else
     * the batch waits, never sent again, for the task to take it ({@link #next()}).
     */
    void onRefused(InFlightWindow.Entry<PendingBatch> entry, AckFrame ack, long now) {
        PendingBatch pending = entry.payload();
        if (pending.refusal != null) {
            return; // an answer to an earlier attempt: it was refused already
        }
        BatchHeader header = pending.frame.header();
        String partition = header.topic() + "-" + header.partition();
        if (pending.skips != null) {
            fatal.compareAndSet(null, new IllegalStateException("The destination refused for good " + pending.skips
                    + ", and then also the skip marker sent in its place (batch " + ack.batchId() + "): "
                    + ack.reason() + " " + ack.message() + ". The skipped records were reported to the dead letter "
                    + "queue, if the connector has one; nothing of " + partition + " from source offset "
                    + header.firstOffset() + " on was committed at the source. The task stops here (a destination "
                    + "that predates skip markers refuses them as malformed: upgrade the destination-site connector)"));
            return;
        }
        String what = "batch " + ack.batchId() + " of " + partition + " (source offsets " + header.firstOffset() + ".."
                + header.lastOffset() + ", " + entry.records() + " records): " + ack.reason() + " " + ack.message();
        if (!skipRefused) {
            fatal.compareAndSet(null, new IllegalStateException("The destination refused for good " + what
                    + ". Nothing of it or after it in that partition was committed at the source; the task stops here "
                    + "and stops again after a restart until the cause (see the destination-site task's log) is "
                    + "removed, or until errors.tolerance=all (with errors.deadletterqueue.topic.name) on this "
                    + "connector skips such batches"));
            return;
        }
        pending.refusal = ack;
        window.hold(entry, now);
        refused.addLast(entry.batchId());
    }

    /**
     * The next batch refused for good and not taken yet, decoded, or null. A batch since revoked, or
     * acknowledged after all (an answer to another copy), is passed over.
     */
    RefusedBatch next() {
        Long id;
        while ((id = refused.pollFirst()) != null) {
            InFlightWindow.Entry<PendingBatch> entry = window.get(id);
            if (entry == null || entry.acked() || entry.payload().refusal == null) {
                continue;
            }
            PendingBatch pending = entry.payload();
            RecordBatch batch = decoder.decode(pending.frame.encodedBatch());
            return new RefusedBatch(id, batch, pending.refusal.reason(), pending.refusal.message());
        }
        return null;
    }

    /**
     * Puts a skip marker in the refused batch's place and sends it in a BATCH frame of its own (after
     * any older batch of the partition that waits for its retry, like any batch), in the caller's
     * sending pass ({@link SendWindow#sendCollected}). Nothing happens when the batch left the window
     * meanwhile (its partition was revoked).
     */
    void skip(RefusedBatch refusal, long now) {
        InFlightWindow.Entry<PendingBatch> entry = window.get(refusal.batchId());
        if (entry == null || entry.acked() || entry.payload().refusal == null) {
            return;
        }
        PendingBatch refusedBatch = entry.payload();
        BatchHeader header = refusedBatch.frame.header();
        RecordBatch marker = RecordBatch.skipMarker(refusal.batch());
        BatchFrame frame = frames.batch(marker, CompressionCodec.NONE);
        PendingBatch pending = new PendingBatch(frame, refusedBatch.oldestArrivalNanos, 0);
        pending.alone = true; // its own answer, and nothing else's, decides whether the task goes on
        pending.skips = "batch " + refusal.batchId() + " of " + header.topic() + "-" + header.partition()
                + " (source offsets " + header.firstOffset() + ".." + header.lastOffset() + ", " + entry.records()
                + " records: " + refusal.reason() + " " + refusal.message() + ")";
        events.refusedBatchSkipped(entry.records());
        window.replace(entry, frame.header().batchId(), marker.lastOffset(), pending, now);
    }

    /** A refused batch that must stop the task, or null. Any thread. */
    RuntimeException fatalError() {
        return fatal.get();
    }

    @Override
    public void close() {
        decoder.close();
    }
}
