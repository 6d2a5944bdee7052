package io.jetstream.kafka.relay.datapath;

import io.jetstream.kafka.relay.admin.RelayHealth;
import io.jetstream.kafka.relay.server.ByteBudget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the relay still takes new frames and connections. It stops from the moment the server
 * reports DRAINING (before the {@code DrainStartedEvent} reaches every connection) or a connection
 * sees that event, and for good when the data path closes; frames already pending complete as usual.
 * Thread-safe.
 */
final class Drain {

    private static final Logger log = LoggerFactory.getLogger(Drain.class);

    private final RelayHealth health;
    private final String relayId;
    private final ByteBudget relayBuffer;
    private volatile boolean draining;

    /** @param relayBuffer what is still in flight, for the log line */
    Drain(RelayHealth health, String relayId, ByteBudget relayBuffer) {
        this.health = health;
        this.relayId = relayId;
        this.relayBuffer = relayBuffer;
    }

    /** Whether new frames are refused (nacked OVERLOADED) and new peers turned away. */
    boolean draining() {
        if (draining) {
            return true;
        }
        RelayHealth.Status status = health.status();
        if (status == RelayHealth.Status.DRAINING || status == RelayHealth.Status.DOWN) {
            start();
            return true;
        }
        return false;
    }

    /** Takes no new frames from now on (they are nacked OVERLOADED); pending ones complete as usual. */
    void start() {
        if (!draining) {
            draining = true;
            log.info("Relay {} draining: new batches are nacked OVERLOADED, {} still in flight", relayId, relayBuffer);
        }
    }

    /** The data path is closing: nothing new is taken, without the draining notice. */
    void stop() {
        draining = true;
    }
}
