package io.jetstream.kafka.core.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.testing.LeakChecks;
import io.jetstream.kafka.core.testing.ProtocolArbitraries;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;

/** Round trips of every frame type through both encoders and all three decoding entry points. */
class FrameCodecPropertiesTest {

    private static final ByteBufAllocator HEAP = new UnpooledByteBufAllocator(false);

    private final FrameCodec codec = new FrameCodec();

    @AfterContainer
    static void noBufferLeaked() {
        LeakChecks.assertNoLeaks();
    }

    @Property(tries = 2_000)
    void everyNonBatchFrameRoundTrips(@ForAll("frames") Frame frame) {
        ByteBuf copied = Unpooled.buffer();
        codec.encode(frame, copied);
        ByteBuf allocated = codec.encode(frame, HEAP);
        try {
            assertThat(ByteBufSlices.bytes(allocated)).isEqualTo(ByteBufSlices.bytes(copied));
            assertThat(copied.getInt(0)).isEqualTo(copied.readableBytes() - 4);
            assertThat((int) copied.getUnsignedByte(4)).isEqualTo(frame.type().code());
            assertThat(codec.decode(copied)).isEqualTo(frame);
            assertThat(copied.isReadable()).isFalse();
        } finally {
            copied.release();
            allocated.release();
        }
    }

    @Property(tries = 300)
    void batchFramesRoundTripWithoutCopyingThePayload(@ForAll("batchHeaders") BatchHeader header,
            @ForAll("payloads") byte[] payloadBytes) {
        ByteBuf payload = PooledByteBufAllocator.DEFAULT.heapBuffer(payloadBytes.length).writeBytes(payloadBytes);
        BatchFrame frame = new BatchFrame(header, payload);
        ByteBuf encoded = codec.encode(frame, PooledByteBufAllocator.DEFAULT);
        assertThat(payload.refCnt()).as("the encoded buffer references the payload").isEqualTo(2);
        Frame decoded = null;
        try {
            decoded = codec.decode(encoded);
            assertThat(decoded).isEqualTo(frame);
            // The decoded payload is a slice of the received buffer, not a copy.
            assertThat(encoded.refCnt()).isEqualTo(2);
        } finally {
            ReferenceCountUtil.release(decoded);
            assertThat(encoded.release()).isTrue();
            assertThat(frame.release()).as("the frame still owned exactly one reference").isTrue();
        }
    }

    @Property(tries = 300)
    void aFrameSplitAnywhereDecodesOnlyOnceComplete(@ForAll("frames") Frame frame, @ForAll("cuts") int cutPermille) {
        ByteBuf full = Unpooled.buffer();
        codec.encode(frame, full);
        int cut = (int) ((long) full.readableBytes() * cutPermille / 1000);
        ByteBuf cumulation = Unpooled.buffer();
        try {
            cumulation.writeBytes(full, 0, cut);
            assertThat(codec.tryDecode(cumulation)).isNull();
            assertThat(cumulation.readerIndex()).isZero();
            cumulation.writeBytes(full, cut, full.readableBytes() - cut);
            cumulation.writeByte(0x7F); // the first byte of the next frame stays unread
            assertThat(codec.tryDecode(cumulation)).isEqualTo(frame);
            assertThat(cumulation.readableBytes()).isEqualTo(1);
        } finally {
            full.release();
            cumulation.release();
        }
    }

    @Provide
    Arbitrary<Frame> frames() {
        return ProtocolArbitraries.nonBatchFrame();
    }

    @Provide
    Arbitrary<BatchHeader> batchHeaders() {
        return ProtocolArbitraries.batchHeader();
    }

    @Provide
    Arbitrary<byte[]> payloads() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(2048);
    }

    @Provide
    Arbitrary<Integer> cuts() {
        return Arbitraries.integers().between(0, 999);
    }
}
