package io.jetstream.kafka.core.offsets;

/** A record of the offset map topic that this version cannot read; the message names the partition and the problem. */
public final class OffsetMapFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public OffsetMapFormatException(String message) {
        super(message);
    }

    public OffsetMapFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
