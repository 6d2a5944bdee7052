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
 * its MAC ({@link SenderIntegrity}). A batch is encoded once, into the encoder's reused buffer, and
 * copied into a frame of its own that the sender keeps for re-sends; a BATCHES frame only refers to
 * the payloads of the batch frames it carries (no copy).
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
     * The batch encoded with {@code codec} and signed, under a new id ({@code header().batchId()}).
     * The caller owns the frame.
     */
    BatchFrame batch(RecordBatch batch, CompressionCodec codec) {
        long encodeStart = nanoTime.getAsLong();
        EncodedBatch encoded = encoder.encode(batch, codec);
        long encodeNanos = nanoTime.getAsLong() - encodeStart;
        BatchFrame unsigned = BatchFrame.copyOf(routing(ids.next()), encoded, System.currentTimeMillis(), alloc);
        long signStart = nanoTime.getAsLong();
        BatchFrame frame = settings.integrity().sign(unsigned);
        lastCostNanos = encodeNanos + nanoTime.getAsLong() - signStart; // the MAC is part of a batch's CPU cost
        return frame;
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

    /** The CPU time the last {@link #batch} took to encode, compress and sign (not to copy). */
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
