package io.jetstream.kafka.core.batch;

import static io.jetstream.kafka.core.wire.ProtocolException.Kind.DECOMPRESSION_FAILED;
import static io.jetstream.kafka.core.wire.ProtocolException.Kind.LIMIT_EXCEEDED;

import io.jetstream.kafka.core.wire.ProtocolException;
import java.nio.ByteBuffer;

/**
 * Pre-scan of the xerial snappy stream format that kafka-clients writes, run before the payload is
 * handed to snappy-java.
 *
 * <p>Why: {@code SnappyInputStream} allocates a buffer of each chunk's declared compressed length
 * (up to 512 MiB) and of each chunk's declared uncompressed length (up to 4 GiB) before it checks
 * anything. A peer could make the destination allocate that much with a few bytes. This scan checks every
 * chunk length against the bytes that actually follow, and the sum of the uncompressed lengths
 * against the size declared in the batch header, so only honest lengths reach the library.
 *
 * <pre>
 * +------------------------+------------+-----------------+----------------------------+-----
 * | magic "\x82SNAPPY\0"   | version    | compat version  | chunkLen (int32) | chunk   | ...
 * | 8 bytes                | int32      | int32           |                  | snappy  |
 * +------------------------+------------+-----------------+----------------------------+-----
 * chunk = uncompressed length (LEB128 uvarint, at most 32 bits) followed by snappy elements
 * </pre>
 */
final class SnappyFraming {

    private static final int HEADER_BYTES = 16;
    private static final byte[] MAGIC = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};

    private SnappyFraming() {
    }

    static void check(ByteBuffer payload, int declaredSize) {
        int pos = payload.position();
        int limit = payload.limit();
        if (limit - pos < HEADER_BYTES) {
            throw corrupt("stream of " + (limit - pos) + " bytes is shorter than the 16-byte header");
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (payload.get(pos + i) != MAGIC[i]) {
                throw corrupt("stream does not start with the snappy-java magic");
            }
        }
        pos += HEADER_BYTES;
        long uncompressedTotal = 0;
        while (pos < limit) {
            if (limit - pos < 4) {
                throw corrupt("chunk length at byte " + pos + " is cut off");
            }
            int chunkLength = payload.getInt(pos);
            pos += 4;
            if (chunkLength < 1 || chunkLength > limit - pos) {
                throw corrupt("chunk length " + chunkLength + " at byte " + (pos - 4) + " does not fit the "
                        + (limit - pos) + " bytes that follow");
            }
            uncompressedTotal += uncompressedLength(payload, pos, pos + chunkLength);
            if (uncompressedTotal > declaredSize) {
                throw new ProtocolException(LIMIT_EXCEEDED, "snappy chunks declare at least " + uncompressedTotal
                        + " uncompressed bytes, the header declares " + declaredSize);
            }
            pos += chunkLength;
        }
    }

    private static long uncompressedLength(ByteBuffer payload, int pos, int end) {
        long value = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            if (pos >= end) {
                break;
            }
            int b = payload.get(pos++);
            value |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw corrupt("chunk preamble is not a valid uncompressed length");
    }

    private static ProtocolException corrupt(String message) {
        return new ProtocolException(DECOMPRESSION_FAILED, "snappy " + message);
    }
}
