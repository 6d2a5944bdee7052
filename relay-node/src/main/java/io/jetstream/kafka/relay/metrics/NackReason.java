package io.jetstream.kafka.relay.metrics;

import java.util.Locale;

/** Why a batch was negatively acknowledged: the {@code reason} label of {@code jetstream_relay_nacks_total}. */
public enum NackReason {
    /** No buffer space: the sender should slow down or use another route. */
    BUFFER_FULL,
    /** Every route to the destination is down. */
    NO_ROUTE,
    /** The next hop did not acknowledge within {@code ack.timeout.ms}. */
    ACK_TIMEOUT,
    /** The next hop closed the connection with the batch unacknowledged. */
    CONNECTION_LOST,
    /** The relay is shutting down and takes no new batches. */
    DRAINING,
    /** The destination refused the batch (it reported a write error). */
    DESTINATION_ERROR,
    /** The batch itself was invalid. */
    INVALID_BATCH;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
