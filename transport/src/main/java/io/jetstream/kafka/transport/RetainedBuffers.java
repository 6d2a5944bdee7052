package io.jetstream.kafka.transport;

import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * What a decoded batch keeps alive, and a copy when that is far more than it is charged for.
 * {@link FrameDecoderHandler} hands out batches as retained slices of the buffer they were read into;
 * a slice keeps the whole buffer allocated. A small batch read with a large frame (or with many
 * others) would then pin a buffer many times its size for as long as it is held, while a holder's
 * byte budget charges it only its own size. Used where batches are held: the relay's buffers
 * and the destination task's queue.
 */
public final class RetainedBuffers {

    /** A held batch may keep alive at most this many times the bytes it is charged. */
    public static final int MAX_FACTOR = 2;

    private RetainedBuffers() {
    }

    /** The memory {@code buf} keeps alive: the capacity of the buffer it is a slice (or wrapper) of. */
    public static long retainedBytes(ByteBuf buf) {
        ByteBuf root = buf;
        for (ByteBuf under = root.unwrap(); under != null; under = root.unwrap()) {
            root = under;
        }
        return root.capacity();
    }

    /** {@link #detached(BatchFrame, long, ByteBufAllocator)} for a BATCHES frame and its sections. */
    public static BatchesFrame detached(BatchesFrame frame, long chargedBytes, ByteBufAllocator alloc) {
        ByteBuf own = copyIfPinning(frame.body(), chargedBytes, alloc);
        if (own == null) {
            return frame;
        }
        BatchesFrame copy = frame.replace(own);
        frame.release();
        return copy;
    }

    /**
     * {@code batch}, or the same batch with its payload copied into a buffer of its own when the buffer
     * it was decoded from is more than {@link #MAX_FACTOR} times {@code chargedBytes}: a large batch,
     * whose buffer is about its own size, stays zero-copy. The reference to {@code batch} moves to the
     * result (released here when copied).
     */
    public static BatchFrame detached(BatchFrame batch, long chargedBytes, ByteBufAllocator alloc) {
        ByteBuf own = copyIfPinning(batch.payload(), chargedBytes, alloc);
        if (own == null) {
            return batch;
        }
        BatchFrame copy = batch.replace(own);
        batch.release();
        return copy;
    }

    /** A copy of {@code content}'s readable bytes if it keeps alive too much for {@code chargedBytes}, else null. */
    private static ByteBuf copyIfPinning(ByteBuf content, long chargedBytes, ByteBufAllocator alloc) {
        if (retainedBytes(content) <= MAX_FACTOR * chargedBytes) {
            return null;
        }
        ByteBuf own = alloc.buffer(content.readableBytes());
        try {
            own.writeBytes(content, content.readerIndex(), content.readableBytes());
            return own;
        } catch (RuntimeException e) {
            own.release();
            throw e;
        }
    }
}
