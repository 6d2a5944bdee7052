package io.jetstream.kafka.core.batch;

/**
 * Growable, reusable byte array with the varint writers of the batch payload format. Not
 * thread-safe; owned by one {@link BatchEncoder}.
 */
final class PayloadWriter {

    /** Largest array the JVM reliably allocates. */
    private static final int MAX_ARRAY = Integer.MAX_VALUE - 16;

    private byte[] buf;
    private int pos;

    PayloadWriter(int initialCapacity) {
        this.buf = new byte[initialCapacity];
    }

    void reset() {
        pos = 0;
    }

    byte[] array() {
        return buf;
    }

    int position() {
        return pos;
    }

    void writeByte(int b) {
        ensure(1);
        buf[pos++] = (byte) b;
    }

    /** Big-endian 64-bit integer, 8 bytes. */
    void writeLong(long value) {
        ensure(8);
        for (int shift = 56; shift >= 0; shift -= 8) {
            buf[pos++] = (byte) (value >>> shift);
        }
    }

    /** Unsigned LEB128, 1 to 5 bytes; {@code value} must be {@code >= 0}. */
    void writeUnsignedVarint(int value) {
        ensure(5);
        int v = value;
        while ((v & ~0x7F) != 0) {
            buf[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[pos++] = (byte) v;
    }

    /** Zig-zag signed varint, 1 to 5 bytes. */
    void writeVarint(int value) {
        writeUnsignedVarint((value << 1) ^ (value >> 31));
    }

    /** Zig-zag signed varlong, 1 to 10 bytes. */
    void writeVarlong(long value) {
        ensure(10);
        long v = (value << 1) ^ (value >> 63);
        while ((v & ~0x7FL) != 0) {
            buf[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[pos++] = (byte) v;
    }

    /** Zig-zag length ({@code -1} for null) followed by the bytes. */
    void writeNullableBytes(byte[] bytes) {
        if (bytes == null) {
            writeVarint(-1);
            return;
        }
        writeVarint(bytes.length);
        ensure(bytes.length);
        System.arraycopy(bytes, 0, buf, pos, bytes.length);
        pos += bytes.length;
    }

    void writeBytes(byte[] bytes) {
        ensure(bytes.length);
        System.arraycopy(bytes, 0, buf, pos, bytes.length);
        pos += bytes.length;
    }

    private void ensure(int extra) {
        int needed = pos + extra;
        if (needed <= buf.length && needed >= 0) {
            return;
        }
        if (needed < 0 || needed > MAX_ARRAY) {
            throw new IllegalArgumentException("batch payload exceeds " + MAX_ARRAY + " bytes");
        }
        int grown = (int) Math.min(MAX_ARRAY, Math.max((long) buf.length * 2, needed));
        byte[] bigger = new byte[grown];
        System.arraycopy(buf, 0, bigger, 0, pos);
        buf = bigger;
    }
}
