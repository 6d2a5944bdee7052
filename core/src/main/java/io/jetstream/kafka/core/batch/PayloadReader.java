package io.jetstream.kafka.core.batch;

import static io.jetstream.kafka.core.wire.ProtocolException.Kind.MALFORMED;
import static io.jetstream.kafka.core.wire.ProtocolException.Kind.TRUNCATED;

import io.jetstream.kafka.core.wire.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Bounds-checked reader over an uncompressed payload held in a byte array. Every length is
 * compared with the bytes that remain before anything is allocated for it, so a lying length costs
 * an exception, not memory. Reusable through {@link #reset}; not thread-safe.
 */
final class PayloadReader {

    private byte[] buf;
    private int pos;
    private int limit;

    void reset(byte[] array, int offset, int length) {
        this.buf = array;
        this.pos = offset;
        this.limit = offset + length;
    }

    /** Drops the reference to the array so a retained reader pins no payload. */
    void clear() {
        this.buf = null;
        this.pos = 0;
        this.limit = 0;
    }

    int remaining() {
        return limit - pos;
    }

    int readUnsignedByte(String field) {
        if (pos >= limit) {
            throw truncated(field, 1);
        }
        return buf[pos++] & 0xFF;
    }

    /** Big-endian 64-bit integer, 8 bytes. */
    long readLong(String field) {
        if (limit - pos < 8) {
            throw truncated(field, 8);
        }
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = (value << 8) | (buf[pos++] & 0xFF);
        }
        return value;
    }

    /** Unsigned LEB128 of at most 32 bits (the int may come out negative); longer is MALFORMED. */
    int readUnsignedVarint(String field) {
        int value = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            if (pos >= limit) {
                throw truncated(field, 1);
            }
            int b = buf[pos++];
            value |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                if (shift == 28 && (b & 0x70) != 0) {
                    break; // more than 32 bits
                }
                return value;
            }
        }
        throw new ProtocolException(MALFORMED, field + ": varint longer than 5 bytes or above 32 bits");
    }

    int readCount(String field) {
        int count = readUnsignedVarint(field);
        if (count < 0) {
            throw new ProtocolException(MALFORMED, field + ": count " + Integer.toUnsignedString(count)
                    + " is above " + Integer.MAX_VALUE);
        }
        return count;
    }

    /** Zig-zag signed varint. */
    int readVarint(String field) {
        int raw = readUnsignedVarint(field);
        return (raw >>> 1) ^ -(raw & 1);
    }

    /** Zig-zag signed varlong, at most 10 bytes. */
    long readVarlong(String field) {
        long value = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (pos >= limit) {
                throw truncated(field, 1);
            }
            int b = buf[pos++];
            value |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                if (shift == 63 && (b & 0x7E) != 0) {
                    break; // more than 64 bits
                }
                return (value >>> 1) ^ -(value & 1);
            }
        }
        throw new ProtocolException(MALFORMED, field + ": varlong longer than 10 bytes or above 64 bits");
    }

    /** Zig-zag length then bytes; length -1 is null. */
    byte[] readNullableBytes(String field) {
        int length = readVarint(field);
        if (length == -1) {
            return null;
        }
        checkLength(field, length);
        byte[] bytes = Arrays.copyOfRange(buf, pos, pos + length);
        pos += length;
        return bytes;
    }

    /** A zig-zag varint length: -1 (null) or a length no larger than the bytes left. */
    int readNullableLength(String field) {
        int length = readVarint(field);
        if (length != -1) {
            checkLength(field, length);
        }
        return length;
    }

    /** {@code length} bytes (checked against the bytes left). */
    byte[] readBytes(String field, int length) {
        checkLength(field, length);
        byte[] bytes = Arrays.copyOfRange(buf, pos, pos + length);
        pos += length;
        return bytes;
    }

    /** Unsigned varint length then UTF-8 bytes (decoded leniently, like Kafka decodes header keys). */
    String readString(String field) {
        int length = readCount(field);
        checkLength(field, length);
        String s = new String(buf, pos, length, StandardCharsets.UTF_8);
        pos += length;
        return s;
    }

    private void checkLength(String field, int length) {
        if (length < 0) {
            throw new ProtocolException(MALFORMED, field + ": length " + length + " is negative and not -1 (null)");
        }
        if (length > limit - pos) {
            throw truncated(field, length);
        }
    }

    private ProtocolException truncated(String field, int needed) {
        return new ProtocolException(TRUNCATED,
                field + ": needs " + needed + " bytes but the payload has " + (limit - pos) + " left");
    }
}
