package io.jetstream.kafka.core.protocol.codec;

import io.jetstream.kafka.core.batch.BatchEncoder;
import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.RecordHeader;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.AckStatus;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.FrameMac;
import io.jetstream.kafka.core.protocol.HelloFrame;
import io.jetstream.kafka.core.protocol.HelloOkFrame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.PingFrame;
import io.jetstream.kafka.core.protocol.PongFrame;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.SubscribeFrame;
import io.jetstream.kafka.core.protocol.SubscribeOkFrame;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.core.testing.ProtocolArbitraries;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.record.TimestampType;

/** A deterministic corpus of valid encoded frames of every type, the seeds the fuzzers mutate. */
final class FrameSamples {

    private FrameSamples() {
    }

    /** Encoded frames (length prefix included), at least two of each type. */
    static List<byte[]> encodedCorpus() {
        return encode(new FrameCodec(), frames());
    }

    /**
     * The same frames in the layouts with a {@code mac} field (HELLO flag FLAG_MACS taken): every
     * other BATCH, TOPIC_METADATA and ACK with a 32-byte MAC, the rest with an empty one.
     */
    static List<byte[]> encodedCorpusWithMacs() {
        Random random = new Random(12);
        List<Frame> frames = new ArrayList<>();
        int i = 0;
        for (Frame frame : frames()) {
            byte[] bytes = new byte[FrameMac.LENGTH];
            random.nextBytes(bytes);
            FrameMac mac = i++ % 2 == 0 ? FrameMac.of(bytes) : FrameMac.NONE;
            if (frame instanceof BatchFrame batch) {
                frames.add(batch.withMac(mac));
            } else if (frame instanceof BatchesFrame batches) {
                frames.add(batches.withMac(mac));
            } else if (frame instanceof AckFrame ack) {
                frames.add(ack.withMac(mac));
            } else if (frame instanceof TopicMetadataFrame metadata) {
                frames.add(metadata.withMac(mac));
            } else {
                frames.add(frame);
            }
        }
        return encode(new FrameCodec().withMacs(true), frames);
    }

    private static List<byte[]> encode(FrameCodec codec, List<Frame> frames) {
        List<byte[]> corpus = new ArrayList<>();
        for (Frame frame : frames) {
            ByteBuf out = Unpooled.buffer();
            codec.encode(frame, out);
            byte[] bytes = new byte[out.readableBytes()];
            out.readBytes(bytes);
            corpus.add(bytes);
            ReferenceCountUtil.release(frame);
        }
        return corpus;
    }

    /** The frames of the corpus; the caller releases the BATCH frames. */
    static List<Frame> frames() {
        Random random = new Random(2024);
        RoutingHeader unrouted = RoutingHeader.unrouted("stream-1", 77L << 32 | 5, "connect-a/task-0", "site-b");
        RoutingHeader routed = unrouted.withPath(List.of("relay-a1:7400", "relay-c1:7400", "relay-b1:7400")).advance();
        List<Frame> frames = new ArrayList<>();
        frames.add(HelloFrame.of(PeerRole.SENDER, "connect-a/task-0", "stream-1", "s3cr3t-token"));
        frames.add(new HelloFrame(3, PeerRole.RELAY, 0xFFFF, "relay-ä1", "", ""));
        frames.add(HelloOkFrame.of("relay-a1", 16 << 20));
        frames.add(new HelloOkFrame(3, 3, "ŕelay", 1));
        frames.add(new AckFrame("stream-1", "connect-a/task-0", 42, AckStatus.OK,
                AckReason.NONE, "orders", 3, 1234, ""));
        frames.add(new AckFrame("stream-1", "connect-a/task-0", 43, AckStatus.RECEIVED,
                AckReason.NONE, "orders", 3, 1300, ""));
        frames.add(new AckFrame("stream-1", "o", -1, AckStatus.NACK,
                AckReason.NO_SUBSCRIBER, "orders", 0, -1, "nobody owns orders-0 at relay-b1 ✓"));
        frames.add(new SubscribeFrame("stream-1", "connect-b/task-2", 2, 3));
        frames.add(new SubscribeFrame("s", "t", 65534, 65535));
        frames.add(new SubscribeFrame("stream-1", "connect-b/task-2", 0, 1, 1_764_470_000_000L));
        frames.add(new SubscribeFrame("s", "t", 0, 1, Long.MAX_VALUE));
        frames.add(new SubscribeOkFrame("stream-1", 0, 1));
        frames.add(new SubscribeOkFrame("stream-1", 4, 5));
        frames.add(new PingFrame(1, 123456789));
        frames.add(new PingFrame(Long.MIN_VALUE, -1));
        frames.add(new PongFrame(2, 987654321));
        frames.add(new PongFrame(Long.MAX_VALUE, 0));
        frames.add(new TopicMetadataFrame(unrouted, "orders", 6, Map.of("cleanup.policy", "compact",
                "retention.ms", "604800000", "compression.type", "zstd")));
        frames.add(new TopicMetadataFrame(routed, "t", 1, Map.of()));
        frames.add(new TopicMetadataFrame(routed, "orders", 6, Map.of("retention.ms", "3600000"),
                new org.apache.kafka.common.Uuid(-1L, 42L), Long.MAX_VALUE));
        frames.add(ErrorFrame.of(ErrorCode.UNSUPPORTED_VERSION, "HELLO version 7 is not supported (supported: 3)"));
        frames.add(new ErrorFrame(ErrorCode.INTERNAL_ERROR, ""));
        BatchEncoder encoder = new BatchEncoder();
        List<ReplicatedRecord> records = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            records.add(new ReplicatedRecord(500 + i, 1_700_000_000_000L + i, TimestampType.CREATE_TIME,
                    i == 0 ? null : ProtocolArbitraries.letters(random, 6), ProtocolArbitraries.letters(random, 40),
                    i % 2 == 0 ? List.of() : List.of(new RecordHeader("trace-id", new byte[] {(byte) i}))));
        }
        RecordBatch batch = new RecordBatch("orders", 4, 499, records);
        for (CompressionCodec compression : CompressionCodec.values()) {
            RoutingHeader routing = compression.ordinal() % 2 == 0 ? unrouted : routed;
            frames.add(BatchFrame.copyOf(routing, encoder.encode(batch, compression), 1_700_000_000_123L,
                    UnpooledByteBufAllocator.DEFAULT));
        }
        frames.add(BatchFrame.copyOf(unrouted, encoder.encode(new RecordBatch("empty", 0, 10, List.of()),
                CompressionCodec.NONE), 0, UnpooledByteBufAllocator.DEFAULT));
        // BATCHES: three partitions with different codecs, and a single empty section, routed.
        List<BatchFrame> sections = new ArrayList<>();
        CompressionCodec[] codecs = CompressionCodec.values();
        for (int p = 0; p < 3; p++) {
            sections.add(BatchFrame.copyOf(unrouted, encoder.encode(new RecordBatch(p == 2 ? "payments" : "orders", p,
                    499, records.subList(0, 2 + p)), codecs[p % codecs.length]), 0, UnpooledByteBufAllocator.DEFAULT));
        }
        frames.add(BatchesFrame.of(unrouted, 1_700_000_000_456L, sections, UnpooledByteBufAllocator.DEFAULT));
        sections.forEach(BatchFrame::release);
        BatchFrame empty = BatchFrame.copyOf(unrouted, encoder.encode(new RecordBatch("empty", 7, 10, List.of()),
                CompressionCodec.NONE), 0, UnpooledByteBufAllocator.DEFAULT);
        frames.add(BatchesFrame.of(routed, 0, List.of(empty), UnpooledByteBufAllocator.DEFAULT));
        empty.release();
        return frames;
    }
}
