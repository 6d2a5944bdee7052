package io.jetstream.kafka.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.testing.ProtocolArbitraries;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Round trips of generated batches through the batch codec with every compression codec. The
 * generated cases run over fixed seeds (the display name shows each one); {@code new Random(seed)}
 * with {@link ProtocolArbitraries} rebuilds a failing case.
 */
class BatchCodecPropertiesTest {

    private static final long[] EXTREMES = {Long.MIN_VALUE, Long.MAX_VALUE, -1L, 0L, 1L, Long.MIN_VALUE + 1,
        Long.MAX_VALUE - 1};
    private static final int MAX_EXTREMES = 10;

    private final BatchEncoder encoder = new BatchEncoder();
    private final BatchDecoder decoder = new BatchDecoder();

    static LongStream roundTripSeeds() {
        return ProtocolArbitraries.seeds(0xB47C4L, 400);
    }

    static LongStream directBufferSeeds() {
        return ProtocolArbitraries.seeds(0xD1EC7L, 200);
    }

    static LongStream extremeSeeds() {
        return ProtocolArbitraries.seeds(0xE7BE3EL, 200);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("roundTripSeeds")
    void everyBatchRoundTripsWithEveryCodec(long seed) {
        Random random = new Random(seed);
        RecordBatch batch = ProtocolArbitraries.batch(random);
        CompressionCodec codec = ProtocolArbitraries.oneOf(random, CompressionCodec.class);
        assertRoundTrip(batch, codec, "seed " + seed);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("directBufferSeeds")
    void directPayloadBuffersDecodeLikeHeapOnes(long seed) {
        Random random = new Random(seed);
        RecordBatch batch = ProtocolArbitraries.batch(random);
        CompressionCodec codec = ProtocolArbitraries.oneOf(random, CompressionCodec.class);
        EncodedBatch encoded = encoder.encode(batch, codec);
        ByteBuffer direct = ByteBuffer.allocateDirect(encoded.payloadSize());
        direct.put(encoded.payload().duplicate()).flip();
        EncodedBatch viaDirect = new EncodedBatch(encoded.topic(), encoded.partition(), encoded.prevOffset(),
                encoded.firstOffset(), encoded.lastOffset(), encoded.recordCount(), encoded.codec(),
                encoded.uncompressedSize(), encoded.crc32c(), direct);
        assertThat(decoder.decode(viaDirect)).as("seed %d, %s", seed, codec).isEqualTo(batch);
        assertThat(direct.position()).as("seed %d: decoding must not move the payload", seed).isZero();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("extremeSeeds")
    void extremeOffsetAndTimestampDeltasRoundTrip(long seed) {
        Random random = new Random(seed);
        int size = ProtocolArbitraries.size(random, 1, MAX_EXTREMES);
        List<Long> values = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            values.add(EXTREMES[random.nextInt(EXTREMES.length)]);
        }
        long prevOffset = ProtocolArbitraries.anyLong(random);
        assertExtremesRoundTrip(values, prevOffset, "seed " + seed);
    }

    @Test
    void extremeOffsetAndTimestampDeltasRoundTripAtTheBoundaries() {
        List<Long> all = new ArrayList<>();
        for (long value : EXTREMES) {
            all.add(value);
        }
        List<Long> alternating = new ArrayList<>();
        for (int i = 0; i < MAX_EXTREMES; i++) {
            alternating.add(i % 2 == 0 ? Long.MIN_VALUE : Long.MAX_VALUE);
        }
        List<List<Long>> lists = new ArrayList<>(List.of(all, alternating, List.of(Long.MIN_VALUE, Long.MAX_VALUE),
                List.of(Long.MAX_VALUE, Long.MIN_VALUE)));
        for (long value : EXTREMES) {
            lists.add(List.of(value));
        }
        for (List<Long> values : lists) {
            for (long prevOffset : EXTREMES) {
                assertExtremesRoundTrip(values, prevOffset, values + " after " + prevOffset);
            }
        }
    }

    @Test
    void boundaryBatchesRoundTripWithEveryCodec() {
        String longestTopic = "t".repeat(39) + '\uD7FF';
        List<ReplicatedRecord> records = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            long offset = i % 2 == 0 ? Long.MIN_VALUE + i : Long.MAX_VALUE - i;
            List<RecordHeader> headers = i % 3 == 0 ? List.of()
                    : List.of(new RecordHeader("", null), new RecordHeader("\u0000", new byte[0]),
                            new RecordHeader("\uD7FF".repeat(12), new byte[24]), new RecordHeader("ü-ключ", null));
            byte[] key = i % 4 == 0 ? null : new byte[i % 4 == 1 ? 0 : 64];
            byte[] value = i % 5 == 0 ? null : new byte[i % 5 == 1 ? 0 : 256];
            records.add(new ReplicatedRecord(offset, -offset, TimestampType.values()[i % 3], key, value, headers));
        }
        List<RecordBatch> batches = List.of(
                new RecordBatch("t", 0, Long.MIN_VALUE, List.of()),
                new RecordBatch(longestTopic, Integer.MAX_VALUE, Long.MAX_VALUE, List.of()),
                new RecordBatch("\u0000", 0, Long.MIN_VALUE, records),
                new RecordBatch(longestTopic, Integer.MAX_VALUE, Long.MAX_VALUE, records));
        for (RecordBatch batch : batches) {
            for (CompressionCodec codec : CompressionCodec.values()) {
                assertRoundTrip(batch, codec, "boundary batch " + batch.topic().length() + " chars, partition "
                        + batch.partition() + ", " + batch.size() + " records");
            }
        }
    }

    @Test
    void emptyBatchRoundTripsAndReportsPrevOffsetAsItsRange() {
        RecordBatch empty = new RecordBatch("orders", 3, 41, List.of());
        for (CompressionCodec codec : CompressionCodec.values()) {
            EncodedBatch encoded = assertRoundTrip(empty, codec);
            assertThat(encoded.recordCount()).isZero();
            assertThat(encoded.firstOffset()).isEqualTo(41);
            assertThat(encoded.lastOffset()).isEqualTo(41);
        }
    }

    @Test
    void nullKeysValuesAndHeaderValuesRoundTrip() {
        RecordBatch batch = new RecordBatch("t", 0, -1, List.of(
                new ReplicatedRecord(0, 1, TimestampType.NO_TIMESTAMP_TYPE, null, null,
                        List.of(new RecordHeader("h", null))),
                new ReplicatedRecord(1, 2, TimestampType.CREATE_TIME, new byte[0], new byte[0],
                        List.of(new RecordHeader("h", new byte[0])))));
        for (CompressionCodec codec : CompressionCodec.values()) {
            RecordBatch decoded = decoder.decode(encoder.encode(batch, codec));
            assertThat(decoded).isEqualTo(batch);
            assertThat(decoded.records().get(0).key()).isNull();
            assertThat(decoded.records().get(1).key()).isEmpty();
        }
    }

    @Test
    void oneMebibyteValuesRoundTripWithEveryCodec() {
        Random random = new Random(7);
        byte[] incompressible = new byte[1 << 20];
        random.nextBytes(incompressible);
        byte[] letters = ProtocolArbitraries.letters(random, 1 << 20);
        RecordBatch batch = new RecordBatch("big", 1, 99, List.of(
                new ReplicatedRecord(100, 5, "k1".getBytes(), incompressible),
                new ReplicatedRecord(101, 6, "k2".getBytes(), letters)));
        for (CompressionCodec codec : CompressionCodec.values()) {
            EncodedBatch encoded = assertRoundTrip(batch, codec);
            assertThat(encoded.uncompressedSize()).isGreaterThan(2 << 20);
        }
    }

    @Test
    void manyHeadersShareOneDictionaryEntryPerKey() {
        List<RecordHeader> headers = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            headers.add(new RecordHeader("key-" + (i % 100), new byte[] {(byte) i}));
        }
        List<ReplicatedRecord> records = new ArrayList<>();
        for (int r = 0; r < 20; r++) {
            records.add(new ReplicatedRecord(r, r, TimestampType.CREATE_TIME, null, new byte[] {1}, headers));
        }
        RecordBatch batch = new RecordBatch("headers", 0, -1, records);
        EncodedBatch encoded = assertRoundTrip(batch, CompressionCodec.NONE);
        // 100 000 headers of 1-byte values: index (1 byte) + length (1) + value (1); keys written once.
        assertThat(encoded.uncompressedSize()).isLessThan(100_000 * 3 + 2_000);
        for (CompressionCodec codec : CompressionCodec.values()) {
            assertRoundTrip(batch, codec);
        }
    }

    @Test
    void decodedHeaderKeysAreSharedInstances() {
        RecordBatch batch = new RecordBatch("t", 0, -1, List.of(
                new ReplicatedRecord(0, 0, TimestampType.CREATE_TIME, null, null,
                        List.of(new RecordHeader("trace", null))),
                new ReplicatedRecord(1, 0, TimestampType.CREATE_TIME, null, null,
                        List.of(new RecordHeader("trace", null)))));
        RecordBatch decoded = decoder.decode(encoder.encode(batch, CompressionCodec.NONE));
        assertThat(decoded.records().get(0).headers().get(0).key())
                .isSameAs(decoded.records().get(1).headers().get(0).key());
    }

    @Test
    void anEncoderAndDecoderAreReusableAcrossSizes() {
        Random random = new Random(3);
        for (int round = 0; round < 6; round++) {
            int size = round % 2 == 0 ? 3 << 20 : 10; // alternate big and small to exercise reuse
            RecordBatch batch = new RecordBatch("t", 0, -1, List.of(new ReplicatedRecord(round, round, null,
                    ProtocolArbitraries.letters(random, size))));
            for (CompressionCodec codec : CompressionCodec.values()) {
                assertRoundTrip(batch, codec);
            }
        }
    }

    @Test
    void entropyCodersShrinkRandomLetterPayloads() {
        Random random = new Random(1);
        List<ReplicatedRecord> records = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            byte[] value = ProtocolArbitraries.letters(random, 1024);
            records.add(new ReplicatedRecord(i, 1_700_000_000_000L + i, null, value));
        }
        RecordBatch batch = new RecordBatch("t", 0, -1, records);
        int none = encoder.encode(batch, CompressionCodec.NONE).payloadSize();
        // Random A-Z letters carry log2(26) = 4.7 bits per byte: only codecs with an entropy stage
        // (gzip, zstd) gain; LZ-only lz4 and snappy find no repeats to exploit.
        for (CompressionCodec codec : List.of(CompressionCodec.GZIP, CompressionCodec.ZSTD)) {
            assertThat(encoder.encode(batch, codec).payloadSize()).as(codec.name()).isLessThan(none * 7 / 10);
        }
    }

    private void assertExtremesRoundTrip(List<Long> values, long prevOffset, String where) {
        List<ReplicatedRecord> records = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            // Offsets and timestamps jump between the extremes: every delta overflows a long.
            long timestamp = values.get(values.size() - 1 - i);
            records.add(new ReplicatedRecord(values.get(i), timestamp, TimestampType.LOG_APPEND_TIME, null, null,
                    List.of()));
        }
        for (CompressionCodec codec : CompressionCodec.values()) {
            assertRoundTrip(new RecordBatch("t", 0, prevOffset, records), codec, where);
        }
    }

    private EncodedBatch assertRoundTrip(RecordBatch batch, CompressionCodec codec) {
        return assertRoundTrip(batch, codec, "");
    }

    private EncodedBatch assertRoundTrip(RecordBatch batch, CompressionCodec codec, String where) {
        String as = where.isEmpty() ? codec.name() : where + ", " + codec;
        EncodedBatch encoded = encoder.encode(batch, codec);
        assertThat(encoded.codec()).as(as).isEqualTo(codec);
        assertThat(encoded.recordCount()).as(as).isEqualTo(batch.size());
        assertThat(encoded.crc32c()).as(as).isEqualTo(PayloadChecksum.crc32c(encoded.payload()));
        assertThat(decoder.decode(encoded)).as(as).isEqualTo(batch);
        return encoded;
    }
}
