package io.jetstream.kafka.core.protocol;

/**
 * Why an ACK is what it is. {@link #NONE} and {@link #DUPLICATE} go with {@link AckStatus#OK}; all
 * others with {@link AckStatus#NACK}. {@link #retriable()} tells the sender whether re-sending the
 * same batch (on this or another route, after a backoff) can succeed.
 */
public enum AckReason {
    /** Plain success. */
    NONE(0, false),
    /** The egress relay has no subscriber owning the batch's partition (yet). */
    NO_SUBSCRIBER(1, true),
    /** A relay on the path could not reach the next hop; try another route. */
    NEXT_HOP_UNREACHABLE(2, true),
    /** A relay or the destination-site task is over its in-flight budget; back off. */
    OVERLOADED(3, true),
    /** OK: the destination-site task had already written every record of the batch. */
    DUPLICATE(4, false),
    /** The destination-site task failed to write to the destination cluster. */
    WRITE_FAILED(5, true),
    /** The batch was not acknowledged downstream in time. */
    TIMEOUT(6, true),
    /** The payload failed verification (CRC, decompression, format): re-sending the same bytes cannot help. */
    MALFORMED_BATCH(7, false),
    /** The destination refuses the topic (not in the allowed set). */
    NOT_AUTHORIZED(8, false),
    /** The ingress relay has no route to the batch's destination. */
    UNKNOWN_DESTINATION(9, true),
    /**
     * The batch belongs to an earlier incarnation of its topic (deleted and recreated at the source
     * since): the destination replicates the new one and never writes it.
     */
    OBSOLETE_INCARNATION(10, false),
    /**
     * Since version 3: the egress relay's subscribers split the stream into shares and the BATCHES
     * frame carries partitions of more than one; the NACK's {@code lastOffset} is the share count, by
     * which the sender groups its frames from then on ({@link Shares#owner}); it re-sends them after its retry backoff.
     */
    MIXED_SHARES(11, true);

    private static final AckReason[] BY_CODE = WireEnums.indexByCode(AckReason.class, AckReason::code);

    private final int code;
    private final boolean retriable;

    AckReason(int code, boolean retriable) {
        this.code = code;
        this.retriable = retriable;
    }

    public int code() {
        return code;
    }

    /** Whether re-sending the batch may succeed (meaningful for NACK reasons). */
    public boolean retriable() {
        return retriable;
    }

    /** Whether this reason may accompany {@link AckStatus#OK}. */
    public boolean isSuccess() {
        return this == NONE || this == DUPLICATE;
    }

    public static AckReason forCode(int code) {
        return WireEnums.lookup(BY_CODE, code, "ack reason");
    }
}
