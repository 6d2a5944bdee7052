package io.jetstream.kafka.core.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.core.batch.BatchEncoder;
import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.AckStatus;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.FrameMac;
import io.jetstream.kafka.core.protocol.HelloFrame;
import io.jetstream.kafka.core.protocol.HelloOkFrame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.core.protocol.integrity.FrameSigner;
import io.jetstream.kafka.core.testing.LeakChecks;
import io.jetstream.kafka.core.wire.ProtocolException;
import io.jetstream.kafka.core.wire.ProtocolException.Kind;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The two layouts of BATCH, TOPIC_METADATA and ACK: without the {@code mac} field (the protocol as
 * it was) and with it (HELLO flag FLAG_MACS agreed), and a relay's two ways of forwarding a frame
 * (re-encoded header, raw bytes with the hop rewritten), which must both keep the MAC.
 */
class FrameCodecMacFieldsTest {

    private static final PooledByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
    private static final FrameSigner SIGNER = FrameSigner.ofSecret("k".repeat(FrameSigner.MIN_KEY_BYTES));

    private final FrameCodec plain = new FrameCodec();
    private final FrameCodec withMacs = plain.withMacs(true);

    @AfterAll
    static void noBufferLeaked() {
        LeakChecks.assertNoLeaks();
    }

    private static BatchFrame signedBatch() {
        RecordBatch batch = new RecordBatch("orders", 3, 99, List.of(
                new ReplicatedRecord(100, 1, "k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8)),
                new ReplicatedRecord(101, 2, null, "w".getBytes(StandardCharsets.UTF_8))));
        BatchFrame frame = BatchFrame.copyOf(RoutingHeader.unrouted("stream", 7, "sender-1", "site-b"),
                new BatchEncoder().encode(batch, CompressionCodec.LZ4), 123, ALLOC);
        return SIGNER.sign(frame);
    }

    private static TopicMetadataFrame signedMetadata() {
        return SIGNER.sign(new TopicMetadataFrame(RoutingHeader.unrouted("stream", 8, "sender-1", "site-b"), "orders",
                6, Map.of("cleanup.policy", "compact", "retention.ms", "-1"), org.apache.kafka.common.Uuid.randomUuid(),
                1_700_000_000_000L));
    }

    private static byte[] bytes(FrameCodec codec, Frame frame) {
        ByteBuf out = Unpooled.buffer();
        try {
            codec.encode(frame, out);
            return ByteBufUtil.getBytes(out);
        } finally {
            out.release();
        }
    }

    private static Frame decode(FrameCodec codec, byte[] bytes) {
        ByteBuf in = Unpooled.wrappedBuffer(bytes);
        try {
            return codec.decode(in);
        } finally {
            in.release();
        }
    }

    @Test
    void withTheMacFieldsEachRoutedFrameAndAckRoundTripsWithAndWithoutAMac() {
        BatchFrame batch = signedBatch();
        TopicMetadataFrame metadata = signedMetadata();
        AckFrame ack = SIGNER.sign(AckFrame.ok(batch.header()));
        try {
            for (Frame frame : List.of(batch, metadata, ack, batch.withMac(FrameMac.NONE).retain(),
                    metadata.withMac(FrameMac.NONE), ack.withMac(FrameMac.NONE))) {
                Frame decoded = decode(withMacs, bytes(withMacs, frame));
                try {
                    assertThat(decoded).as(frame.toString()).isEqualTo(frame);
                } finally {
                    ReferenceCountUtil.release(decoded);
                }
            }
            assertThat(bytes(withMacs, ack).length - bytes(plain, ack).length).as("length byte and 32 MAC bytes")
                    .isEqualTo(1 + FrameMac.LENGTH);
            assertThat(bytes(withMacs, ack.withMac(FrameMac.NONE)).length - bytes(plain, ack).length)
                    .as("an empty MAC costs its length byte").isEqualTo(1);
        } finally {
            batch.release(2);
        }
    }

    @Test
    void withoutTheMacFieldsTheBytesAreThoseOfTheProtocolBeforeThemAndTheMacIsDropped() {
        BatchFrame batch = signedBatch();
        try {
            TopicMetadataFrame metadata = signedMetadata();
            AckFrame ack = SIGNER.sign(AckFrame.nack(batch.header(), AckReason.NOT_AUTHORIZED, "no"));
            assertThat(bytes(plain, batch)).isEqualTo(bytes(plain, new BatchFrame(
                    batch.header().withMac(FrameMac.NONE), batch.payload())));
            assertThat(bytes(plain, metadata)).isEqualTo(bytes(plain, new TopicMetadataFrame(metadata.routing(),
                    metadata.topic(), metadata.partitionCount(), metadata.configs(), metadata.topicId(),
                    metadata.generation())));
            assertThat(bytes(plain, ack)).isEqualTo(bytes(plain, new AckFrame(ack.streamId(), ack.originNodeId(),
                    ack.batchId(), ack.status(), ack.reason(), ack.topic(), ack.partition(), ack.lastOffset(),
                    ack.message())));
            assertThat(((AckFrame) decode(plain, bytes(plain, ack))).mac()).isEqualTo(FrameMac.NONE);
            Frame decoded = decode(plain, bytes(plain, batch));
            assertThat(((BatchFrame) decoded).header().mac()).isEqualTo(FrameMac.NONE);
            assertThat(((BatchFrame) decoded).payload()).isEqualTo(batch.payload());
            ReferenceCountUtil.release(decoded);
        } finally {
            batch.release();
        }
    }

    @Test
    void aMacLengthOtherThanZeroOr32IsMalformedAndAShortMacTruncated() {
        AckFrame ack = SIGNER.sign(new AckFrame("s", "o", 1, AckStatus.OK, AckReason.NONE, "t", 0, 5, ""));
        byte[] wire = bytes(withMacs, ack);
        int macLengthAt = wire.length - 1 - FrameMac.LENGTH;
        assertThat(wire[macLengthAt]).isEqualTo((byte) FrameMac.LENGTH);

        byte[] sixteen = Arrays.copyOf(wire, wire.length - 16);
        sixteen[macLengthAt] = 16;
        ByteBuffer.wrap(sixteen).putInt(0, sixteen.length - 4);
        assertKind(() -> decode(withMacs, sixteen), Kind.MALFORMED);

        byte[] shortMac = Arrays.copyOf(wire, wire.length - 1);
        ByteBuffer.wrap(shortMac).putInt(0, shortMac.length - 4); // a complete frame whose MAC is cut
        assertKind(() -> decode(withMacs, shortMac), Kind.TRUNCATED);

        assertKind(() -> decode(plain, wire), Kind.MALFORMED); // a v1 decoder sees 33 bytes too many
    }

    @Test
    void aRelayForwardingTheDecodedFrameKeepsTheMacAndItStillVerifiesOnTheNewPath() {
        BatchFrame sent = signedBatch();
        FrameMac mac = sent.header().mac();
        ByteBuf wire = withMacs.encode(sent, ALLOC);
        sent.release();
        BatchFrame atIngress = (BatchFrame) withMacs.decode(wire);
        wire.release();
        BatchFrame routed = atIngress.withRouting(atIngress.header().routing().withPath(List.of("a1", "b1:7400")));
        BatchFrame forwarded = routed.withRouting(routed.header().routing().advance());
        ByteBuf next = withMacs.encode(forwarded, ALLOC);
        forwarded.release();
        BatchFrame atEgress = (BatchFrame) withMacs.decode(next);
        next.release();
        try {
            assertThat(atEgress.header().routing().isAtEgress()).isTrue();
            assertThat(atEgress.header().mac()).isEqualTo(mac);
            assertThat(SIGNER.verify(atEgress)).isEqualTo(FrameSigner.Verdict.VALID);
        } finally {
            atEgress.release();
        }
    }

    @Test
    void aRelayForwardingTheRawFrameWithItsHopRewrittenKeepsTheMac() {
        BatchFrame sent = signedBatch();
        BatchFrame routed = sent.withRouting(sent.header().routing().withPath(List.of("a1", "b1:7400", "c1:7400")));
        ByteBuf wire = Unpooled.buffer();
        withMacs.encode(routed, wire);
        TopicMetadataFrame metadata = signedMetadata();
        withMacs.encode(metadata.withRouting(metadata.routing().withPath(List.of("a1", "b1:7400"))), wire);
        ByteBuf rawBatch = withMacs.readFrame(wire);
        ByteBuf rawMetadata = withMacs.readFrame(wire);
        try {
            FrameCodec.setHopIndex(rawBatch, 2);
            FrameCodec.setHopIndex(rawMetadata, 1);
            BatchFrame atEgress = (BatchFrame) withMacs.decode(rawBatch.duplicate());
            TopicMetadataFrame metadataAtEgress = (TopicMetadataFrame) withMacs.decode(rawMetadata.duplicate());
            assertThat(atEgress.header().routing().hopIndex()).isEqualTo(2);
            assertThat(atEgress.header().mac()).isEqualTo(routed.header().mac());
            assertThat(SIGNER.verify(atEgress)).isEqualTo(FrameSigner.Verdict.VALID);
            assertThat(metadataAtEgress.routing().isAtEgress()).isTrue();
            assertThat(SIGNER.verify(metadataAtEgress)).isEqualTo(FrameSigner.Verdict.VALID);
            atEgress.release();
        } finally {
            rawBatch.release();
            rawMetadata.release();
            wire.release();
            routed.release();
        }
    }

    @Test
    void theMacFlagIsOfferedInHelloAndTakenInHelloOk() {
        HelloFrame offer = HelloFrame.of(PeerRole.SENDER, "n", "s", "t").withReceipts().withMacs();
        assertThat(offer.offersMacs()).isTrue();
        assertThat(offer.wantsReceipts()).isTrue();
        assertThat(decode(plain, bytes(plain, offer))).isEqualTo(offer);
        HelloOkFrame taken = HelloOkFrame.answering(offer, "relay", 4096);
        assertThat(taken.macs()).isTrue();
        assertThat(taken.flags()).as("receipts are not a HELLO_OK flag").isEqualTo(HelloFrame.FLAG_MACS);
        assertThat(decode(plain, bytes(plain, taken))).isEqualTo(taken);
        assertThat(HelloOkFrame.answering(HelloFrame.of(PeerRole.SENDER, "n", "s", "t"), "relay", 4096).macs())
                .as("never taken unless offered").isFalse();
        assertThat(HelloOkFrame.of("relay", 4096).macs()).as("a relay built before the flag").isFalse();
    }

    private static void assertKind(ThrowingCallable call, Kind kind) {
        assertThatThrownBy(call).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.kind()).as(e.getMessage()).isEqualTo(kind));
    }
}
