package io.jetstream.kafka.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;

/**
 * The buffer allocator of every data connection (relays, and the connectors' relay clients).
 *
 * <p>Frames carry whole batches, up to {@code batch.max.bytes} (1 MiB by default) before
 * compression, and a frame spanning many socket reads is gathered into one buffer of its size
 * ({@link FrameDecoderHandler#FRAME_SIZED_CUMULATOR}). Netty 4.2's default allocator (adaptive) pools
 * buffers only up to an eighth of its chunk: 256 KiB in a JVM with less than 512 MiB of heap (a
 * relay), 1 MiB otherwise. Larger buffers it allocates afresh with {@code allocateDirect}, which
 * zeroes the memory, faults its pages in and leaves it to a Cleaner. Measured with {@code perf} on
 * the WAN bench (one route, draining a backlog): 30-35% of each relay's CPU went there. Netty's
 * pooled allocator pools buffers up to its chunk size (4 MiB by default), so batch-sized buffers are
 * reused.
 */
public final class FrameBuffers {

    /** The allocator for data connections: pools buffers up to 4 MiB. */
    public static final ByteBufAllocator ALLOCATOR = PooledByteBufAllocator.DEFAULT;

    private FrameBuffers() {
    }
}
