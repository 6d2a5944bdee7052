package io.jetstream.kafka.core.bench;

import io.jetstream.kafka.core.batch.BatchDecoder;
import io.jetstream.kafka.core.batch.BatchEncoder;
import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.EncodedBatch;
import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.RecordHeader;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.record.TimestampType;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Batch payload codec throughput on one thread (so: per core). A batch holds about 256 KiB of
 * record data: 256 records of 1 KiB or 2,621 of 100 B, values of random A-Z letters (the payload of
 * the brief's MirrorMaker 2 figures), 10-byte keys, one 16-byte header per record.
 *
 * <p>The {@code dataBytes} counter is record data (key + value + header key and value) per second,
 * the figure to compare with link capacity; {@code records} is records per second. The primary
 * ops/s figure counts batches. Run: see docs/bench/jmh.md.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class BatchCodecBenchmark {

    @Param({"1024", "100"})
    public int valueBytes;

    /**
     * Record data per batch: 256 KiB (a busy partition) or one 1 KiB record (one of many partitions
     * at a steady rate, where each linger period leaves a batch of a record or two per partition).
     */
    @Param({"262144", "1024"})
    public int batchDataBytes;

    @Param({"NONE", "LZ4", "ZSTD"})
    public CompressionCodec codec;

    private RecordBatch batch;
    private long dataBytesPerBatch;
    private BatchEncoder encoder;
    private BatchDecoder decoder;
    private EncodedBatch encoded;

    /** Secondary results: JMH reports these fields as rates. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Counters {
        public long dataBytes;
        public long records;
    }

    @Setup(Level.Trial)
    public void setUp() {
        Random random = new Random(42);
        int count = Math.max(1, batchDataBytes / valueBytes);
        List<ReplicatedRecord> records = new ArrayList<>(count);
        long now = 1_700_000_000_000L;
        for (int i = 0; i < count; i++) {
            byte[] value = new byte[valueBytes];
            for (int b = 0; b < value.length; b++) {
                value[b] = (byte) ('A' + random.nextInt(26));
            }
            byte[] key = String.format("key-%06d", i).getBytes(StandardCharsets.US_ASCII);
            byte[] traceId = new byte[16];
            random.nextBytes(traceId);
            records.add(new ReplicatedRecord(1_000_000L + i, now + i / 10, TimestampType.CREATE_TIME, key, value,
                    List.of(new RecordHeader("trace-id", traceId))));
        }
        batch = new RecordBatch("sensor-readings", 3, 999_999L, records);
        dataBytesPerBatch = records.stream().mapToLong(r -> r.dataBytes()).sum();
        encoder = new BatchEncoder();
        decoder = new BatchDecoder();
        EncodedBatch borrowed = new BatchEncoder().encode(batch, codec);
        byte[] payload = new byte[borrowed.payloadSize()];
        borrowed.payload().duplicate().get(payload);
        encoded = new EncodedBatch(borrowed.topic(), borrowed.partition(), borrowed.prevOffset(),
                borrowed.firstOffset(), borrowed.lastOffset(), borrowed.recordCount(), borrowed.codec(),
                borrowed.uncompressedSize(), borrowed.crc32c(), ByteBuffer.wrap(payload));
        System.out.printf("%n%s, %d B values: %d records, %d data bytes, %d uncompressed, %d on the wire (%.1f%%)%n",
                codec, valueBytes, count, dataBytesPerBatch, encoded.uncompressedSize(), payload.length,
                100.0 * payload.length / dataBytesPerBatch);
    }

    @Benchmark
    public EncodedBatch encode(Counters counters) {
        count(counters);
        return encoder.encode(batch, codec);
    }

    @Benchmark
    public RecordBatch decode(Counters counters) {
        count(counters);
        return decoder.decode(encoded);
    }

    @Benchmark
    public RecordBatch encodeDecode(Counters counters) {
        count(counters);
        return decoder.decode(encoder.encode(batch, codec));
    }

    private void count(Counters counters) {
        counters.dataBytes += dataBytesPerBatch;
        counters.records += batch.size();
    }
}
