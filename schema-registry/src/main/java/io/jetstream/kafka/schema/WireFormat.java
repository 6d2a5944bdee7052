package io.jetstream.kafka.schema;

/**
 * The Confluent Schema Registry wire format of a record key or value:
 *
 * <pre>
 * +-------+-----------+------------------------------------------------+
 * | magic | schema id | data (Avro binary; JSON; Protobuf indexes+data) |
 * | 0x00  | int32 BE  |                                                |
 * +-------+-----------+------------------------------------------------+
 * </pre>
 *
 * Detection is by shape only (a leading zero byte and at least five bytes): plain bytes can look
 * the same, which is why an id is believed only once the source registry knows it.
 */
public final class WireFormat {

    public static final byte MAGIC = 0;
    /** Magic byte plus the four bytes of the id. */
    public static final int HEADER_BYTES = 5;
    /** What {@link #schemaId} returns for data that is not in the wire format. */
    public static final int NONE = -1;

    private WireFormat() {
    }

    /** The schema id the data starts with, or {@link #NONE} (null, shorter than the header, other magic, negative id). */
    public static int schemaId(byte[] data) {
        if (data == null || data.length < HEADER_BYTES || data[0] != MAGIC) {
            return NONE;
        }
        int id = ((data[1] & 0xFF) << 24) | ((data[2] & 0xFF) << 16) | ((data[3] & 0xFF) << 8) | (data[4] & 0xFF);
        return id < 0 ? NONE : id;
    }

    /** Replaces the id of data in the wire format, in place. */
    public static void rewriteId(byte[] data, int id) {
        if (schemaId(data) == NONE) {
            throw new IllegalArgumentException("not in the schema registry wire format");
        }
        if (id < 0) {
            throw new IllegalArgumentException("schema id " + id + " is negative");
        }
        data[1] = (byte) (id >>> 24);
        data[2] = (byte) (id >>> 16);
        data[3] = (byte) (id >>> 8);
        data[4] = (byte) id;
    }

    /** {@code 0x00 | id | body}: a new array. */
    public static byte[] frame(int id, byte[] body) {
        byte[] out = new byte[HEADER_BYTES + body.length];
        out[0] = MAGIC;
        System.arraycopy(body, 0, out, HEADER_BYTES, body.length);
        rewriteId(out, id);
        return out;
    }
}
