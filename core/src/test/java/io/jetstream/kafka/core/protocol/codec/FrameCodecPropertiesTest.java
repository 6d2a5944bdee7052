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
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Round trips of every frame type through both encoders and all three decoding entry points. The
 * generated cases run over fixed seeds (the display name shows each one); {@code new Random(seed)}
 * with {@link ProtocolArbitraries} rebuilds a failing case.
 */
class FrameCodecPropertiesTest {

    private static final ByteBufAllocator HEAP = new UnpooledByteBufAllocator(false);
    private static final int MAX_PAYLOAD = 2048;

    private final FrameCodec codec = new FrameCodec();
    /** The layouts with a {@code mac} field (HELLO flag FLAG_MACS agreed). */
    private final FrameCodec macCodec = codec.withMacs(true);

    static LongStream frameSeeds() {
        return ProtocolArbitraries.seeds(0xF4A3E5L, 2_000);
    }

    static LongStream batchFrameSeeds() {
        return ProtocolArbitraries.seeds(0xBA7C4L, 300);
    }

    static LongStream splitSeeds() {
        return ProtocolArbitraries.seeds(0x5B117L, 300);
    }

    @AfterAll
    static void noBufferLeaked() {
        LeakChecks.assertNoLeaks();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("frameSeeds")
    void everyNonBatchFrameRoundTrips(long seed) {
        assertRoundTrips(ProtocolArbitraries.nonBatchFrame(new Random(seed)), "seed " + seed);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("frameSeeds")
    void everyNonBatchFrameRoundTripsWithTheMacFields(long seed) {
        Random random = new Random(seed);
        Frame frame = ProtocolArbitraries.withMac(ProtocolArbitraries.nonBatchFrame(random), random);
        assertRoundTrips(macCodec, frame, "seed " + seed);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("batchFrameSeeds")
    void batchFramesRoundTripWithTheMacFields(long seed) {
        Random random = new Random(seed);
        BatchHeader header = ProtocolArbitraries.batchHeader(random).withMac(ProtocolArbitraries.mac(random));
        byte[] payloadBytes = ProtocolArbitraries.bytes(random, MAX_PAYLOAD);
        assertBatchRoundTrips(macCodec, header, payloadBytes, "seed " + seed);
    }

    @Test
    void boundaryNonBatchFramesRoundTrip() {
        for (Frame frame : ProtocolArbitraries.boundaryNonBatchFrames()) {
            assertRoundTrips(frame, "boundary frame " + frame);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("batchFrameSeeds")
    void batchFramesRoundTripWithoutCopyingThePayload(long seed) {
        Random random = new Random(seed);
        BatchHeader header = ProtocolArbitraries.batchHeader(random);
        byte[] payloadBytes = ProtocolArbitraries.bytes(random, MAX_PAYLOAD);
        assertBatchRoundTrips(header, payloadBytes, "seed " + seed);
    }

    @Test
    void boundaryBatchFramesRoundTripWithoutCopyingThePayload() {
        Random random = new Random(17);
        for (BatchHeader header : ProtocolArbitraries.boundaryBatchHeaders()) {
            for (int size : new int[] {0, 1, MAX_PAYLOAD}) {
                byte[] payloadBytes = new byte[size];
                random.nextBytes(payloadBytes);
                assertBatchRoundTrips(header, payloadBytes, "boundary header " + header + ", payload " + size);
            }
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("splitSeeds")
    void aFrameSplitAnywhereDecodesOnlyOnceComplete(long seed) {
        Random random = new Random(seed);
        Frame frame = ProtocolArbitraries.nonBatchFrame(random);
        int cutPermille = ProtocolArbitraries.intBetween(random, 0, 999);
        assertSplitDecodesOnlyOnceComplete(frame, cutPermille, "seed " + seed + ", cut " + cutPermille);
    }

    @Test
    void boundaryFramesSplitAtEitherEndDecodeOnlyOnceComplete() {
        for (Frame frame : ProtocolArbitraries.boundaryNonBatchFrames()) {
            for (int cutPermille : new int[] {0, 1, 500, 998, 999}) {
                assertSplitDecodesOnlyOnceComplete(frame, cutPermille,
                        "boundary frame " + frame + ", cut " + cutPermille);
            }
        }
    }

    private void assertRoundTrips(Frame frame, String where) {
        assertRoundTrips(codec, frame, where);
    }

    private static void assertRoundTrips(FrameCodec codec, Frame frame, String where) {
        ByteBuf copied = Unpooled.buffer();
        codec.encode(frame, copied);
        ByteBuf allocated = codec.encode(frame, HEAP);
        try {
            assertThat(ByteBufSlices.bytes(allocated)).as(where).isEqualTo(ByteBufSlices.bytes(copied));
            assertThat(copied.getInt(0)).as(where).isEqualTo(copied.readableBytes() - 4);
            assertThat((int) copied.getUnsignedByte(4)).as(where).isEqualTo(frame.type().code());
            assertThat(codec.decode(copied)).as(where).isEqualTo(frame);
            assertThat(copied.isReadable()).as(where).isFalse();
        } finally {
            copied.release();
            allocated.release();
        }
    }

    private void assertBatchRoundTrips(BatchHeader header, byte[] payloadBytes, String where) {
        assertBatchRoundTrips(codec, header, payloadBytes, where);
    }

    private static void assertBatchRoundTrips(FrameCodec codec, BatchHeader header, byte[] payloadBytes,
                                              String where) {
        ByteBuf payload = PooledByteBufAllocator.DEFAULT.heapBuffer(payloadBytes.length).writeBytes(payloadBytes);
        BatchFrame frame = new BatchFrame(header, payload);
        ByteBuf encoded = codec.encode(frame, PooledByteBufAllocator.DEFAULT);
        assertThat(payload.refCnt()).as("%s: the encoded buffer references the payload", where).isEqualTo(2);
        Frame decoded = null;
        try {
            decoded = codec.decode(encoded);
            assertThat(decoded).as(where).isEqualTo(frame);
            // The decoded payload is a slice of the received buffer, not a copy.
            assertThat(encoded.refCnt()).as(where).isEqualTo(2);
        } finally {
            ReferenceCountUtil.release(decoded);
            assertThat(encoded.release()).as(where).isTrue();
            assertThat(frame.release()).as("%s: the frame still owned exactly one reference", where).isTrue();
        }
    }

    private void assertSplitDecodesOnlyOnceComplete(Frame frame, int cutPermille, String where) {
        ByteBuf full = Unpooled.buffer();
        codec.encode(frame, full);
        int cut = (int) ((long) full.readableBytes() * cutPermille / 1000);
        ByteBuf cumulation = Unpooled.buffer();
        try {
            cumulation.writeBytes(full, 0, cut);
            assertThat(codec.tryDecode(cumulation)).as(where).isNull();
            assertThat(cumulation.readerIndex()).as(where).isZero();
            cumulation.writeBytes(full, cut, full.readableBytes() - cut);
            cumulation.writeByte(0x7F); // the first byte of the next frame stays unread
            assertThat(codec.tryDecode(cumulation)).as(where).isEqualTo(frame);
            assertThat(cumulation.readableBytes()).as(where).isEqualTo(1);
        } finally {
            full.release();
            cumulation.release();
        }
    }
}
