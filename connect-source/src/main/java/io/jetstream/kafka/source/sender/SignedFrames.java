package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.core.batch.BatchEncoder;
import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.EncodedBatch;
import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.BatchIdSequence;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.kafka.common.Uuid;

/**
 * The one place the sender's frames are made: every batch (data, heartbeat, skip marker), every
 * BATCHES frame and every topic metadata frame gets the next id of the task's sequence, an unrouted
 * routing header from this task to the destination, this worker's clock as its creation time, and
 * its MAC ({@link SenderIntegrity}), a data batch only once it leaves alone ({@link #signed}). A batch
 * is encoded once, into the encoder's reused buffer, and copied into a frame of its own that the
 * sender keeps for re-sends; a BATCHES frame only refers to the payloads of the batch frames it
 * carries (no copy).
 *
 * <p>Not thread-safe: used under the sender's lock.
 */
final class SignedFrames implements AutoCloseable {

    /** Bytes a batch frame takes on the wire besides its payload (headers), for the window's accounting. */
    static final long FRAME_OVERHEAD_BYTES = 128;

    private final SenderSettings settings;
    private final ByteBufAllocator alloc;
    private final LongSupplier nanoTime;
    private final BatchIdSequence ids = BatchIdSequence.withRandomEpoch();
    private final BatchEncoder encoder = new BatchEncoder();
    private long lastCostNanos;

    SignedFrames(SenderSettings settings, ByteBufAllocator alloc, LongSupplier nanoTime) {
        this.settings = settings;
        this.alloc = alloc;
        this.nanoTime = nanoTime;
    }

    /**
     * The batch encoded with {@code codec} and signed, under a new id ({@code header().batchId()}):
     * a batch that always leaves alone (a heartbeat, a skip marker). The caller owns the frame.
     */
    BatchFrame batch(RecordBatch batch, CompressionCodec codec) {
        BatchFrame unsigned = unsignedBatch(batch, codec);
        long signStart = nanoTime.getAsLong();
        BatchFrame frame = settings.integrity().sign(unsigned);
        lastCostNanos += nanoTime.getAsLong() - signStart; // the MAC is part of the batch's CPU cost
        return frame;
    }

    /**
     * The batch encoded with {@code codec}, under a new id, without its MAC: a data batch, which needs
     * one only if it ever leaves alone ({@link #signed}), while in a BATCHES frame the frame's MAC
     * covers it. Signing every batch at once cost a MAC per batch, the per-partition cost the frames
     * take away. The caller owns the frame.
     */
    BatchFrame unsignedBatch(RecordBatch batch, CompressionCodec codec) {
        long encodeStart = nanoTime.getAsLong();
        EncodedBatch encoded = encoder.encode(batch, codec);
        lastCostNanos = nanoTime.getAsLong() - encodeStart;
        return BatchFrame.copyOf(routing(ids.next()), encoded, System.currentTimeMillis(), alloc);
    }

    /**
     * {@code frame} with its MAC: itself when it has one or integrity is off, else signed now (the
     * payload reference moves to the result, which replaces {@code frame}).
     */
    BatchFrame signed(BatchFrame frame) {
        return frame.header().mac().isPresent() ? frame : settings.integrity().sign(frame);
    }

    /**
     * A BATCHES frame of {@code batches}, in that order, signed, under a new id ({@code frameId()}):
     * its body refers to their payloads (retained slices), so the batches stay the caller's and the
     * returned frame owns only its own references.
     */
    BatchesFrame batches(List<BatchFrame> batches) {
        return settings.integrity().sign(BatchesFrame.of(routing(ids.next()), System.currentTimeMillis(), batches,
                alloc));
    }

    /**
     * The CPU time the last {@link #batch} took to encode, compress and sign, or the last
     * {@link #unsignedBatch} to encode and compress (not to copy).
     */
    long lastCostNanos() {
        return lastCostNanos;
    }

    /** A topic's metadata, signed, under a new id ({@code routing().id()}). */
    TopicMetadataFrame metadata(String topic, int partitionCount, Map<String, String> configs, Uuid topicId,
                                long generation) {
        return settings.integrity().sign(new TopicMetadataFrame(routing(ids.next()), topic, partitionCount, configs,
                topicId, generation));
    }

    /** The bytes a batch frame counts for in the window and the batching policy. */
    static long wireBytes(BatchFrame frame) {
        return frame.payload().readableBytes() + FRAME_OVERHEAD_BYTES;
    }

    /**
     * The bytes a batch adds to the body of a BATCHES frame: its section's fields and its payload
     * ({@link BatchesFrame#SECTION_FIXED_BYTES}, the topic as {@code string}), what a frame's size
     * limit applies to.
     */
    static long sectionBytes(BatchFrame frame) {
        return BatchesFrame.SECTION_FIXED_BYTES + 2L + frame.header().topic().getBytes(StandardCharsets.UTF_8).length
                + frame.payload().readableBytes();
    }

    private RoutingHeader routing(long id) {
        return RoutingHeader.unrouted(settings.streamId(), id, settings.nodeId(), settings.destination());
    }

    @Override
    public void close() {
        encoder.close();
    }
}
