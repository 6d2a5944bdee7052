package io.jetstream.kafka.core.protocol;

import io.jetstream.kafka.core.wire.ProtocolException;

/** Code of an ERROR frame, sent just before the sender of the ERROR closes the connection. */
public enum ErrorCode {
    UNSUPPORTED_VERSION(1),
    AUTHENTICATION_FAILED(2),
    /** The peer sent a frame that could not be decoded (any decode error but the two below). */
    MALFORMED_FRAME(3),
    FRAME_TOO_LARGE(4),
    /** A well-formed frame that is not allowed now (BATCH before HELLO, SUBSCRIBE from a SENDER, ...). */
    UNEXPECTED_FRAME(5),
    UNKNOWN_STREAM(6),
    /** Authenticated, but the role, stream or topic is not permitted for this peer. */
    NOT_AUTHORIZED(7),
    SHUTTING_DOWN(8),
    IDLE_TIMEOUT(9),
    INTERNAL_ERROR(10),
    /**
     * A subscription gave way to a newer instance of the same task (a higher or equal epoch for the
     * same share), or was refused because a newer one holds the share. A client receiving it must
     * not reconnect: it is a left-over instance.
     */
    SUPERSEDED(11);

    private static final ErrorCode[] BY_CODE = WireEnums.indexByCode(ErrorCode.class, ErrorCode::code);

    private final int code;

    ErrorCode(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static ErrorCode forCode(int code) {
        return WireEnums.lookup(BY_CODE, code, "error code");
    }

    /** The code a node reports to its peer for a decode failure of the given kind. */
    public static ErrorCode forKind(ProtocolException.Kind kind) {
        switch (kind) {
            case UNSUPPORTED_VERSION:
                return UNSUPPORTED_VERSION;
            case FRAME_TOO_LARGE:
                return FRAME_TOO_LARGE;
            default:
                return MALFORMED_FRAME;
        }
    }
}
