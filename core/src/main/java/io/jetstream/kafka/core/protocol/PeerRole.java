package io.jetstream.kafka.core.protocol;

/** What the connecting peer is, declared in HELLO; decides which frames it may send. */
public enum PeerRole {
    /** A source-site connector task: sends BATCH and TOPIC_METADATA, receives ACK. */
    SENDER(1),
    /** Another relay: forwards BATCH and TOPIC_METADATA one hop further, returns ACK. */
    RELAY(2),
    /** A destination-site connector task: sends SUBSCRIBE and ACK, receives BATCH and TOPIC_METADATA. */
    SUBSCRIBER(3);

    private static final PeerRole[] BY_CODE = WireEnums.indexByCode(PeerRole.class, PeerRole::code);

    private final int code;

    PeerRole(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** @throws io.jetstream.kafka.core.wire.ProtocolException MALFORMED for an unknown code */
    public static PeerRole forCode(int code) {
        return WireEnums.lookup(BY_CODE, code, "peer role");
    }
}
