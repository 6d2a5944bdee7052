package io.jetstream.kafka.core.wire;

/**
 * The Netty-free part of framing: validation of the {@code int32} length prefix that starts every
 * frame. It exists so that any transport (the relay's Netty pipeline, a blocking test client, a
 * {@code LengthFieldBasedFrameDecoder} subclass) applies the same rule <em>before</em> it reserves
 * memory for the frame.
 *
 * <pre>
 * +----------------+--------------+------------------------+
 * | length (int32) | type (uint8) | body (length - 1 bytes)|
 * +----------------+--------------+------------------------+
 *   not counted     \___________ length bytes ___________/
 * </pre>
 *
 * The length counts the type byte and the body, not the prefix itself, so the smallest legal value
 * is 1. Values are read as signed big-endian {@code int32}: a negative value is a length above
 * 2 GiB and therefore too large.
 */
public final class FrameLength {

    /** Bytes of the length prefix. */
    public static final int PREFIX_BYTES = 4;

    /** Default hard maximum of the {@code length} field: 16 MiB. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

    /** The smallest frame a peer can configure (room for the largest fixed routing header). */
    public static final int MIN_MAX_FRAME_BYTES = 1024;

    private FrameLength() {
    }

    /**
     * Validates a length prefix as soon as its four bytes are readable.
     *
     * @param length the {@code int32} read from the wire
     * @param maxFrameBytes the configured maximum (see {@link #checkMaxFrameBytes(int)})
     * @return {@code length}, for chaining
     * @throws ProtocolException {@link ProtocolException.Kind#FRAME_TOO_LARGE} when the length is above the
     *     maximum (or negative), {@link ProtocolException.Kind#MALFORMED} when it is zero
     */
    public static int validate(int length, int maxFrameBytes) {
        if (length < 0 || length > maxFrameBytes) {
            throw new ProtocolException(ProtocolException.Kind.FRAME_TOO_LARGE,
                    "frame length " + Integer.toUnsignedString(length) + " exceeds the maximum of " + maxFrameBytes
                            + " bytes");
        }
        if (length == 0) {
            throw new ProtocolException(ProtocolException.Kind.MALFORMED,
                    "frame length 0 leaves no room for the type byte (minimum 1)");
        }
        return length;
    }

    /** Validates a configured maximum frame size; throws {@link IllegalArgumentException} when out of range. */
    public static int checkMaxFrameBytes(int maxFrameBytes) {
        if (maxFrameBytes < MIN_MAX_FRAME_BYTES) {
            throw new IllegalArgumentException(
                    "max frame bytes " + maxFrameBytes + " is below the minimum of " + MIN_MAX_FRAME_BYTES);
        }
        return maxFrameBytes;
    }
}
