package io.jetstream.kafka.core.batch;

import org.apache.kafka.common.record.TimestampType;

/** Constants of the batch payload format shared by {@link BatchEncoder} and {@link BatchDecoder}. */
final class BatchFormat {

    /**
     * First byte of every uncompressed payload: the payload format version. Version 1: each record
     * with its value inside, no topic id. Written only by senders of frame protocol 1 (which every
     * peer refuses at HELLO now), so no longer read either: on a protocol-2 connection it can only
     * be a replay, and without a topic id it cannot be told from a batch of another incarnation.
     */
    static final int PAYLOAD_MAGIC = 1;

    /**
     * Payload format version 2: version 1 with a varlong {@code coveredFrom} right after the magic.
     * Older senders wrote it for a batch whose coverage does not start right after its
     * {@code prevOffset} (see {@link RecordBatch}); neither written nor read, as version 1.
     */
    static final int PAYLOAD_MAGIC_COVERAGE = 2;

    /**
     * Payload format version 3, the one written now: {@code coveredFrom} (varlong) and the origin
     * topic's 16-byte id (most significant long first; zero when unknown) right after the magic,
     * then version 1's fields, except that each record's value bytes move out of the record to the
     * end of the payload, in record order (columnar: the values compress as one stream). Layout in
     * {@link BatchEncoder}.
     */
    static final int PAYLOAD_MAGIC_COLUMNAR = 3;

    /**
     * Payload format version 4, a skip marker ({@link RecordBatch#isSkipMarker()}): {@code coveredFrom}
     * (varlong) and the topic id as in version 3, then the skipped range's first and last offsets
     * (varlongs) and its record count (uvarint), and nothing else; the frame header declares no
     * records. Layout in {@link BatchEncoder}.
     */
    static final int PAYLOAD_MAGIC_SKIP_MARKER = 4;

    /**
     * Kafka record-batch magic handed to the kafka-clients codecs. Magic 2 selects the modern
     * framing (for example the correct LZ4 frame checksum); it is not written to our wire.
     */
    static final byte KAFKA_MAGIC_V2 = 2;

    /**
     * Smallest encoded record: attributes, offset delta, timestamp delta, key length, value length
     * and header count take at least one byte each. Bounds the record count a payload can declare.
     */
    static final int MIN_RECORD_BYTES = 6;

    /** Attribute bits 0-1 hold the timestamp type; the other bits must be zero in version 1. */
    static final int TIMESTAMP_TYPE_MASK = 0x03;

    private BatchFormat() {
    }

    static int timestampCode(TimestampType type) {
        switch (type) {
            case CREATE_TIME:
                return 1;
            case LOG_APPEND_TIME:
                return 2;
            default:
                return 0;
        }
    }

    /** Inverse of {@link #timestampCode}; returns null for the undefined code 3. */
    static TimestampType timestampType(int code) {
        switch (code) {
            case 0:
                return TimestampType.NO_TIMESTAMP_TYPE;
            case 1:
                return TimestampType.CREATE_TIME;
            case 2:
                return TimestampType.LOG_APPEND_TIME;
            default:
                return null;
        }
    }
}
