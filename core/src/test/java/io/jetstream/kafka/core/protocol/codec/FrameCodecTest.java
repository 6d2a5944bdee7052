package io.jetstream.kafka.core.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.core.batch.BatchDecoder;
import io.jetstream.kafka.core.batch.BatchEncoder;
import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.HelloFrame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.PingFrame;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.core.testing.LeakChecks;
import io.jetstream.kafka.core.wire.ProtocolException;
import io.jetstream.kafka.core.wire.ProtocolException.Kind;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class FrameCodecTest {

    private static final PooledByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

    private final FrameCodec codec = new FrameCodec(4096);

    @AfterAll
    static void noBufferLeaked() {
        LeakChecks.assertNoLeaks();
    }

    @Test
    void aHugeLengthPrefixIsRejectedFromItsFourBytesAlone() {
        ByteBuf in = ALLOC.buffer().writeInt(4097);
        try {
            assertKind(() -> codec.tryDecode(in), Kind.FRAME_TOO_LARGE);
            in.setInt(0, -1);
            assertKind(() -> codec.readFrame(in), Kind.FRAME_TOO_LARGE);
            in.setInt(0, 0);
            assertKind(() -> codec.decode(in), Kind.MALFORMED);
        } finally {
            in.release();
        }
    }

    @Test
    void anUnsupportedHelloVersionIsReportedWhateverFollowsIt() {
        // version 1: the layouts before TOPIC_METADATA carried its generation; an older peer is refused
        ByteBuf in = ALLOC.buffer().writeInt(3).writeByte(1).writeShort(1);
        try {
            assertKind(() -> codec.decode(in), Kind.UNSUPPORTED_VERSION);
        } finally {
            in.release();
        }
        ErrorFrame reply = ErrorFrame.of(new ProtocolException(Kind.UNSUPPORTED_VERSION, "HELLO version 1"));
        assertThat(reply.code()).isEqualTo(ErrorCode.UNSUPPORTED_VERSION);
        assertThat(reply.message()).contains("supported: 3");
        ByteBuf hello = ALLOC.buffer().writeInt(3).writeByte(1).writeShort(9);
        try {
            assertThatThrownBy(() -> codec.decode(hello)).isInstanceOfSatisfying(ProtocolException.class,
                    e -> assertThat(ErrorFrame.of(e).message()).containsOnlyOnce("supported:"));
        } finally {
            hello.release();
        }
    }

    @Test
    void unknownTypesTrailingBytesAndBadUtf8AreRejected() {
        assertKind(() -> decodeBytes(new byte[] {0, 0, 0, 1, 12}), Kind.UNKNOWN_TYPE);
        // PING with one extra byte
        assertKind(() -> decodeBytes(new byte[] {0, 0, 0, 18, 7, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 9}),
                Kind.MALFORMED);
        // ERROR with message bytes 0xC3 0x28 (invalid UTF-8)
        assertKind(() -> decodeBytes(new byte[] {0, 0, 0, 7, 10, 0, 1, 0, 2, (byte) 0xC3, 0x28}), Kind.MALFORMED);
        // ERROR with code 99
        assertKind(() -> decodeBytes(new byte[] {0, 0, 0, 5, 10, 0, 99, 0, 0}), Kind.MALFORMED);
        // SUBSCRIBE with shareIndex 3 of 3: the record constructor's rule, reported as MALFORMED
        ByteBuf subscribe = Unpooled.buffer().writeInt(19).writeByte(5).writeShort(3).writeShort(3).writeLong(0)
                .writeShort(1).writeByte('s').writeShort(1).writeByte('t');
        assertKind(() -> codec.decode(subscribe), Kind.MALFORMED);
        // SUBSCRIBE with a negative epoch
        ByteBuf negativeEpoch = Unpooled.buffer().writeInt(19).writeByte(5).writeShort(0).writeShort(1).writeLong(-1)
                .writeShort(1).writeByte('s').writeShort(1).writeByte('t');
        assertKind(() -> codec.decode(negativeEpoch), Kind.MALFORMED);
    }

    @Test
    void aNegativeTopicMetadataGenerationIsMalformed() {
        TopicMetadataFrame metadata = new TopicMetadataFrame(RoutingHeader.unrouted("s", 1, "o", "d"), "t", 1,
                Map.of(), org.apache.kafka.common.Uuid.ZERO_UUID, 0x0102_0304_0506_0708L);
        ByteBuf wire = Unpooled.buffer();
        codec.encode(metadata, wire);
        int generation = ByteBufUtil.indexOf(Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}), wire);
        wire.setByte(generation, 0x81);

        assertKind(() -> codec.decode(wire), Kind.MALFORMED);
    }

    @Test
    void aRepeatedTopicConfigKeyIsMalformed() {
        TopicMetadataFrame metadata = new TopicMetadataFrame(RoutingHeader.unrouted("s", 1, "o", "d"), "t", 1,
                Map.of("a", "1", "b", "2"));
        ByteBuf wire = Unpooled.buffer();
        codec.encode(metadata, wire);
        // configs are written sorted: "a" then "b"; turn the second key into "a"
        int secondKey = ByteBufUtil.indexOf(Unpooled.wrappedBuffer(new byte[] {0, 1, 'b'}), wire);
        wire.setByte(secondKey + 2, 'a');
        assertKind(() -> codec.decode(wire), Kind.MALFORMED);
    }

    @Test
    void encodingAFrameAboveTheLimitFailsWithoutLeaking() {
        ByteBuf payload = ALLOC.buffer(5000).writeZero(5000);
        BatchFrame frame = new BatchFrame(FrameSamplesHeaders.header(), payload);
        try {
            assertThatThrownBy(() -> codec.encode(frame, ALLOC)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("exceeds the maximum of 4096");
            ByteBuf out = ALLOC.buffer().writeByte(42);
            try {
                assertThatThrownBy(() -> codec.encode(frame, out)).isInstanceOf(IllegalArgumentException.class);
                assertThat(out.readableBytes()).as("writer index restored").isEqualTo(1);
            } finally {
                out.release();
            }
            assertThat(payload.refCnt()).isEqualTo(1);
        } finally {
            frame.release();
        }
    }

    @Test
    void aBatchTravelsSenderToSinkThroughTwoRelays() {
        List<ReplicatedRecord> records = List.of(
                new ReplicatedRecord(100, 1, "k".getBytes(StandardCharsets.UTF_8),
                        "v".getBytes(StandardCharsets.UTF_8)),
                new ReplicatedRecord(101, 2, null, "w".getBytes(StandardCharsets.UTF_8)));
        RecordBatch batch = new RecordBatch("orders", 5, 99, records);
        RoutingHeader routing = RoutingHeader.unrouted("stream", 7, "sender-1", "site-b");
        BatchFrame sent = BatchFrame.copyOf(routing, new BatchEncoder().encode(batch, CompressionCodec.LZ4), 123,
                ALLOC);

        // sender -> ingress relay a1: it picks the path a1 -> b1 and forwards (header re-encoded, payload sliced)
        BatchFrame atIngress = roundTrip(sent);
        assertThat(atIngress.header().routing().isRouted()).isFalse();
        atIngress = atIngress.withRouting(atIngress.header().routing().withPath(List.of("a1:7400", "b1:7400")));
        assertThat(atIngress.header().routing().nextHop()).isEqualTo("b1:7400");
        BatchFrame atEgress = roundTrip(atIngress.withRouting(atIngress.header().routing().advance()));
        assertThat(atEgress.header().routing().isAtEgress()).isTrue();

        // egress -> subscriber; the subscriber verifies and decodes the payload and acknowledges
        BatchFrame atSink = roundTrip(atEgress);
        try {
            atSink.verifyChecksum();
            assertThat(new BatchDecoder().decode(atSink.encodedBatch())).isEqualTo(batch);
            AckFrame ack = AckFrame.ok(atSink.header());
            assertThat(ack.batchId()).isEqualTo(7);
            assertThat(ack.originNodeId()).isEqualTo("sender-1");
            assertThat(ack.lastOffset()).isEqualTo(101);
            AckFrame nack = AckFrame.nack(atSink.header(), AckReason.WRITE_FAILED, "x".repeat(5000));
            assertThat(nack.message()).hasSize(1024);
            assertThat(roundTripValue(nack)).isEqualTo(nack);
        } finally {
            atSink.release();
        }
    }

    @Test
    void aRelayCanAdvanceTheHopInTheRawFrame() {
        RoutingHeader routing = RoutingHeader.unrouted("s", 1, "o", "d").withPath(List.of("a:1", "b:2", "c:3"));
        BatchFrame frame = new BatchFrame(FrameSamplesHeaders.header().withRouting(routing),
                ALLOC.buffer().writeLong(5));
        ByteBuf wire = Unpooled.buffer();
        codec.encode(frame, wire);
        frame.release();
        ByteBuf raw = codec.readFrame(wire);
        try {
            FrameCodec.setHopIndex(raw, 2);
            Frame forwarded = codec.decode(raw.duplicate());
            assertThat(((BatchFrame) forwarded).header().routing().hopIndex()).isEqualTo(2);
            assertThat(((BatchFrame) forwarded).header().routing().isAtEgress()).isTrue();
            ReferenceCountUtil.release(forwarded);
        } finally {
            raw.release();
            wire.release();
        }
        ByteBuf ping = Unpooled.buffer();
        codec.encode(new PingFrame(1, 2), ping);
        assertThatThrownBy(() -> FrameCodec.setHopIndex(ping, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void helloNeverPrintsItsToken() {
        HelloFrame hello = HelloFrame.of(PeerRole.SENDER, "n", "s", "super-secret");
        assertThat(hello.toString()).doesNotContain("super-secret").contains("<redacted>");
        assertThat(roundTripValue(hello)).isEqualTo(hello);
    }

    private BatchFrame roundTrip(BatchFrame frame) {
        ByteBuf wire = codec.encode(frame, ALLOC);
        frame.release();
        try {
            return (BatchFrame) codec.decode(wire);
        } finally {
            wire.release();
        }
    }

    private Frame roundTripValue(Frame frame) {
        ByteBuf wire = codec.encode(frame, ALLOC);
        try {
            return codec.decode(wire);
        } finally {
            wire.release();
        }
    }

    private Frame decodeBytes(byte[] bytes) {
        ByteBuf in = Unpooled.wrappedBuffer(bytes);
        try {
            return codec.decode(in);
        } finally {
            in.release();
        }
    }

    private static void assertKind(ThrowingCallable call, Kind kind) {
        assertThatThrownBy(call).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.kind()).as(e.getMessage()).isEqualTo(kind));
    }
}
