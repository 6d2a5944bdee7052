package io.jetstream.kafka.relay.datapath;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.codec.FrameCodec;
import io.jetstream.kafka.relay.testing.TestBatches;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

class FramesTest {

    private static final FrameCodec CODEC = new FrameCodec();
    private final TestBatches batches = new TestBatches();

    /** A frame decoded from a buffer of {@code capacity} bytes, as the decoder hands it on. */
    private BatchFrame decodedFrom(int records, int valueBytes, int capacity) {
        BatchFrame original = batches.batch("demo", 1, "source-0", "site-b", "orders", 0, -1, records, valueBytes,
                Unpooled.buffer().alloc());
        ByteBuf wire = PooledByteBufAllocator.DEFAULT.directBuffer(capacity);
        CODEC.encode(original, wire);
        original.release();
        try {
            return (BatchFrame) CODEC.decode(wire);
        } finally {
            wire.release(); // the frame's slice keeps it alive, as the cumulation is kept by a decoded batch
        }
    }

    @Test
    void aSmallBatchInABigBufferIsCopiedOutAndReleasesIt() {
        BatchFrame frame = decodedFrom(1, 10, 16 * 1024 * 1024);
        assertThat(Frames.retainedBytes(frame.payload())).isEqualTo(16 * 1024 * 1024);

        Frame detached = Frames.detached(frame, PooledByteBufAllocator.DEFAULT);

        assertThat(frame.refCnt()).as("the slice, and with it the big buffer, released").isZero();
        BatchFrame copy = (BatchFrame) detached;
        assertThat(copy.header()).isEqualTo(frame.header());
        assertThat(Frames.retainedBytes(copy.payload())).isLessThanOrEqualTo(2 * Frames.wireBytes(copy));
        copy.verifyChecksum();
        copy.release();
    }

    @Test
    void aBatchAboutTheSizeOfItsBufferIsNotCopied() {
        BatchFrame frame = decodedFrom(4, 100_000, 500 * 1024);

        Frame same = Frames.detached(frame, PooledByteBufAllocator.DEFAULT);

        assertThat(same).isSameAs(frame);
        assertThat(frame.refCnt()).isEqualTo(1);
        frame.release();
    }
}
