package io.jetstream.kafka.core.protocol;

/** Outcome carried by an ACK frame. */
public enum AckStatus {
    /** Durably written at the destination (or already written: reason DUPLICATE). The sender may commit. */
    OK(0),
    /** Not written; {@link AckReason} says why and whether re-sending can help. */
    NACK(1),
    /**
     * Not an answer: the batch reached the egress relay, the last relay of its route. Says nothing
     * about the destination; the OK or NACK still follows. A relay sends it only to peers whose
     * HELLO set {@link HelloFrame#FLAG_RECEIPTS}, so that a route's own transfer time and
     * throughput can be measured apart from the destination's delays (transaction commits, its
     * re-order wait). Reason always {@link AckReason#NONE}.
     */
    RECEIVED(2);

    private static final AckStatus[] BY_CODE = WireEnums.indexByCode(AckStatus.class, AckStatus::code);

    private final int code;

    AckStatus(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static AckStatus forCode(int code) {
        return WireEnums.lookup(BY_CODE, code, "ack status");
    }
}
