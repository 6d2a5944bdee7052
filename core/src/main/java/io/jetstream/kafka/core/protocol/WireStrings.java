package io.jetstream.kafka.core.protocol;

import io.netty.buffer.ByteBufUtil;
import java.util.Objects;

/** Validation of string fields: every string on the wire is {@code uint16} length-prefixed UTF-8. */
final class WireStrings {

    /** Largest UTF-8 encoding of one string field. */
    static final int MAX_BYTES = 0xFFFF;

    /** Messages (ACK, ERROR) are cut to this many chars by the factories so they always fit. */
    static final int MAX_MESSAGE_CHARS = 1024;

    private WireStrings() {
    }

    static String check(String value, String field) {
        Objects.requireNonNull(value, field);
        // Fast path: no string below 1/3 of the limit in chars can exceed it in UTF-8.
        if (value.length() > MAX_BYTES / 3 && ByteBufUtil.utf8Bytes(value) > MAX_BYTES) {
            throw new IllegalArgumentException(field + " is longer than " + MAX_BYTES + " UTF-8 bytes");
        }
        return value;
    }

    static String checkNotEmpty(String value, String field) {
        if (check(value, field).isEmpty()) {
            throw new IllegalArgumentException(field + " must not be empty");
        }
        return value;
    }

    static String truncate(String message) {
        return message == null ? "" : message.length() <= MAX_MESSAGE_CHARS ? message
                : message.substring(0, MAX_MESSAGE_CHARS);
    }

    static int checkUint16(int value, String field) {
        if (value < 0 || value > 0xFFFF) {
            throw new IllegalArgumentException(field + " " + value + " is outside 0..65535");
        }
        return value;
    }
}
