package io.jetstream.kafka.core.batch;

import static io.jetstream.kafka.core.batch.BatchFormat.KAFKA_MAGIC_V2;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.core.wire.ProtocolException;
import io.jetstream.kafka.core.wire.ProtocolException.Kind;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.utils.BufferSupplier;
import org.apache.kafka.common.utils.ByteBufferOutputStream;
import org.junit.jupiter.api.Test;

/**
 * Zstandard through kept contexts ({@link ZstdBlocks}) against Kafka's zstd streams: either side reads
 * what the other writes, and the decompression-bomb guard still tells more from fewer bytes.
 */
class ZstdBlocksTest {

    private final BatchEncoder encoder = new BatchEncoder();
    private final BatchDecoder decoder = new BatchDecoder();

    @Test
    void batchesOfEverySizeRoundTripThroughOneEncoderAndOneDecoder() {
        Random random = new Random(7);
        for (int records : new int[] {1, 2, 50, 700, 3}) {
            RecordBatch batch = batch(random, records, 1024);
            EncodedBatch encoded = encoder.encode(batch, CompressionCodec.ZSTD);
            assertThat(encoded.payloadSize()).isLessThan(encoded.uncompressedSize());
            assertThat(decoder.decode(copy(encoded, false))).as("%d records", records).isEqualTo(batch);
            assertThat(decoder.decode(copy(encoded, true))).as("%d records, direct buffer", records).isEqualTo(batch);
        }
    }

    @Test
    void kafkasZstdStreamReadsWhatTheEncoderWritesAndTheDecoderReadsWhatTheStreamWrites() throws IOException {
        RecordBatch batch = batch(new Random(3), 20, 300);
        EncodedBatch encoded = encoder.encode(batch, CompressionCodec.ZSTD);
        byte[] viaStream = new byte[encoded.uncompressedSize() + 1];
        int read;
        try (InputStream in = Compression.zstd().build().wrapForInput(encoded.payload().duplicate(), KAFKA_MAGIC_V2,
                BufferSupplier.NO_CACHING)) {
            read = in.readNBytes(viaStream, 0, viaStream.length);
        }
        assertThat(read).isEqualTo(encoded.uncompressedSize());

        EncodedBatch plain = encoder.encode(batch, CompressionCodec.NONE);
        byte[] raw = new byte[plain.payloadSize()];
        plain.payload().duplicate().get(raw);
        byte[] streamed = streamCompress(raw);
        EncodedBatch fromStream = withPayload(plain, CompressionCodec.ZSTD, raw.length, streamed);
        assertThat(decoder.decode(fromStream)).isEqualTo(batch);
    }

    @Test
    void aFrameProducingMoreThanDeclaredIsOverTheLimitAndFewerIsMalformed() throws IOException {
        RecordBatch batch = batch(new Random(5), 4, 200);
        EncodedBatch plain = encoder.encode(batch, CompressionCodec.NONE);
        byte[] raw = new byte[plain.payloadSize()];
        plain.payload().duplicate().get(raw);
        for (byte[] frame : List.of(blockCompress(raw), streamCompress(raw))) {
            ProtocolException more = catchDecode(withPayload(plain, CompressionCodec.ZSTD, raw.length - 1, frame));
            assertThat(more.kind()).isEqualTo(Kind.LIMIT_EXCEEDED);
            ProtocolException fewer = catchDecode(withPayload(plain, CompressionCodec.ZSTD, raw.length + 1, frame));
            assertThat(fewer.kind()).isIn(Kind.MALFORMED, Kind.DECOMPRESSION_FAILED);
        }
        byte[] whole = blockCompress(raw);
        byte[] truncated = Arrays.copyOf(whole, whole.length - 3);
        ProtocolException corrupt = catchDecode(withPayload(plain, CompressionCodec.ZSTD, raw.length, truncated));
        assertThat(corrupt.kind()).isIn(Kind.DECOMPRESSION_FAILED, Kind.MALFORMED);
    }

    @Test
    void aClosedEncoderOrDecoderRefusesWorkInsteadOfCallingABatchCorrupt() {
        RecordBatch batch = batch(new Random(1), 1, 100);
        EncodedBatch encoded = copy(encoder.encode(batch, CompressionCodec.ZSTD), false);
        encoder.close();
        decoder.close();
        assertThatThrownBy(() -> encoder.encode(batch, CompressionCodec.ZSTD)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> decoder.decode(encoded)).isInstanceOf(IllegalStateException.class);
    }

    private ProtocolException catchDecode(EncodedBatch encoded) {
        try {
            decoder.decode(encoded);
        } catch (ProtocolException e) {
            return e;
        }
        throw new AssertionError("decoded a payload whose declared size is wrong");
    }

    private static byte[] blockCompress(byte[] raw) {
        try (ZstdBlocks zstd = new ZstdBlocks()) {
            byte[] out = zstd.compress(raw, raw.length);
            byte[] frame = new byte[zstd.compressedLength()];
            System.arraycopy(out, 0, frame, 0, frame.length);
            return frame;
        }
    }

    private static byte[] streamCompress(byte[] raw) throws IOException {
        ByteBufferOutputStream sink = new ByteBufferOutputStream(1024);
        try (OutputStream out = Compression.zstd().build().wrapForOutput(sink, KAFKA_MAGIC_V2)) {
            out.write(raw);
        }
        ByteBuffer buffer = sink.buffer().duplicate();
        buffer.flip();
        byte[] frame = new byte[buffer.remaining()];
        buffer.get(frame);
        return frame;
    }

    private static EncodedBatch withPayload(EncodedBatch like, CompressionCodec codec, int declared, byte[] payload) {
        CRC32C crc = new CRC32C();
        crc.update(payload);
        return new EncodedBatch(like.topic(), like.partition(), like.prevOffset(), like.firstOffset(), like.lastOffset(),
                like.recordCount(), codec, declared, (int) crc.getValue(), ByteBuffer.wrap(payload));
    }

    private static EncodedBatch copy(EncodedBatch encoded, boolean direct) {
        ByteBuffer payload = direct ? ByteBuffer.allocateDirect(encoded.payloadSize())
                : ByteBuffer.allocate(encoded.payloadSize());
        payload.put(encoded.payload().duplicate()).flip();
        return new EncodedBatch(encoded.topic(), encoded.partition(), encoded.prevOffset(), encoded.firstOffset(),
                encoded.lastOffset(), encoded.recordCount(), encoded.codec(), encoded.uncompressedSize(),
                encoded.crc32c(), payload);
    }

    private static RecordBatch batch(Random random, int records, int valueBytes) {
        List<ReplicatedRecord> list = new ArrayList<>(records);
        for (int i = 0; i < records; i++) {
            byte[] value = new byte[valueBytes];
            for (int b = 0; b < value.length; b++) {
                value[b] = (byte) ('a' + random.nextInt(8));
            }
            list.add(new ReplicatedRecord(100 + i, 1_700_000_000_000L + i, ("k" + i).getBytes(), value));
        }
        return new RecordBatch("orders", 1, 99, list);
    }
}
