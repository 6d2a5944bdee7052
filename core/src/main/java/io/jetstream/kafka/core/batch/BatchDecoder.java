package io.jetstream.kafka.core.batch;

import static io.jetstream.kafka.core.batch.BatchFormat.MIN_RECORD_BYTES;
import static io.jetstream.kafka.core.batch.BatchFormat.PAYLOAD_MAGIC;
import static io.jetstream.kafka.core.batch.BatchFormat.TIMESTAMP_TYPE_MASK;
import static io.jetstream.kafka.core.wire.ProtocolException.Kind.LIMIT_EXCEEDED;
import static io.jetstream.kafka.core.wire.ProtocolException.Kind.MALFORMED;

import io.jetstream.kafka.core.wire.ProtocolException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.TimestampType;

/**
 * Decodes an {@link EncodedBatch} back into a {@link RecordBatch}: the inverse of
 * {@link BatchEncoder} (the payload layout is drawn there).
 *
 * <p>Checks, in this order, each before the work it protects:
 * <ol>
 *   <li>declared uncompressed size and record count against {@link BatchLimits}, and the record
 *       count against what the declared size can hold ({@code LIMIT_EXCEEDED}, {@code MALFORMED});
 *       the total header count is checked against its limit while parsing, before each header array
 *       is allocated;
 *   <li>CRC32C of the payload as received ({@code BAD_CRC});
 *   <li>decompression bounded by the declared size ({@code DECOMPRESSION_FAILED},
 *       {@code LIMIT_EXCEEDED}, {@code MALFORMED});
 *   <li>every length and count inside the payload against the bytes that remain ({@code TRUNCATED},
 *       {@code MALFORMED}), no trailing bytes;
 *   <li>record count, first and last offset against the header ({@code MALFORMED}), so a header
 *       that lies about the offsets it carries is caught even though only the payload has a CRC.
 * </ol>
 * Bad input raises {@link ProtocolException} and nothing else.
 *
 * <p>A decoder is not thread-safe (one per thread); it reuses a decompression buffer. The returned
 * batch owns fresh arrays and shares nothing with the payload, which is only read.
 */
public final class BatchDecoder implements AutoCloseable {

    private static final byte[] EMPTY = new byte[0];

    private final BatchLimits limits;
    private final PayloadInflater inflater = new PayloadInflater();
    private final PayloadReader reader = new PayloadReader();
    private byte[] direct = EMPTY;
    private int headersLeft;

    public BatchDecoder() {
        this(BatchLimits.defaults());
    }

    public BatchDecoder(BatchLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    /**
     * Verifies and decodes a batch.
     *
     * @throws ProtocolException when the batch is corrupt, inconsistent or over the limits
     */
    public RecordBatch decode(EncodedBatch encoded) {
        checkDeclaredSizes(encoded);
        PayloadChecksum.verify(encoded);
        ByteBuffer payload = encoded.payload();
        int size = encoded.uncompressedSize();
        try {
            if (encoded.codec() == CompressionCodec.NONE) {
                if (payload.remaining() != size) {
                    throw new ProtocolException(MALFORMED, "uncompressed payload has " + payload.remaining()
                            + " bytes, the header declares " + size);
                }
                if (payload.hasArray()) {
                    reader.reset(payload.array(), payload.arrayOffset() + payload.position(), size);
                } else {
                    reader.reset(copyOfDirect(payload), 0, size);
                }
            } else {
                reader.reset(inflater.inflate(encoded.codec(), payload, size), 0, size);
            }
            return readBatch(encoded);
        } finally {
            reader.clear();
            inflater.trim();
            if (direct.length > PayloadInflater.RETAINED_BYTES) {
                direct = EMPTY;
            }
        }
    }

    private void checkDeclaredSizes(EncodedBatch encoded) {
        int size = encoded.uncompressedSize();
        int count = encoded.recordCount();
        if (size < 0 || size > limits.maxUncompressedBytes()) {
            throw new ProtocolException(LIMIT_EXCEEDED, "declared uncompressed size " + size
                    + " is outside 0.." + limits.maxUncompressedBytes());
        }
        if (count < 0 || count > limits.maxRecords()) {
            throw new ProtocolException(LIMIT_EXCEEDED, "declared record count " + count + " is outside 0.."
                    + limits.maxRecords());
        }
        if ((long) count * MIN_RECORD_BYTES > size) {
            throw new ProtocolException(MALFORMED, count + " records cannot fit in the declared " + size
                    + " uncompressed bytes (each takes at least " + MIN_RECORD_BYTES + ")");
        }
    }

    private byte[] copyOfDirect(ByteBuffer payload) {
        if (direct.length < payload.remaining()) {
            direct = new byte[payload.remaining()];
        }
        payload.duplicate().get(direct, 0, payload.remaining());
        return direct;
    }

    private RecordBatch readBatch(EncodedBatch encoded) {
        int magic = reader.readUnsignedByte("magic");
        if (magic == BatchFormat.PAYLOAD_MAGIC_SKIP_MARKER) {
            return readSkipMarker(encoded);
        }
        if (magic == PAYLOAD_MAGIC || magic == BatchFormat.PAYLOAD_MAGIC_COVERAGE) {
            // Only senders of frame protocol 1, which every peer now refuses at HELLO, wrote these: on a
            // connection of protocol 2 such a payload is a replay (its MAC may still be valid), and it
            // carries no topic id, so it cannot be told apart from a batch of another incarnation.
            throw new ProtocolException(MALFORMED, "payload version " + magic + " is no longer read: only senders "
                    + "of frame protocol 1 wrote it, and its batches carry no topic id");
        }
        if (magic != BatchFormat.PAYLOAD_MAGIC_COLUMNAR) {
            throw new ProtocolException(MALFORMED, "payload magic " + magic + " is neither "
                    + BatchFormat.PAYLOAD_MAGIC_COLUMNAR + " nor " + BatchFormat.PAYLOAD_MAGIC_SKIP_MARKER);
        }
        long coveredFrom = reader.readVarlong("coveredFrom");
        if (coveredFrom < 0) {
            throw new ProtocolException(MALFORMED, "coveredFrom " + coveredFrom + " is negative");
        }
        Uuid topicId = new Uuid(reader.readLong("topicId"), reader.readLong("topicId"));
        long offset = reader.readVarlong("baseOffset");
        long timestamp = reader.readVarlong("baseTimestamp");
        int count = reader.readCount("recordCount");
        if (count != encoded.recordCount()) {
            throw new ProtocolException(MALFORMED, "payload holds " + count + " records, the header declares "
                    + encoded.recordCount());
        }
        String[] keys = readHeaderKeys();
        ReplicatedRecord[] records = new ReplicatedRecord[count];
        headersLeft = limits.maxHeaders();
        // the values come after every record's metadata, so the records are built then
        long[] offsets = new long[count];
        long[] timestamps = new long[count];
        TimestampType[] types = new TimestampType[count];
        byte[][] recordKeys = new byte[count][];
        int[] valueLengths = new int[count];
        @SuppressWarnings("unchecked")
        List<RecordHeader>[] headers = new List[count];
        long valueBytes = 0;
        for (int i = 0; i < count; i++) {
            int attributes = reader.readUnsignedByte("attributes");
            TimestampType timestampType = BatchFormat.timestampType(attributes & TIMESTAMP_TYPE_MASK);
            if (timestampType == null || (attributes & ~TIMESTAMP_TYPE_MASK) != 0) {
                throw new ProtocolException(MALFORMED, "record " + i + " has invalid attributes 0x"
                        + Integer.toHexString(attributes));
            }
            offset += reader.readVarlong("offsetDelta");
            timestamp += reader.readVarlong("timestampDelta");
            byte[] key = reader.readNullableBytes("key");
            int valueLength = reader.readNullableLength("valueLength");
            valueBytes += Math.max(0, valueLength);
            if (valueBytes > reader.remaining()) {
                throw new ProtocolException(MALFORMED, "record values of " + valueBytes + " bytes by record " + i
                        + " exceed the " + reader.remaining() + " bytes left");
            }
            offsets[i] = offset;
            timestamps[i] = timestamp;
            types[i] = timestampType;
            recordKeys[i] = key;
            valueLengths[i] = valueLength;
            headers[i] = readHeaders(keys);
        }
        if (valueBytes != reader.remaining()) {
            throw new ProtocolException(MALFORMED, "the records' values take " + valueBytes + " bytes, "
                    + reader.remaining() + " follow the last record's metadata");
        }
        for (int i = 0; i < count; i++) {
            byte[] value = valueLengths[i] < 0 ? null : reader.readBytes("value", valueLengths[i]);
            records[i] = new ReplicatedRecord(offsets[i], timestamps[i], types[i], recordKeys[i], value, headers[i]);
        }
        if (reader.remaining() != 0) {
            throw new ProtocolException(MALFORMED, reader.remaining() + " bytes follow the last record");
        }
        RecordBatch batch = new RecordBatch(encoded.topic(), encoded.partition(), encoded.prevOffset(), coveredFrom,
                Arrays.asList(records), topicId);
        if (batch.firstOffset() != encoded.firstOffset() || batch.lastOffset() != encoded.lastOffset()) {
            throw new ProtocolException(MALFORMED, "payload offsets " + batch.firstOffset() + ".."
                    + batch.lastOffset() + " differ from the header's " + encoded.firstOffset() + ".."
                    + encoded.lastOffset());
        }
        return batch;
    }

    /**
     * Version 4: a skip marker. Its range must follow its {@code prevOffset}, start at or after its
     * coverage, and match the header, which declares no records.
     */
    private RecordBatch readSkipMarker(EncodedBatch encoded) {
        long coveredFrom = reader.readVarlong("coveredFrom");
        Uuid topicId = new Uuid(reader.readLong("topicId"), reader.readLong("topicId"));
        long first = reader.readVarlong("firstOffset");
        long last = reader.readVarlong("lastOffset");
        int skipped = reader.readCount("skippedRecords");
        if (reader.remaining() != 0) {
            throw new ProtocolException(MALFORMED, reader.remaining() + " bytes follow the skip marker");
        }
        if (encoded.recordCount() != 0) {
            throw new ProtocolException(MALFORMED, "a skip marker carries no records, the header declares "
                    + encoded.recordCount());
        }
        boolean rangeValid = coveredFrom >= 0 && first >= coveredFrom && first > encoded.prevOffset() && last >= first
                && skipped >= 1;
        if (!rangeValid) {
            throw new ProtocolException(MALFORMED, "skip marker of offsets " + first + ".." + last + " (" + skipped
                    + " records, coveredFrom " + coveredFrom + ") does not follow prevOffset " + encoded.prevOffset());
        }
        if (first != encoded.firstOffset() || last != encoded.lastOffset()) {
            throw new ProtocolException(MALFORMED, "skip marker offsets " + first + ".." + last
                    + " differ from the header's " + encoded.firstOffset() + ".." + encoded.lastOffset());
        }
        return new RecordBatch(encoded.topic(), encoded.partition(), encoded.prevOffset(), coveredFrom, List.of(),
                topicId, new RecordBatch.SkippedRange(first, last, skipped));
    }

    private String[] readHeaderKeys() {
        int keyCount = reader.readCount("headerKeyCount");
        if (keyCount > limits.maxHeaders()) {
            // a key serves at least one header: a longer dictionary only costs heap
            throw new ProtocolException(LIMIT_EXCEEDED, "header key dictionary of " + keyCount
                    + " keys, above the limit of " + limits.maxHeaders() + " headers");
        }
        if (keyCount > reader.remaining()) {
            throw new ProtocolException(MALFORMED, "header key count " + keyCount + " exceeds the "
                    + reader.remaining() + " bytes left");
        }
        String[] keys = new String[keyCount];
        for (int k = 0; k < keyCount; k++) {
            keys[k] = reader.readString("headerKey");
        }
        return keys;
    }

    private List<RecordHeader> readHeaders(String[] keys) {
        int headerCount = reader.readCount("headerCount");
        if (headerCount == 0) {
            return List.of();
        }
        // Each header takes at least two bytes: bound the array by what is left.
        if (headerCount > reader.remaining() / 2) {
            throw new ProtocolException(MALFORMED, "header count " + headerCount + " exceeds what the "
                    + reader.remaining() + " bytes left can hold");
        }
        headersLeft -= headerCount;
        if (headersLeft < 0) {
            throw new ProtocolException(LIMIT_EXCEEDED, "the batch has more than " + limits.maxHeaders()
                    + " record headers");
        }
        RecordHeader[] headers = new RecordHeader[headerCount];
        for (int h = 0; h < headerCount; h++) {
            int keyIndex = reader.readCount("headerKeyIndex");
            if (keyIndex >= keys.length) {
                throw new ProtocolException(MALFORMED, "header key index " + keyIndex + " is outside the "
                        + keys.length + "-entry dictionary");
            }
            headers[h] = new RecordHeader(keys[keyIndex], reader.readNullableBytes("headerValue"));
        }
        return List.of(headers);
    }

    /** Frees the native decompression context, if one was made. The decoder must not be used after. */
    @Override
    public void close() {
        inflater.close();
    }
}
