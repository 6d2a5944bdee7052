package io.jetstream.kafka.relay.metrics;

import java.util.Locale;

import io.jetstream.kafka.core.protocol.AckReason;

/**
 * Why a batch was negatively acknowledged: the {@code reason} label of {@code jetstream_relay_nacks_total}.
 * A NACK this relay makes names its label; a NACK it relays from downstream is labelled by its wire
 * reason ({@link AckReason}, what the sender sees) through {@link #relayed}.
 */
public enum NackReason {
    /** A relay or subscriber downstream was overloaded: the sender should slow down or use another route. */
    BUFFER_FULL,
    /** Every route to the destination is down, or the next hop on the batch's path is. */
    NO_ROUTE,
    /** The next hop on the batch's path is not one this relay may connect to (routes, next.hops.allowed). */
    NEXT_HOP_NOT_ALLOWED,
    /** No route is configured for the batch's destination. */
    UNKNOWN_DESTINATION,
    /** At the egress, no subscriber owns the batch's partition. */
    NO_SUBSCRIBER,
    /** The next hop did not acknowledge within {@code ack.timeout.ms}. */
    ACK_TIMEOUT,
    /** The connection to the next hop (or subscriber) closed with the batch unacknowledged. */
    CONNECTION_LOST,
    /** The relay is shutting down and takes no new batches. */
    DRAINING,
    /** The destination refused the batch (write failed, topic not allowed). */
    DESTINATION_ERROR,
    /** The batch itself was invalid. */
    INVALID_BATCH,
    /**
     * At the egress, a BATCHES frame held partitions of more than one subscriber's share (the sender
     * regroups by the share count the NACK carries).
     */
    MIXED_SHARES;

    /** The label of a NACK this relay relays from downstream, by its wire reason. */
    public static NackReason relayed(AckReason reason) {
        return switch (reason) {
            case NO_SUBSCRIBER -> NO_SUBSCRIBER;
            case NEXT_HOP_UNREACHABLE -> CONNECTION_LOST;
            case OVERLOADED -> BUFFER_FULL;
            case TIMEOUT -> ACK_TIMEOUT;
            case MALFORMED_BATCH -> INVALID_BATCH;
            case UNKNOWN_DESTINATION -> UNKNOWN_DESTINATION;
            case MIXED_SHARES -> MIXED_SHARES;
            case WRITE_FAILED, NOT_AUTHORIZED, OBSOLETE_INCARNATION, NONE, DUPLICATE -> DESTINATION_ERROR;
        };
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
