package io.jetstream.kafka.core.batch;

import static io.jetstream.kafka.core.batch.BatchFormat.KAFKA_MAGIC_V2;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.zip.CRC32C;
import org.apache.kafka.common.utils.ByteBufferOutputStream;

/**
 * Encodes a {@link RecordBatch} into the compact payload format, compresses it with the chosen
 * codec and computes its CRC32C.
 *
 * <h2>Payload layout (version 3, before compression)</h2>
 * <pre>
 * +-------+-------------+---------------------+------------+---------------+-------------+----------+
 * | magic | coveredFrom | topicId             | baseOffset | baseTimestamp | recordCount | keyCount |
 * | 3     | varlong     | 2 x int64 (MSB 1st) | varlong    | varlong       | uvarint     | uvarint  |
 * +-------+-------------+---------------------+------------+---------------+-------------+----------+
 * +------------------------+-------------------------------+------------------------------------+
 * | keyCount x header key  | recordCount x record metadata | the values, in record order         |
 * | uvarint len + UTF-8    |                               | (lengths are in the metadata)       |
 * +------------------------+-------------------------------+------------------------------------+
 *
 * record metadata:
 * +-------+-------------+---------+--------+-------+----------+-------------+-----------------+
 * | attrs | offsetDelta | tsDelta | keyLen | key   | valueLen | headerCount | headerCount x   |
 * | uint8 | varlong     | varlong | varint | bytes | varint   | uvarint     | header          |
 * +-------+-------------+---------+--------+-------+----------+-------------+-----------------+
 *
 * header:
 * +----------+----------+-------+
 * | keyIndex | valueLen | value |
 * | uvarint  | varint   | bytes |
 * +----------+----------+-------+
 * </pre>
 * <ul>
 *   <li>Columnar: every record's metadata (offsets, timestamps, keys, headers) comes first and the
 *       values follow, back to back. Values usually dominate and resemble each other more than they
 *       resemble the fields between them, so the codec sees one long stream of alike bytes: zstd
 *       level 3 takes 1 KiB random-letter records with two headers to 615 bytes per record in this
 *       layout against 635 with each value inside its record (version 1), 610 for the values alone.
 *   <li>{@code coveredFrom} is the lowest origin offset the batch vouches for (see
 *       {@link RecordBatch}); {@code topicId} the origin topic's id, all zero when unknown.
 *   <li>{@code varint}/{@code varlong} are zig-zag LEB128 (as in Kafka records), {@code uvarint}
 *       plain LEB128.
 *   <li>{@code baseOffset}/{@code baseTimestamp} are those of the first record (0 when empty). Each
 *       record's deltas are relative to the previous record (the first to the base), computed with
 *       wrapping 64-bit arithmetic, so any offsets and timestamps round-trip and the usual +1 offset
 *       step costs one byte.
 *   <li>{@code attrs} bits 0-1: timestamp type (0 none, 1 create time, 2 log-append time); other
 *       bits zero.
 *   <li>Lengths of -1 mean null (key, value, header value).
 *   <li>Header keys are written once per batch in a dictionary, in first-seen order; headers refer
 *       to them by index. The topic name is not in the payload: it travels once, in the frame header.
 *   <li>Versions 1 and 2, which only senders of frame protocol 1 wrote, kept each value inside its
 *       record (version 2 added {@code coveredFrom} after the magic) and had no topic id;
 *       {@link BatchDecoder} refuses them as replays ({@link BatchFormat#PAYLOAD_MAGIC}).
 * </ul>
 *
 * <h2>Skip marker (version 4)</h2>
 * A {@link RecordBatch#isSkipMarker() skip marker} stands for a batch the destination refused for
 * good and the sender skipped ({@code errors.tolerance=all}); it carries no records:
 * <pre>
 * +-------+-------------+---------------------+-------------+------------+----------------+
 * | magic | coveredFrom | topicId             | firstOffset | lastOffset | skippedRecords |
 * | 4     | varlong     | 2 x int64 (MSB 1st) | varlong     | varlong    | uvarint        |
 * +-------+-------------+---------------------+-------------+------------+----------------+
 * </pre>
 * The frame header declares 0 records and the skipped range's first and last offsets. Only
 * destinations that know version 4 read it (an older one refuses it as malformed).
 *
 * <h2>Threading and buffers</h2>
 * An encoder is not thread-safe: use one per thread (one per sender task). It reuses its buffers,
 * so steady-state encoding allocates only the codec streams kafka-clients creates per batch. The
 * {@link EncodedBatch#payload()} it returns is a view of those buffers, valid until the next
 * {@code encode} call.
 */
public final class BatchEncoder implements AutoCloseable {

    private static final int INITIAL_CAPACITY = 64 * 1024;
    /** Output arrays above this are not kept for the next batch (one large batch should not pin them). */
    private static final int RETAINED_BYTES = 8 * 1024 * 1024;

    private final BatchLimits limits;
    private final PayloadWriter writer = new PayloadWriter(INITIAL_CAPACITY);
    private final ByteBufferOutputStream compressed = new ByteBufferOutputStream(INITIAL_CAPACITY);
    private final Map<String, Integer> keyIndex = new HashMap<>();
    private final List<byte[]> keyBytes = new ArrayList<>();
    private final CRC32C crc = new CRC32C();
    private final ZstdBlocks zstd = new ZstdBlocks();

    public BatchEncoder() {
        this(BatchLimits.defaults());
    }

    /** An encoder that refuses batches the peers' {@code limits} would reject. */
    public BatchEncoder(BatchLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    /**
     * Encodes and compresses a batch.
     *
     * @return the wire form; its payload is valid until the next call on this encoder
     * @throws IllegalArgumentException if the batch exceeds this encoder's {@link BatchLimits}
     */
    public EncodedBatch encode(RecordBatch batch, CompressionCodec codec) {
        Objects.requireNonNull(codec, "codec");
        List<ReplicatedRecord> records = batch.records();
        if (records.size() > limits.maxRecords()) {
            throw new IllegalArgumentException("batch of " + batch.topic() + "-" + batch.partition() + " has "
                    + records.size() + " records, above the limit of " + limits.maxRecords());
        }
        long headers = 0;
        for (int i = 0, n = records.size(); i < n; i++) {
            headers += records.get(i).headers().size();
        }
        if (headers > limits.maxHeaders()) {
            throw new IllegalArgumentException("batch of " + batch.topic() + "-" + batch.partition() + " has "
                    + headers + " headers, above the limit of " + limits.maxHeaders());
        }
        int uncompressedSize = writeRecords(batch);
        if (uncompressedSize > limits.maxUncompressedBytes()) {
            throw new IllegalArgumentException("batch of " + batch.topic() + "-" + batch.partition() + " encodes to "
                    + uncompressedSize + " bytes, above the limit of " + limits.maxUncompressedBytes());
        }
        ByteBuffer payload = codec == CompressionCodec.NONE
                ? ByteBuffer.wrap(writer.array(), 0, uncompressedSize)
                : compress(codec, uncompressedSize);
        crc.reset();
        crc.update(payload.duplicate());
        return new EncodedBatch(batch.topic(), batch.partition(), batch.prevOffset(), batch.firstOffset(),
                batch.lastOffset(), records.size(), codec, uncompressedSize, (int) crc.getValue(), payload);
    }

    private int writeRecords(RecordBatch batch) {
        if (batch.isSkipMarker()) {
            return writeSkipMarker(batch);
        }
        List<ReplicatedRecord> records = batch.records();
        writer.reset();
        writer.writeByte(BatchFormat.PAYLOAD_MAGIC_COLUMNAR);
        writer.writeVarlong(batch.coveredFrom());
        writer.writeLong(batch.topicId().getMostSignificantBits());
        writer.writeLong(batch.topicId().getLeastSignificantBits());
        long previousOffset = records.isEmpty() ? 0 : records.get(0).offset();
        long previousTimestamp = records.isEmpty() ? 0 : records.get(0).timestamp();
        writer.writeVarlong(previousOffset);
        writer.writeVarlong(previousTimestamp);
        writer.writeUnsignedVarint(records.size());
        writeHeaderKeyDictionary(records);
        for (int i = 0, n = records.size(); i < n; i++) {
            ReplicatedRecord record = records.get(i);
            writer.writeByte(BatchFormat.timestampCode(record.timestampType()));
            // Wrapping subtraction: the decoder's wrapping addition restores any pair of longs.
            writer.writeVarlong(record.offset() - previousOffset);
            writer.writeVarlong(record.timestamp() - previousTimestamp);
            previousOffset = record.offset();
            previousTimestamp = record.timestamp();
            writer.writeNullableBytes(record.key());
            byte[] value = record.value();
            writer.writeVarint(value == null ? -1 : value.length); // the bytes follow every record's metadata
            List<RecordHeader> headers = record.headers();
            writer.writeUnsignedVarint(headers.size());
            for (int h = 0, hn = headers.size(); h < hn; h++) {
                RecordHeader header = headers.get(h);
                writer.writeUnsignedVarint(keyIndex.get(header.key()));
                writer.writeNullableBytes(header.value());
            }
        }
        for (int i = 0, n = records.size(); i < n; i++) {
            byte[] value = records.get(i).value();
            if (value != null) {
                writer.writeBytes(value);
            }
        }
        return writer.position();
    }

    private int writeSkipMarker(RecordBatch marker) {
        writer.reset();
        writer.writeByte(BatchFormat.PAYLOAD_MAGIC_SKIP_MARKER);
        writer.writeVarlong(marker.coveredFrom());
        writer.writeLong(marker.topicId().getMostSignificantBits());
        writer.writeLong(marker.topicId().getLeastSignificantBits());
        writer.writeVarlong(marker.skipped().firstOffset());
        writer.writeVarlong(marker.skipped().lastOffset());
        writer.writeUnsignedVarint(marker.skipped().records());
        return writer.position();
    }

    private void writeHeaderKeyDictionary(List<ReplicatedRecord> records) {
        keyIndex.clear();
        keyBytes.clear();
        for (int i = 0, n = records.size(); i < n; i++) {
            List<RecordHeader> headers = records.get(i).headers();
            for (int h = 0, hn = headers.size(); h < hn; h++) {
                String key = headers.get(h).key();
                if (!keyIndex.containsKey(key)) {
                    keyIndex.put(key, keyBytes.size());
                    keyBytes.add(key.getBytes(StandardCharsets.UTF_8));
                }
            }
        }
        writer.writeUnsignedVarint(keyBytes.size());
        for (byte[] key : keyBytes) {
            writer.writeUnsignedVarint(key.length);
            writer.writeBytes(key);
        }
    }

    private ByteBuffer compress(CompressionCodec codec, int length) {
        if (codec == CompressionCodec.ZSTD) {
            // one context for every batch: see ZstdBlocks for why not a stream per batch
            byte[] frame = zstd.compress(writer.array(), length);
            zstd.trim(RETAINED_BYTES);
            return ByteBuffer.wrap(frame, 0, zstd.compressedLength());
        }
        compressed.position(0);
        try (OutputStream out = codec.compression().wrapForOutput(compressed, KAFKA_MAGIC_V2)) {
            out.write(writer.array(), 0, length);
        } catch (IOException e) {
            // Only the in-memory ByteBufferOutputStream is written: an IOException is a codec bug.
            throw new UncheckedIOException("compressing a batch with " + codec + " failed", e);
        }
        ByteBuffer buffer = compressed.buffer().duplicate();
        buffer.flip();
        return buffer;
    }

    /** Frees the native compression context, if one was made. The encoder must not be used after. */
    @Override
    public void close() {
        zstd.close();
    }
}
