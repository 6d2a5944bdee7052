package io.jetstream.kafka.core.batch;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.record.TimestampType;

/**
 * One origin record as JetStream replicates it: offset, timestamp and its type, key, value and
 * headers, byte for byte as the origin broker returned them (ByteArray converters; nothing is
 * re-serialised).
 *
 * <p>Arrays are not copied: the caller hands {@code key}, {@code value} and the header values over
 * and must not modify them afterwards. {@code key} and {@code value} may be null (a Kafka tombstone
 * has a null value). {@link #equals} and {@link #hashCode} compare array contents.
 *
 * @param offset origin offset of the record in its topic-partition
 * @param timestamp origin timestamp in epoch milliseconds (any long, as Kafka allows)
 * @param timestampType whether the timestamp is create time, log-append time or absent
 * @param key key bytes, or null
 * @param value value bytes, or null
 * @param headers headers in origin order (copied into an immutable list)
 */
public record ReplicatedRecord(long offset, long timestamp, TimestampType timestampType, byte[] key, byte[] value,
        List<RecordHeader> headers) {

    public ReplicatedRecord {
        Objects.requireNonNull(timestampType, "timestampType");
        headers = List.copyOf(headers);
    }

    /** A record with a create-time timestamp and no headers. */
    public ReplicatedRecord(long offset, long timestamp, byte[] key, byte[] value) {
        this(offset, timestamp, TimestampType.CREATE_TIME, key, value, List.of());
    }

    /**
     * Bytes of user data the record carries: key, value, header keys (UTF-16 length, a cheap
     * estimate) and header values. Used by batchers to size batches; not the encoded size.
     */
    public int dataBytes() {
        int bytes = (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
        for (RecordHeader header : headers) {
            bytes += header.key().length() + (header.value() == null ? 0 : header.value().length);
        }
        return bytes;
    }

    @Override
    public boolean equals(Object o) {
        return this == o
                || o instanceof ReplicatedRecord other
                        && offset == other.offset
                        && timestamp == other.timestamp
                        && timestampType == other.timestampType
                        && Arrays.equals(key, other.key)
                        && Arrays.equals(value, other.value)
                        && headers.equals(other.headers);
    }

    @Override
    public int hashCode() {
        int h = Long.hashCode(offset);
        h = 31 * h + Long.hashCode(timestamp);
        h = 31 * h + timestampType.hashCode();
        h = 31 * h + Arrays.hashCode(key);
        h = 31 * h + Arrays.hashCode(value);
        return 31 * h + headers.hashCode();
    }

    @Override
    public String toString() {
        return "ReplicatedRecord[offset=" + offset + ", timestamp=" + timestamp + " (" + timestampType + "), key="
                + (key == null ? "null" : key.length + " bytes") + ", value="
                + (value == null ? "null" : value.length + " bytes") + ", headers=" + headers.size() + "]";
    }
}
