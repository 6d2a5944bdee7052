package io.jetstream.kafka.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * Receive-buffer sizing for connections read with {@code AUTO_READ} off: Netty's default reads
 * one buffer per {@code read()} request, so a busy connection costs a full event-loop cycle per
 * socket read. This allocator keeps reading, within one request, while the socket fills whole
 * buffers, up to {@code maxReadsPerRequest} buffers. Sizes adapt as with
 * {@link AdaptiveRecvByteBufAllocator}. The bytes one request can bring are therefore bounded by
 * {@code maxReadsPerRequest x maximum buffer size}, which is what a backpressured connection may
 * read beyond its budget.
 */
public final class BoundedReadAllocator implements RecvByteBufAllocator {

    /** Buffers of 1 KiB to 64 KiB (Netty's adaptive range), at most 4 per request: 256 KiB. */
    public static BoundedReadAllocator forBackpressuredReads() {
        return new BoundedReadAllocator(1024, 16 * 1024, 64 * 1024, 4);
    }

    private final AdaptiveRecvByteBufAllocator sizes;
    private final int maxReadsPerRequest;
    private final int maximum;

    /**
     * @param minimum            smallest buffer
     * @param initial            first guess
     * @param maximum            largest buffer
     * @param maxReadsPerRequest socket reads one {@code read()} request may make, at least 1
     */
    public BoundedReadAllocator(int minimum, int initial, int maximum, int maxReadsPerRequest) {
        if (maxReadsPerRequest < 1) {
            throw new IllegalArgumentException("maxReadsPerRequest " + maxReadsPerRequest + " must be at least 1");
        }
        this.sizes = new AdaptiveRecvByteBufAllocator(minimum, initial, maximum);
        this.maxReadsPerRequest = maxReadsPerRequest;
        this.maximum = maximum;
    }

    /** Most bytes one {@code read()} request can bring in. */
    public long maxBytesPerRequest() {
        return (long) maxReadsPerRequest * maximum;
    }

    @Override
    public Handle newHandle() {
        return new BoundedHandle((ExtendedHandle) sizes.newHandle());
    }

    private final class BoundedHandle extends DelegatingHandle implements ExtendedHandle {
        private final ExtendedHandle sizing;
        private int reads;

        BoundedHandle(ExtendedHandle sizing) {
            super(sizing);
            this.sizing = sizing;
        }

        @Override
        public void reset(ChannelConfig config) {
            reads = 0;
            sizing.reset(config);
        }

        @Override
        public void incMessagesRead(int numMessages) {
            reads += numMessages;
            sizing.incMessagesRead(numMessages);
        }

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            return sizing.allocate(alloc);
        }

        @Override
        public boolean continueReading() {
            return continueReading(null);
        }

        @Override
        public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
            // Full buffer: the socket probably holds more. Independent of AUTO_READ, bounded per request.
            return reads < maxReadsPerRequest && lastBytesRead() > 0 && lastBytesRead() == attemptedBytesRead();
        }
    }
}
