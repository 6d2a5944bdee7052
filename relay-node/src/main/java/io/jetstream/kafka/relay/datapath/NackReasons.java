package io.jetstream.kafka.relay.datapath;

import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.relay.metrics.NackReason;

/** The metric label of a NACK this relay relays from downstream, by its wire reason. */
final class NackReasons {

    private NackReasons() {
    }

    static NackReason relayed(AckReason reason) {
        return switch (reason) {
            case NO_SUBSCRIBER -> NackReason.NO_SUBSCRIBER;
            case NEXT_HOP_UNREACHABLE -> NackReason.CONNECTION_LOST;
            case OVERLOADED -> NackReason.BUFFER_FULL;
            case TIMEOUT -> NackReason.ACK_TIMEOUT;
            case MALFORMED_BATCH -> NackReason.INVALID_BATCH;
            case UNKNOWN_DESTINATION -> NackReason.UNKNOWN_DESTINATION;
            case WRITE_FAILED, NOT_AUTHORIZED, OBSOLETE_INCARNATION, NONE, DUPLICATE -> NackReason.DESTINATION_ERROR;
        };
    }
}
