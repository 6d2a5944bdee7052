package io.jetstream.kafka.relay.admin;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.common.utils.Time;

/**
 * The serving state reported on {@code GET /health}. It only moves forward:
 * {@code STARTING -> UP -> DRAINING -> DOWN} (a failed start goes straight to {@code DOWN}).
 * Thread-safe.
 */
public final class RelayHealth {

    /** Serving state of the relay. */
    public enum Status {
        /** Binding listeners; not serving yet. */
        STARTING,
        /** Accepting connections and batches. */
        UP,
        /** Shutting down: no new connections, waiting for in-flight batches. */
        DRAINING,
        /** Stopped, or failed to start. */
        DOWN;

        /** Whether a load balancer or orchestrator should send traffic here (HTTP 200). */
        public boolean serving() {
            return this == UP;
        }
    }

    private final String relayId;
    private final Time time;
    private final long createdMs;
    private final AtomicReference<Status> status = new AtomicReference<>(Status.STARTING);

    public RelayHealth(String relayId, Time time) {
        this.relayId = Objects.requireNonNull(relayId, "relayId");
        this.time = Objects.requireNonNull(time, "time");
        this.createdMs = time.milliseconds();
    }

    public String relayId() {
        return relayId;
    }

    public Status status() {
        return status.get();
    }

    public long uptimeMs() {
        return time.milliseconds() - createdMs;
    }

    /**
     * Moves to {@code next} unless already there or further along.
     *
     * @return whether the status changed
     */
    public boolean advanceTo(Status next) {
        Status current;
        do {
            current = status.get();
            if (current.ordinal() >= next.ordinal()) {
                return false;
            }
        } while (!status.compareAndSet(current, next));
        return true;
    }
}
