package io.jetstream.kafka.core.protocol.integrity;

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
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.FrameMac;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.core.protocol.integrity.FrameSigner.Verdict;
import io.jetstream.kafka.core.testing.LeakChecks;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.UnaryOperator;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class FrameSignerTest {

    private static final byte[] KEY = "an-integrity-key-of-at-least-32-bytes!".getBytes(StandardCharsets.UTF_8);

    private final FrameSigner signer = new FrameSigner(KEY);

    @AfterAll
    static void noBufferLeaked() {
        LeakChecks.assertNoLeaks();
    }

    private static final RoutingHeader ROUTING = RoutingHeader.unrouted("stream-1", 0x1234_5678_9ABCL, "source-3",
            "site-b");

    private static BatchHeader header() {
        return new BatchHeader(ROUTING, "orders", 7, 99, 100, 109, 10, 1_700_000_000_000L, CompressionCodec.ZSTD, 4_096,
                0xCAFEBABE);
    }

    private static byte[] payloadBytes() {
        byte[] bytes = new byte[200];
        new Random(42).nextBytes(bytes);
        return bytes;
    }

    private static BatchFrame batch(BatchHeader header, byte[] payload) {
        return new BatchFrame(header, Unpooled.wrappedBuffer(payload.clone()));
    }

    private static TopicMetadataFrame metadata() {
        Map<String, String> configs = new LinkedHashMap<>();
        configs.put("retention.ms", "604800000");
        configs.put("cleanup.policy", "delete");
        return new TopicMetadataFrame(ROUTING, "orders", 12, configs, TOPIC_ID, GENERATION);
    }

    private static final Uuid TOPIC_ID = new Uuid(0x0102_0304_0506_0708L, 0x1112_1314_1516_1718L);
    private static final long GENERATION = 1_700_000_123_456L;

    private static TopicMetadataFrame metadata(String topic, int partitions, Map<String, String> configs, Uuid topicId,
                                               long generation, FrameMac mac) {
        return new TopicMetadataFrame(ROUTING, topic, partitions, configs, topicId, generation, mac);
    }

    private static AckFrame ack() {
        return new AckFrame("stream-1", "source-3", 0x1234_5678_9ABCL, AckStatus.OK, AckReason.DUPLICATE, "orders", 7,
                109, "all written before");
    }

    private Verdict verifyBatch(BatchHeader header, byte[] payload) {
        BatchFrame frame = batch(header, payload);
        try {
            return signer.verify(frame);
        } finally {
            frame.release();
        }
    }

    @Test
    void aSignedBatchVerifiesAndAnUnsignedOneHasNoMac() {
        BatchFrame signed = signer.sign(batch(header(), payloadBytes()));
        try {
            assertThat(signed.header().mac().length()).isEqualTo(FrameMac.LENGTH);
            assertThat(signer.verify(signed)).isEqualTo(Verdict.VALID);
            assertThat(signer.verify(signed.withMac(FrameMac.NONE))).isEqualTo(Verdict.MISSING);
        } finally {
            signed.release();
        }
    }

    /**
     * A skip marker's flag and range live in its payload (version 4) and header, both covered: a relay
     * without the key can neither turn a batch into a marker (which would make the destination move
     * past records it never received) nor change a marker's range, nor make one up.
     */
    @Test
    void aSkipMarkersFlagAndRangeAreCoveredByTheMac() {
        RecordBatch refused = new RecordBatch("orders", 7, 99, List.of(
                new ReplicatedRecord(100, 1L, "k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8)),
                new ReplicatedRecord(109, 2L, null, null)));
        BatchEncoder encoder = new BatchEncoder();
        BatchFrame data = BatchFrame.copyOf(ROUTING, encoder.encode(refused, CompressionCodec.NONE), 1L,
                UnpooledByteBufAllocator.DEFAULT);
        BatchFrame marker = signer.sign(BatchFrame.copyOf(ROUTING, encoder.encode(RecordBatch.skipMarker(refused),
                CompressionCodec.NONE), 1L, UnpooledByteBufAllocator.DEFAULT));
        BatchFrame forged = new FrameSigner("another-key-of-at-least-32-bytes-long!!".getBytes(StandardCharsets.UTF_8))
                .sign(BatchFrame.copyOf(ROUTING, encoder.encode(RecordBatch.skipMarker(refused), CompressionCodec.NONE),
                        1L, UnpooledByteBufAllocator.DEFAULT));
        try {
            assertThat(signer.verify(marker)).isEqualTo(Verdict.VALID);
            byte[] markerPayload = new byte[marker.payload().readableBytes()];
            marker.payload().getBytes(marker.payload().readerIndex(), markerPayload);
            assertThat(markerPayload[0]).as("payload version 4").isEqualTo((byte) 4);
            BatchHeader markerHeader = marker.header();
            assertThat(verifyBatch(data.header().withMac(markerHeader.mac()), payloadOf(data)))
                    .as("the marker's MAC on the batch it stands for").isEqualTo(Verdict.WRONG);
            byte[] notAMarker = markerPayload.clone();
            notAMarker[0] = 3;
            assertThat(verifyBatch(markerHeader, notAMarker)).as("the flag").isEqualTo(Verdict.WRONG);
            byte[] otherRange = markerPayload.clone();
            otherRange[otherRange.length - 1] = 9;
            assertThat(verifyBatch(markerHeader, otherRange)).as("the skipped record count").isEqualTo(Verdict.WRONG);
            BatchHeader otherLast = new BatchHeader(markerHeader.routing(), "orders", 7, 99, 100, 120, 0,
                    markerHeader.createdAtMillis(), markerHeader.codec(), markerHeader.uncompressedSize(),
                    markerHeader.crc32c(), markerHeader.mac());
            assertThat(verifyBatch(otherLast, markerPayload))
                    .as("the last offset").isEqualTo(Verdict.WRONG);
            assertThat(signer.verify(forged)).as("a marker made up without the key").isEqualTo(Verdict.WRONG);
        } finally {
            data.release();
            marker.release();
            forged.release();
        }
    }

    private static byte[] payloadOf(BatchFrame frame) {
        byte[] bytes = new byte[frame.payload().readableBytes()];
        frame.payload().getBytes(frame.payload().readerIndex(), bytes);
        return bytes;
    }

    /** The canonical input, written out independently: label and fields, strings and payload length-prefixed. */
    @Test
    void theBatchMacIsHmacSha256OfTheLabelAndEachFieldInItsCanonicalEncoding() throws Exception {
        byte[] payload = payloadBytes();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        string(out, "jetstream/batch/v1");
        string(out, "stream-1");
        string(out, "source-3");
        string(out, "site-b");
        out.writeLong(0x1234_5678_9ABCL);
        string(out, "orders");
        out.writeInt(7);
        out.writeLong(99);
        out.writeLong(100);
        out.writeLong(109);
        out.writeInt(10);
        out.writeLong(1_700_000_000_000L);
        out.writeByte(CompressionCodec.ZSTD.id());
        out.writeInt(4_096);
        out.writeInt(0xCAFEBABE);
        out.writeInt(payload.length);
        out.write(payload);
        Mac hmac = Mac.getInstance("HmacSHA256");
        hmac.init(new SecretKeySpec(KEY, "HmacSHA256"));

        BatchFrame frame = batch(header(), payload);
        try {
            assertThat(signer.mac(frame.header(), frame.payload()).bytes()).isEqualTo(hmac.doFinal(bytes.toByteArray()));
        } finally {
            frame.release();
        }
    }

    /** The metadata's canonical input, written out independently; the generation and topic id are covered. */
    @Test
    void theMetadataMacIsHmacSha256OfTheLabelAndEachFieldInItsCanonicalEncoding() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        string(out, "jetstream/topic-metadata/v2");
        string(out, "stream-1");
        string(out, "source-3");
        string(out, "site-b");
        out.writeLong(ROUTING.id());
        string(out, "orders");
        out.writeInt(12);
        out.writeLong(0x0102_0304_0506_0708L);
        out.writeLong(0x1112_1314_1516_1718L);
        out.writeLong(GENERATION);
        out.writeInt(2);
        string(out, "cleanup.policy");
        string(out, "delete");
        string(out, "retention.ms");
        string(out, "604800000");
        Mac hmac = Mac.getInstance("HmacSHA256");
        hmac.init(new SecretKeySpec(KEY, "HmacSHA256"));

        assertThat(signer.mac(metadata()).bytes()).isEqualTo(hmac.doFinal(bytes.toByteArray()));
    }

    private static void string(DataOutputStream out, String value) throws IOException {
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        out.writeInt(utf8.length);
        out.write(utf8);
    }

    @Test
    void changingAnyCoveredHeaderFieldBreaksTheMac() {
        BatchHeader original = header();
        byte[] payload = payloadBytes();
        FrameMac mac = signer.mac(original, Unpooled.wrappedBuffer(payload));
        Map<String, UnaryOperator<BatchHeader>> changes = new LinkedHashMap<>();
        changes.put("streamId", h -> h.withRouting(new RoutingHeader("stream-2", ROUTING.id(), "source-3", "site-b",
                List.of(), 0)));
        changes.put("originNodeId", h -> h.withRouting(RoutingHeader.unrouted("stream-1", ROUTING.id(), "source-4",
                "site-b")));
        changes.put("destination", h -> h.withRouting(RoutingHeader.unrouted("stream-1", ROUTING.id(), "source-3",
                "site-c")));
        changes.put("batch id", h -> h.withRouting(RoutingHeader.unrouted("stream-1", ROUTING.id() + 1, "source-3",
                "site-b")));
        changes.put("topic", h -> copy(h, "orderz", h.partition(), h.prevOffset(), h.firstOffset(), h.lastOffset(),
                h.recordCount(), h.createdAtMillis(), h.codec(), h.uncompressedSize(), h.crc32c()));
        changes.put("partition", h -> copy(h, h.topic(), 8, h.prevOffset(), h.firstOffset(), h.lastOffset(),
                h.recordCount(), h.createdAtMillis(), h.codec(), h.uncompressedSize(), h.crc32c()));
        changes.put("prevOffset", h -> copy(h, h.topic(), h.partition(), 1_000_000, h.firstOffset(), h.lastOffset(),
                h.recordCount(), h.createdAtMillis(), h.codec(), h.uncompressedSize(), h.crc32c()));
        changes.put("firstOffset", h -> copy(h, h.topic(), h.partition(), h.prevOffset(), 101, h.lastOffset(),
                h.recordCount(), h.createdAtMillis(), h.codec(), h.uncompressedSize(), h.crc32c()));
        changes.put("lastOffset", h -> copy(h, h.topic(), h.partition(), h.prevOffset(), h.firstOffset(), 1 << 40,
                h.recordCount(), h.createdAtMillis(), h.codec(), h.uncompressedSize(), h.crc32c()));
        changes.put("recordCount", h -> copy(h, h.topic(), h.partition(), h.prevOffset(), h.firstOffset(),
                h.lastOffset(), 9, h.createdAtMillis(), h.codec(), h.uncompressedSize(), h.crc32c()));
        changes.put("createdAtMillis", h -> copy(h, h.topic(), h.partition(), h.prevOffset(), h.firstOffset(),
                h.lastOffset(), h.recordCount(), h.createdAtMillis() + 1, h.codec(), h.uncompressedSize(),
                h.crc32c()));
        changes.put("codec", h -> copy(h, h.topic(), h.partition(), h.prevOffset(), h.firstOffset(), h.lastOffset(),
                h.recordCount(), h.createdAtMillis(), CompressionCodec.LZ4, h.uncompressedSize(), h.crc32c()));
        changes.put("uncompressedSize", h -> copy(h, h.topic(), h.partition(), h.prevOffset(), h.firstOffset(),
                h.lastOffset(), h.recordCount(), h.createdAtMillis(), h.codec(), 4_097, h.crc32c()));
        changes.put("crc32c", h -> copy(h, h.topic(), h.partition(), h.prevOffset(), h.firstOffset(), h.lastOffset(),
                h.recordCount(), h.createdAtMillis(), h.codec(), h.uncompressedSize(), h.crc32c() ^ 1));

        changes.forEach((field, change) -> {
            BatchHeader forged = change.apply(original).withMac(mac);
            assertThat(forged).as(field).isNotEqualTo(original.withMac(mac));
            assertThat(verifyBatch(forged, payload)).as("%s changed", field).isEqualTo(Verdict.WRONG);
        });
        assertThat(verifyBatch(original.withMac(mac), payload)).isEqualTo(Verdict.VALID);
    }

    private static BatchHeader copy(BatchHeader h, String topic, int partition, long prev, long first, long last,
                                    int count, long createdAt, CompressionCodec codec, int size, int crc) {
        return new BatchHeader(h.routing(), topic, partition, prev, first, last, count, createdAt, codec, size, crc);
    }

    @Test
    void anyPayloadByteChangedOrAByteAddedOrRemovedBreaksTheMac() {
        byte[] payload = payloadBytes();
        BatchHeader signed = header().withMac(signer.mac(header(), Unpooled.wrappedBuffer(payload)));
        for (int i = 0; i < payload.length; i++) {
            byte[] flipped = payload.clone();
            flipped[i] ^= (byte) (1 << (i % 8));
            assertThat(verifyBatch(signed, flipped)).as("byte %d flipped", i).isEqualTo(Verdict.WRONG);
        }
        assertThat(verifyBatch(signed, java.util.Arrays.copyOf(payload, payload.length + 1))).isEqualTo(Verdict.WRONG);
        assertThat(verifyBatch(signed, java.util.Arrays.copyOf(payload, payload.length - 1))).isEqualTo(Verdict.WRONG);
    }

    @Test
    void relaysChoosingThePathAndAdvancingTheHopLeaveTheMacValid() {
        BatchFrame signed = signer.sign(batch(header(), payloadBytes()));
        BatchFrame routed = signed.withRouting(signed.header().routing().withPath(List.of("a1", "b1:7400", "c1:7400")));
        BatchFrame forwarded = routed.withRouting(routed.header().routing().advance().advance());
        try {
            assertThat(forwarded.header().routing().isAtEgress()).isTrue();
            assertThat(signer.verify(forwarded)).isEqualTo(Verdict.VALID);
            TopicMetadataFrame metadata = signer.sign(metadata());
            TopicMetadataFrame metadataAtEgress = metadata.withRouting(metadata.routing().withPath(List.of("a1")));
            assertThat(signer.verify(metadataAtEgress)).isEqualTo(Verdict.VALID);
        } finally {
            forwarded.release();
        }
    }

    @Test
    void anotherKeyFindsEveryMacWrong() {
        FrameSigner other = new FrameSigner("another-integrity-key-of-32-bytes-at-least".getBytes(StandardCharsets.UTF_8));
        BatchFrame signed = signer.sign(batch(header(), payloadBytes()));
        try {
            assertThat(other.verify(signed)).isEqualTo(Verdict.WRONG);
            assertThat(other.verify(signer.sign(metadata()))).isEqualTo(Verdict.WRONG);
            assertThat(other.verify(signer.sign(ack()))).isEqualTo(Verdict.WRONG);
        } finally {
            signed.release();
        }
    }

    @Test
    void changingAnyCoveredMetadataFieldBreaksTheMac() {
        TopicMetadataFrame signed = signer.sign(metadata());
        assertThat(signer.verify(signed)).isEqualTo(Verdict.VALID);
        assertThat(signer.verify(metadata())).isEqualTo(Verdict.MISSING);
        Map<String, String> fewer = new LinkedHashMap<>(signed.configs());
        fewer.remove("retention.ms");
        Map<String, String> changed = new LinkedHashMap<>(signed.configs());
        changed.put("retention.ms", "1");
        Map<String, String> more = new LinkedHashMap<>(signed.configs());
        more.put("min.insync.replicas", "2");
        Map<String, String> renamed = new LinkedHashMap<>(fewer);
        renamed.put("retention.bytes", "604800000");
        Map<String, TopicMetadataFrame> forgeries = new LinkedHashMap<>();
        forgeries.put("streamId", new TopicMetadataFrame(RoutingHeader.unrouted("stream-2", ROUTING.id(), "source-3",
                "site-b"), "orders", 12, signed.configs(), TOPIC_ID, GENERATION, signed.mac()));
        forgeries.put("originNodeId", signed.withRouting(RoutingHeader.unrouted("stream-1", ROUTING.id(), "source-9",
                "site-b")));
        forgeries.put("destination", signed.withRouting(RoutingHeader.unrouted("stream-1", ROUTING.id(), "source-3",
                "site-x")));
        forgeries.put("metadata id", signed.withRouting(RoutingHeader.unrouted("stream-1", 1, "source-3", "site-b")));
        forgeries.put("topic", metadata("payments", 12, signed.configs(), TOPIC_ID, GENERATION, signed.mac()));
        forgeries.put("partitionCount", metadata("orders", 1_000, signed.configs(), TOPIC_ID, GENERATION, signed.mac()));
        forgeries.put("topicId", metadata("orders", 12, signed.configs(), Uuid.randomUuid(), GENERATION, signed.mac()));
        forgeries.put("generation (an old description made to look new)", metadata("orders", 12, signed.configs(),
                TOPIC_ID, GENERATION + 60_000, signed.mac()));
        forgeries.put("a config removed", signed.withConfigs(fewer));
        forgeries.put("a config changed", signed.withConfigs(changed));
        forgeries.put("a config added", signed.withConfigs(more));
        forgeries.put("a config renamed", signed.withConfigs(renamed));
        forgeries.forEach((what, forged) -> assertThat(signer.verify(forged)).as(what).isEqualTo(Verdict.WRONG));
    }

    @Test
    void changingAnyCoveredAckFieldBreaksTheMacButTheMessageIsFree() {
        AckFrame signed = signer.sign(ack());
        assertThat(signer.verify(signed)).isEqualTo(Verdict.VALID);
        assertThat(signer.verify(ack())).isEqualTo(Verdict.MISSING);
        FrameMac mac = signed.mac();
        Map<String, AckFrame> forgeries = new LinkedHashMap<>();
        forgeries.put("streamId", new AckFrame("stream-2", "source-3", ROUTING.id(), AckStatus.OK, AckReason.DUPLICATE,
                "orders", 7, 109, "", mac));
        forgeries.put("originNodeId", new AckFrame("stream-1", "source-4", ROUTING.id(), AckStatus.OK,
                AckReason.DUPLICATE, "orders", 7, 109, "", mac));
        forgeries.put("batchId", new AckFrame("stream-1", "source-3", ROUTING.id() + 1, AckStatus.OK,
                AckReason.DUPLICATE, "orders", 7, 109, "", mac));
        forgeries.put("status and reason", new AckFrame("stream-1", "source-3", ROUTING.id(), AckStatus.NACK,
                AckReason.OBSOLETE_INCARNATION, "orders", 7, 109, "", mac));
        forgeries.put("reason", new AckFrame("stream-1", "source-3", ROUTING.id(), AckStatus.OK, AckReason.NONE,
                "orders", 7, 109, "", mac));
        forgeries.put("topic", new AckFrame("stream-1", "source-3", ROUTING.id(), AckStatus.OK, AckReason.DUPLICATE,
                "orderz", 7, 109, "", mac));
        forgeries.put("partition", new AckFrame("stream-1", "source-3", ROUTING.id(), AckStatus.OK,
                AckReason.DUPLICATE, "orders", 6, 109, "", mac));
        forgeries.put("lastOffset", new AckFrame("stream-1", "source-3", ROUTING.id(), AckStatus.OK,
                AckReason.DUPLICATE, "orders", 7, 1_000_000, "", mac));
        forgeries.forEach((what, forged) -> assertThat(signer.verify(forged)).as(what).isEqualTo(Verdict.WRONG));
        AckFrame otherMessage = new AckFrame("stream-1", "source-3", ROUTING.id(), AckStatus.OK, AckReason.DUPLICATE,
                "orders", 7, 109, "a relay may cut or reword the message", mac);
        assertThat(signer.verify(otherMessage)).isEqualTo(Verdict.VALID);
    }

    @Test
    void fieldBoundariesCannotBeShiftedBetweenAdjacentStrings() {
        AckFrame one = new AckFrame("ab", "c", 1, AckStatus.OK, AckReason.NONE, "t", 0, 0, "");
        AckFrame other = new AckFrame("a", "bc", 1, AckStatus.OK, AckReason.NONE, "t", 0, 0, "");
        assertThat(signer.mac(one)).isNotEqualTo(signer.mac(other));
        assertThat(signer.verify(other.withMac(signer.mac(one)))).isEqualTo(Verdict.WRONG);
    }

    @Test
    void aMacOfOneKindOfFrameDoesNotVerifyAnother() {
        TopicMetadataFrame metadata = new TopicMetadataFrame(ROUTING, "orders", 12, Map.of());
        AckFrame ack = new AckFrame("stream-1", "source-3", ROUTING.id(), AckStatus.OK, AckReason.NONE, "orders", 12,
                0, "");
        assertThat(signer.verify(ack.withMac(signer.mac(metadata)))).isEqualTo(Verdict.WRONG);
        assertThat(signer.verify(metadata.withMac(signer.mac(ack)))).isEqualTo(Verdict.WRONG);
    }

    @Test
    void thePayloadIsReadInPlaceWhateverKindOfBufferHoldsIt() {
        byte[] payload = payloadBytes();
        FrameMac expected = signer.mac(header(), Unpooled.wrappedBuffer(payload));
        ByteBuf direct = PooledByteBufAllocator.DEFAULT.directBuffer(payload.length + 16);
        direct.writeBytes(new byte[16]).skipBytes(16).writeBytes(payload);
        CompositeByteBuf composite = PooledByteBufAllocator.DEFAULT.compositeBuffer();
        composite.addComponent(true, Unpooled.wrappedBuffer(payload, 0, 50));
        composite.addComponent(true, PooledByteBufAllocator.DEFAULT.directBuffer().writeBytes(payload, 50, 150));
        try {
            for (ByteBuf buffer : List.of(direct, composite)) {
                int readerIndex = buffer.readerIndex();
                int refCnt = buffer.refCnt();
                assertThat(signer.mac(header(), buffer)).as(buffer.toString()).isEqualTo(expected);
                assertThat(buffer.readerIndex()).isEqualTo(readerIndex);
                assertThat(buffer.refCnt()).isEqualTo(refCnt);
            }
        } finally {
            direct.release();
            composite.release();
        }
    }

    @Test
    void aKeyShorterThan32BytesIsRefusedWithoutShowingIt() {
        assertThatThrownBy(() -> FrameSigner.ofSecret("short-but-secret-key-31-bytes!!"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 32 bytes")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("short-but-secret"));
        assertThat(FrameSigner.ofSecret("x".repeat(32))).hasToString("FrameSigner[HmacSHA256, key <redacted>]");
    }

    @Test
    void threadsSigningAtOnceEachGetTheRightMacs() throws Exception {
        List<AckFrame> acks = new ArrayList<>();
        List<FrameMac> expected = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            AckFrame ack = new AckFrame("stream-1", "source-3", i, AckStatus.OK, AckReason.NONE, "orders", i % 16, i, "");
            acks.add(ack);
            expected.add(signer.mac(ack));
        }
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<List<FrameMac>>> results = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                results.add(threads.submit(() -> acks.stream().map(signer::mac).toList()));
            }
            for (Future<List<FrameMac>> result : results) {
                assertThat(result.get()).isEqualTo(expected);
            }
        } finally {
            threads.shutdownNow();
        }
    }
}
