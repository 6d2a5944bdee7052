package io.jetstream.kafka.core.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.core.wire.ProtocolException;
import io.jetstream.kafka.core.wire.ProtocolException.Kind;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.TimestampType;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** Each integrity check of the decoder, with the kind it reports. */
class BatchDecoderTest {

    private final BatchEncoder encoder = new BatchEncoder();
    private final BatchDecoder decoder = new BatchDecoder(new BatchLimits(1 << 20, 1_000, 100));

    private final RecordBatch batch = new RecordBatch("orders", 2, 9, List.of(
            new ReplicatedRecord(10, 1000, "a".getBytes(), "x".getBytes()),
            new ReplicatedRecord(11, 1001, "b".getBytes(), "y".getBytes())));

    /**
     * Payloads of versions 1 and 2 as the encoder wrote them before version 3 (golden bytes, codec
     * none). Only senders of frame protocol 1 wrote them, and every peer refuses that protocol at
     * HELLO: on a protocol-2 connection such a payload is a relay's replay of a frame it once
     * carried (its MAC still valid), and without a topic id it could be written into another
     * incarnation of its topic (issue 32). Refused as malformed, never decoded.
     */
    @Test
    void payloadsOfFrameProtocolOneSendersAreRefusedAsReplays() {
        List<ReplicatedRecord> records = List.of(
                new ReplicatedRecord(10, 1000, TimestampType.CREATE_TIME, "a".getBytes(), "x".getBytes(),
                        List.of(new RecordHeader("h", "1".getBytes()), new RecordHeader("n", null))),
                new ReplicatedRecord(11, 1001, TimestampType.CREATE_TIME, null, "y".getBytes(), List.of()),
                new ReplicatedRecord(13, 999, TimestampType.LOG_APPEND_TIME, "c".getBytes(), null,
                        List.of(new RecordHeader("h", "2".getBytes()))));
        String rows = "14d00f03020168016e010000026102780200023101010102020102790002040302630101000232";
        RecordBatch v1 = new RecordBatch("orders", 2, 9, records);
        assertThatThrownBy(() -> decoder.decode(golden(v1, "01" + rows))).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("payload version 1 is no longer read")
                .satisfies(e -> assertThat(((ProtocolException) e).kind()).isEqualTo(Kind.MALFORMED));
        RecordBatch v2 = new RecordBatch("orders", 2, -1, 7, records);
        assertThatThrownBy(() -> decoder.decode(golden(v2, "020e" + rows))).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("payload version 2 is no longer read")
                .satisfies(e -> assertThat(((ProtocolException) e).kind()).isEqualTo(Kind.MALFORMED));
    }

    private static EncodedBatch golden(RecordBatch batch, String hex) {
        byte[] bytes = java.util.HexFormat.of().parseHex(hex);
        return new EncodedBatch(batch.topic(), batch.partition(), batch.prevOffset(), batch.firstOffset(),
                batch.lastOffset(), batch.size(), CompressionCodec.NONE, bytes.length, crc(bytes),
                ByteBuffer.wrap(bytes));
    }

    @Test
    void valuesFollowEveryRecordsMetadataAndMustFillThePayloadExactly() {
        EncodedBatch encoded = encoder.encode(batch, CompressionCodec.NONE);
        byte[] bytes = bytes(encoded);
        assertThat(new String(bytes, bytes.length - 2, 2)).as("the values, last").isEqualTo("xy");
        byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + 1);
        assertKind(() -> decoder.decode(sized(encoded, longer)), Kind.MALFORMED);
        byte[] shorter = java.util.Arrays.copyOf(bytes, bytes.length - 1);
        assertKind(() -> decoder.decode(sized(encoded, shorter)), Kind.MALFORMED);
    }

    @Test
    void aHeaderKeyDictionaryLongerThanTheHeaderLimitIsRefusedBeforeItIsRead() {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.writeBytes(new byte[] {3, 0}); // version 3, coveredFrom 0
        out.writeBytes(new byte[16]); // topic id unknown
        out.writeBytes(new byte[] {0, 0, 0}); // base offset, base timestamp, no records
        out.write(101); // dictionary of 101 keys; this decoder allows 100 headers
        for (int k = 0; k < 101; k++) {
            out.writeBytes(new byte[] {1, 'k'});
        }
        byte[] bytes = out.toByteArray();
        EncodedBatch forged = new EncodedBatch("orders", 2, 9, 9, 9, 0, CompressionCodec.NONE, bytes.length,
                crc(bytes), ByteBuffer.wrap(bytes));
        assertKind(() -> decoder.decode(forged), Kind.LIMIT_EXCEEDED);
    }

    private static EncodedBatch sized(EncodedBatch e, byte[] payload) {
        return new EncodedBatch(e.topic(), e.partition(), e.prevOffset(), e.firstOffset(), e.lastOffset(),
                e.recordCount(), CompressionCodec.NONE, payload.length, crc(payload), ByteBuffer.wrap(payload));
    }

    @Test
    void everyBatchIsWrittenInVersionThreeWithItsCoverageAndTopicId() {
        Uuid topicId = Uuid.randomUuid();
        for (RecordBatch plain : List.of(batch, new RecordBatch("orders", 2, -1, 7, batch.records()))) {
            RecordBatch withId = new RecordBatch(plain.topic(), plain.partition(), plain.prevOffset(),
                    plain.coveredFrom(), plain.records(), topicId);
            for (CompressionCodec codec : CompressionCodec.values()) {
                RecordBatch decoded = decoder.decode(encoder.encode(withId, codec));
                assertThat(decoded).isEqualTo(withId);
                assertThat(decoded.topicId()).isEqualTo(topicId);
                assertThat(decoded.coveredFrom()).isEqualTo(plain.coveredFrom());
            }
            EncodedBatch v3 = encoder.encode(withId, CompressionCodec.NONE);
            assertThat(v3.payload().get(v3.payload().position())).isEqualTo((byte) 3);
        }
        assertThat(decoder.decode(encoder.encode(batch, CompressionCodec.NONE)).topicId()).isEqualTo(Uuid.ZERO_UUID);
    }

    @Test
    void aTopicIdCutShortIsTruncated() {
        RecordBatch withId = new RecordBatch("orders", 2, 9, 10, List.of(), Uuid.randomUuid());
        EncodedBatch encoded = encoder.encode(withId, CompressionCodec.NONE);
        byte[] bytes = java.util.Arrays.copyOf(bytes(encoded), 1 + 1 + 12); // magic, coveredFrom, 12 of 16 id bytes
        EncodedBatch cut = new EncodedBatch(encoded.topic(), encoded.partition(), encoded.prevOffset(),
                encoded.firstOffset(), encoded.lastOffset(), 0, CompressionCodec.NONE, bytes.length, crc(bytes),
                ByteBuffer.wrap(bytes));
        assertKind(() -> decoder.decode(cut), Kind.TRUNCATED);
    }

    @Test
    void anUnknownPayloadVersionIsMalformed() {
        EncodedBatch encoded = encoder.encode(batch, CompressionCodec.NONE);
        byte[] bytes = bytes(encoded);
        bytes[0] = 5;
        assertKind(() -> decoder.decode(withPayload(encoded, bytes, crc(bytes))), Kind.MALFORMED);
    }

    @Test
    void aSkipMarkerIsWrittenInVersionFourAndDecodesWithTheRefusedBatchsPlaceInTheChain() {
        Uuid topicId = Uuid.randomUuid();
        RecordBatch refused = new RecordBatch("orders", 2, 9, 10, batch.records(), topicId);
        RecordBatch marker = RecordBatch.skipMarker(refused);
        EncodedBatch encoded = encoder.encode(marker, CompressionCodec.NONE);
        assertThat(encoded.payload().get(encoded.payload().position())).isEqualTo((byte) 4);
        assertThat(encoded.recordCount()).isZero();
        assertThat(encoded.prevOffset()).isEqualTo(9);
        assertThat(encoded.firstOffset()).isEqualTo(10);
        assertThat(encoded.lastOffset()).isEqualTo(11);
        RecordBatch decoded = decoder.decode(encoded);
        assertThat(decoded).isEqualTo(marker);
        assertThat(decoded.isSkipMarker()).isTrue();
        assertThat(decoded.records()).isEmpty();
        assertThat(decoded.skipped()).isEqualTo(new RecordBatch.SkippedRange(10, 11, 2));
        assertThat(decoded.coveredFrom()).isEqualTo(10);
        assertThat(decoded.topicId()).isEqualTo(topicId);
        assertThat(decoder.decode(encoder.encode(batch, CompressionCodec.NONE)).isSkipMarker()).isFalse();
    }

    @Test
    void aSkipMarkerThatDisagreesWithItsHeaderOrItsChainIsMalformed() {
        EncodedBatch encoded = encoder.encode(RecordBatch.skipMarker(batch), CompressionCodec.NONE);
        int size = encoded.uncompressedSize();
        assertKind(() -> decoder.decode(copy(encoded, size, 0, 10, 12)), Kind.MALFORMED);
        assertKind(() -> decoder.decode(copy(encoded, size, 0, 9, 11)), Kind.MALFORMED);
        assertKind(() -> decoder.decode(copy(encoded, size, 1, 10, 11)), Kind.MALFORMED);
        assertKind(() -> decoder.decode(sized(encoded, java.util.Arrays.copyOf(bytes(encoded), size + 1))),
                Kind.MALFORMED);
        EncodedBatch beforeItsPredecessor = new EncodedBatch(encoded.topic(), encoded.partition(), 10, 10, 11, 0,
                CompressionCodec.NONE, size, encoded.crc32c(), encoded.payload().duplicate());
        assertKind(() -> decoder.decode(beforeItsPredecessor), Kind.MALFORMED);
        byte[] cut = java.util.Arrays.copyOf(bytes(encoded), size - 1);
        assertKind(() -> decoder.decode(sized(encoded, cut)), Kind.TRUNCATED);
    }


    @Test
    void aFlippedPayloadBitFailsTheCrc() {
        EncodedBatch encoded = encoder.encode(batch, CompressionCodec.LZ4);
        byte[] bytes = bytes(encoded);
        bytes[bytes.length / 2] ^= 0x10;
        assertKind(() -> decoder.decode(withPayload(encoded, bytes, encoded.crc32c())), Kind.BAD_CRC);
    }

    @Test
    void aDeclaredSizeAboveTheLimitIsRejectedBeforeAnyWork() {
        EncodedBatch encoded = encoder.encode(batch, CompressionCodec.ZSTD);
        EncodedBatch lying = copy(encoded, 2 << 20, encoded.recordCount(), encoded.firstOffset(), encoded.lastOffset());
        assertKind(() -> decoder.decode(lying), Kind.LIMIT_EXCEEDED);
    }

    @Test
    void moreRecordsThanTheLimitOrTheSizeCanHoldAreRejected() {
        EncodedBatch encoded = encoder.encode(batch, CompressionCodec.NONE);
        assertKind(() -> decoder.decode(copy(encoded, encoded.uncompressedSize(), 1_001, 10, 11)), Kind.LIMIT_EXCEEDED);
        assertKind(() -> decoder.decode(copy(encoded, encoded.uncompressedSize(), 900, 10, 11)), Kind.MALFORMED);
    }

    @Test
    void headerThatLiesAboutCountOrOffsetsIsMalformed() {
        EncodedBatch encoded = encoder.encode(batch, CompressionCodec.SNAPPY);
        int size = encoded.uncompressedSize();
        assertKind(() -> decoder.decode(copy(encoded, size, 1, 10, 11)), Kind.MALFORMED);
        assertKind(() -> decoder.decode(copy(encoded, size, 2, 10, 12)), Kind.MALFORMED);
        assertKind(() -> decoder.decode(copy(encoded, size, 2, 9, 11)), Kind.MALFORMED);
    }

    @Test
    void uncompressedSizeMustMatchExactly() {
        EncodedBatch none = encoder.encode(batch, CompressionCodec.NONE);
        assertKind(() -> decoder.decode(copy(none, none.uncompressedSize() + 1, 2, 10, 11)), Kind.MALFORMED);
        EncodedBatch gzip = encoder.encode(batch, CompressionCodec.GZIP);
        assertKind(() -> decoder.decode(copy(gzip, gzip.uncompressedSize() + 1, 2, 10, 11)), Kind.MALFORMED);
        assertKind(() -> decoder.decode(copy(gzip, gzip.uncompressedSize() - 1, 2, 10, 11)), Kind.LIMIT_EXCEEDED);
    }

    @Test
    void aGzipBombStopsAtTheDeclaredSize() throws IOException {
        // 512 MiB of zeros compress to about 500 KiB; the header claims 64 KiB.
        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(compressed)) {
            byte[] zeros = new byte[1 << 20];
            for (int i = 0; i < 512; i++) {
                gzip.write(zeros);
            }
        }
        byte[] bomb = compressed.toByteArray();
        EncodedBatch encoded = new EncodedBatch("t", 0, -1, 0, 0, 1, CompressionCodec.GZIP, 64 << 10,
                PayloadChecksum.crc32c(ByteBuffer.wrap(bomb)), ByteBuffer.wrap(bomb));
        long start = System.nanoTime();
        assertKind(() -> decoder.decode(encoded), Kind.LIMIT_EXCEEDED);
        assertThat(System.nanoTime() - start).as("stops early, does not inflate 512 MiB").isLessThan(2_000_000_000L);
    }

    @Test
    void snappyChunkLengthsAreCheckedBeforeSnappyJavaAllocates() {
        EncodedBatch encoded = encoder.encode(batch, CompressionCodec.SNAPPY);
        byte[] bytes = bytes(encoded);
        // The first chunk length (after the 16-byte header) claims 500 MB.
        ByteBuffer.wrap(bytes).putInt(16, 500_000_000);
        assertKind(() -> decoder.decode(withPayload(encoded, bytes, crc(bytes))), Kind.DECOMPRESSION_FAILED);

        byte[] hugeUncompressed = bytes(encoded);
        // The chunk preamble (uncompressed length varint) claims 2^31 bytes.
        byte[] preamble = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x08};
        byte[] forged = new byte[20 + preamble.length];
        System.arraycopy(hugeUncompressed, 0, forged, 0, 16);
        ByteBuffer.wrap(forged).putInt(16, preamble.length);
        System.arraycopy(preamble, 0, forged, 20, preamble.length);
        assertKind(() -> decoder.decode(withPayload(encoded, forged, crc(forged))), Kind.LIMIT_EXCEEDED);
    }

    @Test
    void garbageForEveryCodecIsADecompressionFailureNotACrash() {
        byte[] garbage = new byte[300];
        new java.util.Random(5).nextBytes(garbage);
        for (CompressionCodec codec : CompressionCodec.values()) {
            EncodedBatch encoded = new EncodedBatch("t", 0, -1, 0, 0, 1, codec, 1000, crc(garbage),
                    ByteBuffer.wrap(garbage));
            assertThatThrownBy(() -> decoder.decode(encoded)).isInstanceOf(ProtocolException.class);
        }
    }

    @Test
    void theTotalHeaderCountIsLimitedBecauseHeadersCostMoreHeapThanPayload() {
        List<RecordHeader> headers = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            headers.add(new RecordHeader("h", null)); // 2 payload bytes, ~30 heap bytes each
        }
        RecordBatch manyHeaders = new RecordBatch("t", 0, -1, List.of(
                new ReplicatedRecord(0, 0, TimestampType.CREATE_TIME, null, null, headers),
                new ReplicatedRecord(1, 0, TimestampType.CREATE_TIME, null, null, headers)));
        EncodedBatch encoded = encoder.encode(manyHeaders, CompressionCodec.NONE);
        assertKind(() -> decoder.decode(encoded), Kind.LIMIT_EXCEEDED);
        assertThatThrownBy(() -> new BatchEncoder(new BatchLimits(1 << 20, 1_000, 100)).encode(manyHeaders,
                CompressionCodec.NONE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("120 headers");
    }

    @Test
    void unknownCodecIdIsReported() {
        assertKind(() -> CompressionCodec.forId(5), Kind.UNKNOWN_CODEC);
        assertKind(() -> CompressionCodec.forId(-1), Kind.UNKNOWN_CODEC);
        for (CompressionCodec codec : CompressionCodec.values()) {
            assertThat(CompressionCodec.forId(codec.id())).isSameAs(codec);
        }
    }

    @Test
    void theEncoderRefusesBatchesOverItsLimits() {
        BatchEncoder small = new BatchEncoder(new BatchLimits(1024, 1, 10));
        assertThatThrownBy(() -> small.encode(batch, CompressionCodec.NONE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 records");
        List<ReplicatedRecord> big = new ArrayList<>();
        big.add(new ReplicatedRecord(0, 0, null, new byte[2000]));
        assertThatThrownBy(() -> small.encode(new RecordBatch("t", 0, -1, big), CompressionCodec.NONE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("above the limit of 1024");
    }

    private static void assertKind(ThrowingCallable call, Kind kind) {
        assertThatThrownBy(call).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.kind()).as(e.getMessage()).isEqualTo(kind));
    }

    private static byte[] bytes(EncodedBatch encoded) {
        byte[] bytes = new byte[encoded.payloadSize()];
        encoded.payload().duplicate().get(bytes);
        return bytes;
    }

    private static int crc(byte[] bytes) {
        return PayloadChecksum.crc32c(ByteBuffer.wrap(bytes));
    }

    private static EncodedBatch withPayload(EncodedBatch e, byte[] payload, int crc) {
        return new EncodedBatch(e.topic(), e.partition(), e.prevOffset(), e.firstOffset(), e.lastOffset(),
                e.recordCount(), e.codec(), e.uncompressedSize(), crc, ByteBuffer.wrap(payload));
    }

    private static EncodedBatch copy(EncodedBatch e, int uncompressedSize, int count, long first, long last) {
        return new EncodedBatch(e.topic(), e.partition(), e.prevOffset(), first, last, count, e.codec(),
                uncompressedSize, e.crc32c(), ByteBuffer.wrap(bytes(e)));
    }
}
