package io.jetstream.kafka.core.protocol;

import io.jetstream.kafka.core.wire.ProtocolException;

/** The {@code uint8} type that follows every length prefix. Codes are part of the wire format. */
public enum FrameType {
    HELLO(1),
    HELLO_OK(2),
    BATCH(3),
    ACK(4),
    SUBSCRIBE(5),
    SUBSCRIBE_OK(6),
    PING(7),
    PONG(8),
    TOPIC_METADATA(9),
    ERROR(10),
    /** Since version 3: the batches of several partitions in one frame ({@link BatchesFrame}). */
    BATCHES(11);

    private static final FrameType[] BY_CODE = new FrameType[12];

    static {
        for (FrameType type : values()) {
            BY_CODE[type.code] = type;
        }
    }

    private final int code;

    FrameType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** @throws ProtocolException {@link ProtocolException.Kind#UNKNOWN_TYPE} for an undefined code */
    public static FrameType forCode(int code) {
        FrameType type = code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
        if (type == null) {
            throw new ProtocolException(ProtocolException.Kind.UNKNOWN_TYPE, "frame type " + code + " is not defined"
                    + " in protocol version " + ProtocolVersion.CURRENT);
        }
        return type;
    }
}
