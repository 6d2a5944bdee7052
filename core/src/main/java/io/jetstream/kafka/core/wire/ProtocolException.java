package io.jetstream.kafka.core.wire;

import java.util.Objects;

/**
 * Input from a peer violates the JetStream wire format: a frame or a batch payload could not be
 * decoded. Every decoder in core throws this exception, and only this one, for bad input; any other
 * exception escaping a decoder is a bug.
 *
 * <p>{@link #kind()} classifies the failure so that a relay can count errors per kind and map them
 * to an {@code ERROR} frame before closing the connection. The message names the field, the bad
 * value and the rule it broke.
 *
 * <p>The exception is unchecked (it travels through Netty's {@code ByteToMessageDecoder}, which
 * wraps it in a {@code DecoderException}; unwrap the cause there). It carries no stack trace: bad
 * input is an expected event on a server facing the network, the message is the diagnosis, and a
 * peer flooding garbage must not make the relay spend its CPU on filling stack traces.
 */
public final class ProtocolException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** What was wrong with the input. Stable names: relays export them as metric tags. */
    public enum Kind {
        /** The length prefix is above the configured maximum frame size (checked before any allocation). */
        FRAME_TOO_LARGE,
        /** A frame, field or payload ends before the bytes it declares. */
        TRUNCATED,
        /** The frame type byte is not defined in the protocol version in use. */
        UNKNOWN_TYPE,
        /** The peer speaks a protocol version this node does not support. */
        UNSUPPORTED_VERSION,
        /** A field value is out of range, inconsistent with another field, not UTF-8, or bytes are left over. */
        MALFORMED,
        /** The CRC32C of a batch payload does not match the header. */
        BAD_CRC,
        /** The compression codec id of a batch is not known. */
        UNKNOWN_CODEC,
        /** The codec could not decompress the payload (corrupt compressed data). */
        DECOMPRESSION_FAILED,
        /** A declared or actual size or count exceeds a configured limit (the decompression-bomb guard). */
        LIMIT_EXCEEDED
    }

    private final Kind kind;

    public ProtocolException(Kind kind, String message) {
        this(kind, message, null);
    }

    public ProtocolException(Kind kind, String message, Throwable cause) {
        super(kind + ": " + message, cause, true, false);
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    /** The failure class; never null. */
    public Kind kind() {
        return kind;
    }
}
