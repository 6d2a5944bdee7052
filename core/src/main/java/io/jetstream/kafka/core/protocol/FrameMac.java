package io.jetstream.kafka.core.protocol;

import io.netty.buffer.ByteBuf;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * The end-to-end message authentication code a BATCH, TOPIC_METADATA or ACK frame may carry: an
 * HMAC-SHA256 computed by the source-site connector (batches, metadata) or the destination-site
 * connector (acknowledgements) with a key the relays never hold (see
 * {@code io.jetstream.kafka.core.protocol.integrity.FrameSigner} for what it covers). Relays carry
 * it through unchanged; it travels only on connections whose handshake agreed on
 * {@link HelloFrame#FLAG_MACS}.
 *
 * <p>Either {@link #NONE} (no MAC: integrity is off at the origin, or a hop without MAC fields
 * dropped it) or exactly {@value #LENGTH} bytes. Immutable: the bytes are copied in and out.
 */
public final class FrameMac {

    /** Bytes of an HMAC-SHA256. */
    public static final int LENGTH = 32;

    /** No MAC. */
    public static final FrameMac NONE = new FrameMac(new byte[0]);

    private final byte[] bytes;

    private FrameMac(byte[] bytes) {
        this.bytes = bytes;
    }

    /**
     * A MAC of {@value #LENGTH} bytes (copied), or {@link #NONE} for an empty array.
     *
     * @throws IllegalArgumentException for any other length
     */
    public static FrameMac of(byte[] bytes) {
        if (bytes.length == 0) {
            return NONE;
        }
        if (bytes.length != LENGTH) {
            throw new IllegalArgumentException("a MAC has " + LENGTH + " bytes, not " + bytes.length);
        }
        return new FrameMac(bytes.clone());
    }

    public boolean isPresent() {
        return bytes.length != 0;
    }

    /** 0 or {@value #LENGTH}. */
    public int length() {
        return bytes.length;
    }

    /** A copy of the bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** Writes the bytes (none for {@link #NONE}). */
    public void writeTo(ByteBuf out) {
        out.writeBytes(bytes);
    }

    /**
     * Whether this MAC equals {@code expected}, compared in constant time
     * ({@link MessageDigest#isEqual}) so that the time taken tells nothing about how many leading
     * bytes a forgery got right. {@link #NONE} matches nothing.
     */
    public boolean matches(byte[] expected) {
        return isPresent() && MessageDigest.isEqual(bytes, expected);
    }

    /** Value equality, in constant time too (frames holding a MAC compare by value). */
    @Override
    public boolean equals(Object o) {
        return o instanceof FrameMac other && MessageDigest.isEqual(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /** {@code none}, or the first four bytes in hex (enough to tell MACs apart in a log, nothing more). */
    @Override
    public String toString() {
        if (!isPresent()) {
            return "none";
        }
        return String.format("%02x%02x%02x%02x…", bytes[0], bytes[1], bytes[2], bytes[3]);
    }
}
