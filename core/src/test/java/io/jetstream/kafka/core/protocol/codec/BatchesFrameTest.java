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
import io.jetstream.kafka.core.protocol.AckStatus;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.integrity.FrameSigner;
import io.jetstream.kafka.core.testing.LeakChecks;
import io.jetstream.kafka.core.wire.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BatchesFrameTest {

    private static final PooledByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
    private static final RoutingHeader UNROUTED = RoutingHeader.unrouted("stream-1", 9L << 32 | 1, "connect-a/task-0",
            "site-b");
    private static final FrameSigner SIGNER = new FrameSigner(
            "an-integrity-key-of-at-least-32-bytes".getBytes(StandardCharsets.UTF_8));

    private final FrameCodec codec = new FrameCodec(1 << 20, true);
    private final List<BatchFrame> batches = new ArrayList<>();
    private final List<RecordBatch> sent = new ArrayList<>();

    @AfterAll
    static void noBufferLeaked() {
        LeakChecks.assertNoLeaks();
    }

    @BeforeEach
    void threePartitionsOfTwoTopics() {
        try (BatchEncoder encoder = new BatchEncoder()) {
            CompressionCodec[] codecs = {CompressionCodec.ZSTD, CompressionCodec.NONE, CompressionCodec.LZ4};
            for (int p = 0; p < 3; p++) {
                List<ReplicatedRecord> records = new ArrayList<>();
                for (int i = 0; i <= p; i++) {
                    records.add(new ReplicatedRecord(100 * p + i, 1_700_000_000_000L + i, TimestampType.CREATE_TIME,
                            ("k" + i).getBytes(StandardCharsets.UTF_8), ("value " + p + "/" + i).getBytes(
                                    StandardCharsets.UTF_8), List.of()));
                }
                RecordBatch batch = new RecordBatch(p == 1 ? "payments" : "orders", p, 100 * p - 1, records);
                sent.add(batch);
                batches.add(BatchFrame.copyOf(UNROUTED, encoder.encode(batch, codecs[p]), 0, ALLOC));
            }
        }
    }

    @AfterEach
    void releaseBatches() {
        batches.forEach(BatchFrame::release);
    }

    @Test
    void sectionsRoundTripThroughBothEncodingsAndDecodeToTheBatchesThatWentIn() {
        BatchesFrame frame = SIGNER.sign(BatchesFrame.of(UNROUTED, 1_700_000_000_999L, batches, ALLOC));
        try {
            ByteBuf zeroCopy = codec.encode(frame, ALLOC);
            ByteBuf copied = Unpooled.buffer();
            codec.encode(frame, copied);
            try {
                assertThat(zeroCopy).isEqualTo(copied);
                Frame decoded = codec.decode(zeroCopy);
                try {
                    assertThat(decoded).isEqualTo(frame);
                    BatchesFrame back = (BatchesFrame) decoded;
                    assertThat(back.sectionCount()).isEqualTo(3);
                    assertThat(back.recordCount()).isEqualTo(6);
                    assertThat(SIGNER.verify(back)).isEqualTo(FrameSigner.Verdict.VALID);
                    back.verifyChecksums();
                    BatchDecoder decoder = new BatchDecoder();
                    for (int i = 0; i < 3; i++) {
                        BatchFrame section = back.section(i);
                        try {
                            BatchHeader original = batches.get(i).header();
                            assertThat(section.header()).isEqualTo(new BatchHeader(UNROUTED, original.topic(),
                                    original.partition(), original.prevOffset(), original.firstOffset(),
                                    original.lastOffset(), original.recordCount(), 1_700_000_000_999L,
                                    original.codec(), original.uncompressedSize(), original.crc32c()));
                            assertThat(section.payload()).isEqualTo(batches.get(i).payload());
                            assertThat(decoder.decode(section.encodedBatch())).isEqualTo(sent.get(i));
                        } finally {
                            section.release();
                        }
                    }
                } finally {
                    ReferenceCountUtil.release(decoded);
                }
            } finally {
                zeroCopy.release();
                copied.release();
            }
        } finally {
            frame.release();
        }
    }

    @Test
    void theMacCoversEverySectionAndTheCreationTimeButNotThePath() {
        BatchesFrame frame = SIGNER.sign(BatchesFrame.of(UNROUTED, 5, batches, ALLOC));
        try {
            BatchesFrame routed = frame.retainedDuplicate()
                    .withRouting(UNROUTED.withPath(List.of("relay-a1:7400", "relay-b2:7400")).advance());
            assertThat(SIGNER.verify(routed)).isEqualTo(FrameSigner.Verdict.VALID);
            routed.release();
            BatchesFrame later = new BatchesFrame(UNROUTED, 6, frame.sections(), frame.body().retainedDuplicate(),
                    frame.mac());
            assertThat(SIGNER.verify(later)).isEqualTo(FrameSigner.Verdict.WRONG);
            later.release();
            ByteBuf bytes = Unpooled.buffer();
            codec.encode(frame, bytes);
            // the last byte is the last section's payload: flip it
            bytes.setByte(bytes.writerIndex() - 1, bytes.getByte(bytes.writerIndex() - 1) ^ 1);
            BatchesFrame tampered = (BatchesFrame) codec.decode(bytes);
            assertThat(SIGNER.verify(tampered)).isEqualTo(FrameSigner.Verdict.WRONG);
            assertThatThrownBy(tampered::verifyChecksums).isInstanceOf(ProtocolException.class);
            tampered.release();
            bytes.release();
            BatchesFrame unsigned = BatchesFrame.of(UNROUTED, 5, batches, ALLOC);
            assertThat(SIGNER.verify(unsigned)).isEqualTo(FrameSigner.Verdict.MISSING);
            unsigned.release();
        } finally {
            frame.release();
        }
    }

    @Test
    void aRelayAdvancesTheHopOfTheRawFrame() {
        BatchesFrame frame = BatchesFrame.of(UNROUTED.withPath(List.of("a:1", "b:2", "c:3")), 5, batches, ALLOC);
        ByteBuf raw = Unpooled.buffer();
        codec.encode(frame, raw);
        frame.release();
        FrameCodec.setHopIndex(raw, 2);
        BatchesFrame decoded = (BatchesFrame) codec.decode(raw);
        assertThat(decoded.routing().isAtEgress()).isTrue();
        decoded.release();
        raw.release();
    }

    @Test
    void malformedSectionTablesAreRejectedWithoutLeaking() {
        BatchesFrame frame = BatchesFrame.of(UNROUTED, 5, batches.subList(1, 2), ALLOC);
        ByteBuf good = Unpooled.buffer();
        new FrameCodec(1 << 20).encode(frame, good);
        int bodyBytes = frame.body().readableBytes();
        frame.release();
        // after the routing block: createdAtMillis (8), sectionCount (2), then the section
        int countAt = good.writerIndex() - bodyBytes - 2;
        FrameCodec plain = new FrameCodec(1 << 20);

        ByteBuf noSections = good.copy();
        noSections.setShort(countAt, 0);
        assertKind(plain, noSections, ProtocolException.Kind.MALFORMED);

        ByteBuf moreSectionsThanBytes = good.copy();
        moreSectionsThanBytes.setShort(countAt, 2);
        assertKind(plain, moreSectionsThanBytes, ProtocolException.Kind.TRUNCATED);

        ByteBuf negativePartition = good.copy();
        int partitionAt = countAt + 2 + 2 + "payments".length();
        negativePartition.setInt(partitionAt, -3);
        assertKind(plain, negativePartition, ProtocolException.Kind.MALFORMED);

        ByteBuf payloadPastTheEnd = good.copy();
        int payloadLengthAt = partitionAt + 4 + 8 + 8 + 8 + 4 + 1 + 4 + 4;
        payloadPastTheEnd.setInt(payloadLengthAt, payloadPastTheEnd.getInt(payloadLengthAt) + 1);
        assertKind(plain, payloadPastTheEnd, ProtocolException.Kind.TRUNCATED);

        ByteBuf trailing = good.copy();
        trailing.setInt(0, trailing.getInt(0) + 1);
        trailing.writeByte(0);
        assertKind(plain, trailing, ProtocolException.Kind.MALFORMED);
        good.release();
    }

    @Test
    void theAnswersToAFrameNameItsIdItsFirstTopicAndNoPartition() {
        BatchesFrame frame = BatchesFrame.of(UNROUTED, 5, batches, ALLOC);
        AckFrame ok = AckFrame.ok(frame);
        assertThat(ok.batchId()).isEqualTo(UNROUTED.id());
        assertThat(ok.status()).isEqualTo(AckStatus.OK);
        assertThat(ok.topic()).isEqualTo("orders");
        assertThat(ok.partition()).isEqualTo(-1);
        assertThat(AckFrame.received(frame).isReceipt()).isTrue();
        assertThat(AckFrame.nack(frame, AckReason.OVERLOADED, "full").isOk()).isFalse();
        AckFrame mixed = AckFrame.mixedShares(frame, 4, "two shares");
        assertThat(mixed.reason()).isEqualTo(AckReason.MIXED_SHARES);
        assertThat(mixed.reason().retriable()).isTrue();
        assertThat(mixed.lastOffset()).isEqualTo(4);
        frame.release();
        assertThatThrownBy(() -> BatchesFrame.of(UNROUTED, 5, List.of(), ALLOC))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sections");
    }

    private static void assertKind(FrameCodec codec, ByteBuf input, ProtocolException.Kind kind) {
        try {
            assertThatThrownBy(() -> codec.decode(input)).isInstanceOf(ProtocolException.class)
                    .extracting(e -> ((ProtocolException) e).kind()).isEqualTo(kind);
            assertThat(input.refCnt()).isEqualTo(1);
        } finally {
            input.release();
        }
    }
}
