package io.jetstream.kafka.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.HelloFrame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.PingFrame;
import io.jetstream.kafka.core.protocol.codec.FrameCodec;
import io.jetstream.kafka.core.testing.LeakChecks;
import io.jetstream.kafka.core.wire.ProtocolException.Kind;
import io.jetstream.kafka.transport.testing.TestFrames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FrameDecoderHandlerTest {

    private static final int MAX = 4096;
    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;
    private final FrameCodec codec = new FrameCodec(MAX);
    private final TransportErrorCounter errors = new TransportErrorCounter();
    private final EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoderHandler(MAX, errors, true));

    @AfterEach
    void releaseWhatTheTestDidNotRead() {
        channel.finishAndReleaseAll();
    }

    @AfterAll
    static void noLeaks() {
        LeakChecks.assertNoLeaks();
    }

    private ByteBuf encode(Frame frame) {
        return codec.encode(frame, ByteBufAllocator.DEFAULT);
    }

    private ErrorFrame writtenError() {
        ByteBuf out = channel.readOutbound();
        assertThat(out).as("an ERROR frame was written").isNotNull();
        try {
            return (ErrorFrame) codec.decode(out);
        } finally {
            out.release();
        }
    }

    @Test
    void decodesFramesSplitAcrossReadsAndSeveralInOneRead() {
        BatchFrame batch = TestFrames.small(7, ByteBufAllocator.DEFAULT);
        ByteBuf bytes = Unpooled.buffer();
        ByteBuf encodedBatch = encode(batch);
        ByteBuf encodedPing = encode(new PingFrame(1, 2));
        bytes.writeBytes(encodedPing);
        bytes.writeBytes(encodedBatch);
        encodedPing.release();
        encodedBatch.release();

        // One byte at a time: nothing is emitted until a frame is complete.
        while (bytes.isReadable()) {
            channel.writeInbound(bytes.readRetainedSlice(1));
        }
        bytes.release();

        assertThat((Frame) channel.readInbound()).isEqualTo(new PingFrame(1, 2));
        BatchFrame decoded = channel.readInbound();
        assertThat(decoded).isEqualTo(batch);
        decoded.release();
        batch.release();
        assertThat((Object) channel.readInbound()).isNull();
        assertThat(errors.total()).isZero();
        assertThat(channel.isActive()).isTrue();
    }

    @Test
    void largeFramesSpanningManyReadsDecodeWhileEarlierFramesStillHoldTheirSlices() {
        EmbeddedChannel big = new EmbeddedChannel(new FrameDecoderHandler(1 << 20, errors, true));
        FrameCodec bigCodec = new FrameCodec(1 << 20);
        List<BatchFrame> sent = new ArrayList<>();
        ByteBuf stream = Unpooled.buffer();
        for (int i = 0; i < 3; i++) {
            BatchFrame frame = TestFrames.batch("demo", i, "o", "d", "t", 0, i * 100L - 1, 100, 1_500, ALLOC);
            bigCodec.encode(frame, stream);
            sent.add(frame);
        }
        List<BatchFrame> decoded = new ArrayList<>();
        while (stream.isReadable()) {
            big.writeInbound(stream.readRetainedSlice(Math.min(stream.readableBytes(), 7_000)));
            for (Object f = big.readInbound(); f != null; f = big.readInbound()) {
                decoded.add((BatchFrame) f); // kept unreleased while later reads grow the cumulation
            }
        }
        stream.release();

        assertThat(decoded).hasSize(3);
        for (int i = 0; i < 3; i++) {
            assertThat(decoded.get(i)).isEqualTo(sent.get(i));
            decoded.get(i).release();
            sent.get(i).release();
        }
        assertThat(big.finishAndReleaseAll()).isFalse();
    }

    @Test
    void decodedBatchPayloadIsASliceOfTheReceivedBytesNotACopy() {
        BatchFrame batch = TestFrames.small(8, ByteBufAllocator.DEFAULT);
        ByteBuf received = Unpooled.buffer();
        codec.encode(batch, received);
        batch.release();

        channel.writeInbound(received);
        BatchFrame decoded = channel.readInbound();

        assertThat(decoded.payload().unwrap()).as("payload shares the received buffer").isSameAs(received);
        assertThat(received.refCnt()).as("only the payload slice keeps it").isEqualTo(1);
        decoded.release();
        assertThat(received.refCnt()).isZero();
    }

    @Test
    void lengthPrefixAboveTheMaximumFailsAtOnceBeforeTheBodyArrives() {
        ByteBuf prefix = Unpooled.buffer(4).writeInt(MAX + 1);

        channel.writeInbound(prefix);

        assertThat(prefix.refCnt()).isZero();
        assertThat(errors.count(Kind.FRAME_TOO_LARGE)).isEqualTo(1);
        assertThat(writtenError().code()).isEqualTo(ErrorCode.FRAME_TOO_LARGE);
        assertThat(channel.isOpen()).as("closed after the ERROR").isFalse();
        assertThat((Object) channel.readInbound()).isNull();
    }

    @Test
    void negativeLengthIsTooLarge() {
        channel.writeInbound(Unpooled.buffer(4).writeInt(-1));

        assertThat(errors.count(Kind.FRAME_TOO_LARGE)).isEqualTo(1);
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void unknownFrameTypeIsMalformedAndLaterBytesAreDiscarded() {
        ByteBuf garbage = Unpooled.buffer().writeInt(3).writeByte(99).writeShort(0);
        ByteBuf good = encode(new PingFrame(1, 1));
        ByteBuf both = Unpooled.wrappedBuffer(garbage, good);

        channel.writeInbound(both);

        assertThat(both.refCnt()).isZero();
        assertThat(errors.count(Kind.UNKNOWN_TYPE)).isEqualTo(1);
        assertThat(writtenError().code()).isEqualTo(ErrorCode.MALFORMED_FRAME);
        assertThat((Object) channel.readInbound()).as("nothing after the bad frame is decoded").isNull();
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void unsupportedHelloVersionIsAnsweredWithTheSupportedVersions() {
        ByteBuf hello = encode(new HelloFrame(99, PeerRole.SENDER, 0, "n", "s", "t"));

        channel.writeInbound(hello);

        assertThat(errors.count(Kind.UNSUPPORTED_VERSION)).isEqualTo(1);
        ErrorFrame error = writtenError();
        assertThat(error.code()).isEqualTo(ErrorCode.UNSUPPORTED_VERSION);
        assertThat(error.message()).contains("supported: 3");
    }

    @Test
    void malformedBodyIsCountedByKindAndNothingLeaks() {
        ByteBuf ack = encode(new AckFrame("demo", "origin", 1, io.jetstream.kafka.core.protocol.AckStatus.OK,
                io.jetstream.kafka.core.protocol.AckReason.NONE, "t", 0, 1, ""));
        ack.setByte(4 + 1 + 8, 9); // status byte: no such status

        channel.writeInbound(ack);

        assertThat(errors.count(Kind.MALFORMED)).isEqualTo(1);
        assertThat(writtenError().code()).isEqualTo(ErrorCode.MALFORMED_FRAME);
        assertThat(ack.refCnt()).isZero();
    }

    @Test
    void peerClosingInTheMiddleOfAFrameIsCountedAsTruncated() {
        ByteBuf ping = encode(new PingFrame(1, 2));
        channel.writeInbound(ping.readRetainedSlice(6));
        ping.release();

        channel.finish();

        assertThat(errors.count(Kind.TRUNCATED)).isEqualTo(1);
        assertThat((Object) channel.readInbound()).isNull();
    }

    @Test
    void withoutAnswerOnlyCloses() {
        EmbeddedChannel quiet = new EmbeddedChannel(new FrameDecoderHandler(MAX, errors, false));

        quiet.writeInbound(Unpooled.buffer(4).writeInt(Integer.MAX_VALUE));
        quiet.finishAndReleaseAll();

        assertThat((Object) quiet.readOutbound()).isNull();
        assertThat(quiet.isOpen()).isFalse();
        assertThat(errors.count(Kind.FRAME_TOO_LARGE)).isEqualTo(1);
    }

    @Test
    void aDeclaredLengthAloneReservesNothingMemoryFollowsTheBytesThatArrived() {
        ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
        ByteBuf cumulation = alloc.buffer(64, 64).writeInt(16 * 1024 * 1024).writeZero(60);
        ByteBuf in = alloc.buffer(20_000).writeZero(20_000);

        ByteBuf grown = FrameDecoderHandler.FRAME_SIZED_CUMULATOR.cumulate(alloc, cumulation, in);
        try {
            assertThat(grown.readableBytes()).isEqualTo(20_064);
            assertThat(grown.capacity()).as("at most twice what arrived, not the 16 MiB declared")
                    .isLessThanOrEqualTo(2 * 20_064);
            assertThat(in.refCnt()).isZero();
        } finally {
            grown.release();
        }
    }

    @Test
    void aGrowingFrameNeverGetsMoreRoomThanItsDeclaredLength() {
        ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
        ByteBuf cumulation = alloc.buffer(64, 64).writeInt(3_000).writeZero(60);
        ByteBuf in = alloc.buffer(2_000).writeZero(2_000);

        ByteBuf grown = FrameDecoderHandler.FRAME_SIZED_CUMULATOR.cumulate(alloc, cumulation, in);
        try {
            assertThat(grown.capacity()).isEqualTo(3_004);
        } finally {
            grown.release();
        }
    }

    @Test
    void theLimitCanBeRaisedOnceThePeerIsTrustedAndAppliesFromTheNextFrame() {
        FrameDecoderHandler decoder = new FrameDecoderHandler(1024, errors, true);
        EmbeddedChannel small = new EmbeddedChannel(decoder);
        BatchFrame batch = TestFrames.batch("demo", 1, "o", "d", "t", 0, 99L, 2, 1_000, ALLOC);
        ByteBuf encoded = encode(batch);
        batch.release();
        try {
            small.writeInbound(encode(new PingFrame(1, 2)));
            assertThat((Object) small.readInbound()).isInstanceOf(PingFrame.class);

            decoder.maxFrameBytes(MAX);
            small.writeInbound(encoded.retainedDuplicate());
            BatchFrame received = small.readInbound();
            assertThat(received).isNotNull();
            received.release();
            assertThat(decoder.maxFrameBytes()).isEqualTo(MAX);

            decoder.maxFrameBytes(1024);
            small.writeInbound(encoded.retainedDuplicate());
            assertThat(errors.count(Kind.FRAME_TOO_LARGE)).isEqualTo(1);
            assertThat(small.isOpen()).isFalse();
        } finally {
            encoded.release();
            small.finishAndReleaseAll();
        }
    }
}
