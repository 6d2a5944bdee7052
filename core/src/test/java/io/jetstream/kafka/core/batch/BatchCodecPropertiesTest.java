package io.jetstream.kafka.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.testing.ProtocolArbitraries;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import org.apache.kafka.common.record.TimestampType;

class BatchCodecPropertiesTest {

    private final BatchEncoder encoder = new BatchEncoder();
    private final BatchDecoder decoder = new BatchDecoder();

    @Property(tries = 400)
    void everyBatchRoundTripsWithEveryCodec(@ForAll("batches") RecordBatch batch, @ForAll CompressionCodec codec) {
        assertRoundTrip(batch, codec);
    }

    @Property(tries = 200)
    void directPayloadBuffersDecodeLikeHeapOnes(@ForAll("batches") RecordBatch batch, @ForAll CompressionCodec codec) {
        EncodedBatch encoded = encoder.encode(batch, codec);
        ByteBuffer direct = ByteBuffer.allocateDirect(encoded.payloadSize());
        direct.put(encoded.payload().duplicate()).flip();
        EncodedBatch viaDirect = new EncodedBatch(encoded.topic(), encoded.partition(), encoded.prevOffset(),
                encoded.firstOffset(), encoded.lastOffset(), encoded.recordCount(), encoded.codec(),
                encoded.uncompressedSize(), encoded.crc32c(), direct);
        assertThat(decoder.decode(viaDirect)).isEqualTo(batch);
        assertThat(direct.position()).as("decoding must not move the payload").isZero();
    }

    @Property(tries = 200)
    void extremeOffsetAndTimestampDeltasRoundTrip(@ForAll("extremes") List<Long> values,
            @ForAll @LongRange(min = Long.MIN_VALUE, max = Long.MAX_VALUE) long prevOffset) {
        List<ReplicatedRecord> records = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            // Offsets and timestamps jump between the extremes: every delta overflows a long.
            long timestamp = values.get(values.size() - 1 - i);
            records.add(new ReplicatedRecord(values.get(i), timestamp, TimestampType.LOG_APPEND_TIME, null, null,
                    List.of()));
        }
        for (CompressionCodec codec : CompressionCodec.values()) {
            assertRoundTrip(new RecordBatch("t", 0, prevOffset, records), codec);
        }
    }

    @Example
    void emptyBatchRoundTripsAndReportsPrevOffsetAsItsRange() {
        RecordBatch empty = new RecordBatch("orders", 3, 41, List.of());
        for (CompressionCodec codec : CompressionCodec.values()) {
            EncodedBatch encoded = assertRoundTrip(empty, codec);
            assertThat(encoded.recordCount()).isZero();
            assertThat(encoded.firstOffset()).isEqualTo(41);
            assertThat(encoded.lastOffset()).isEqualTo(41);
        }
    }

    @Example
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

    @Example
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

    @Example
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

    @Example
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

    @Example
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

    @Example
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

    @Provide
    Arbitrary<RecordBatch> batches() {
        return ProtocolArbitraries.batch();
    }

    @Provide
    Arbitrary<List<Long>> extremes() {
        return net.jqwik.api.Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, -1L, 0L, 1L, Long.MIN_VALUE + 1,
                Long.MAX_VALUE - 1).list().ofMinSize(1).ofMaxSize(10);
    }

    private EncodedBatch assertRoundTrip(RecordBatch batch, CompressionCodec codec) {
        EncodedBatch encoded = encoder.encode(batch, codec);
        assertThat(encoded.codec()).isEqualTo(codec);
        assertThat(encoded.recordCount()).isEqualTo(batch.size());
        assertThat(encoded.crc32c()).isEqualTo(PayloadChecksum.crc32c(encoded.payload()));
        assertThat(decoder.decode(encoded)).isEqualTo(batch);
        return encoded;
    }
}
