package io.jetstream.kafka.relay.admin;

import io.jetstream.kafka.core.model.Clock;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;


/**
 * The serving state reported on {@code GET /health}. It only moves forward:
 * {@code STARTING -> UP -> DRAINING -> DOWN} (a failed start goes straight to {@code DOWN}).
 *
 * <p>While {@code UP}, the relay is reported {@code DEGRADED} ({@link #reported()}) when its direct
 * memory in use is above {@code health.direct.memory.degraded.ratio} of the maximum: it still
 * serves (HTTP 200, so that a liveness probe does not restart it), but an operator or an alert
 * should look. It is a condition, not a lifecycle state: it comes and goes with the memory.
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

    /** What {@code GET /health} reports: the lifecycle status, or DEGRADED while UP under memory pressure. */
    public enum Reported {
        STARTING, UP, DEGRADED, DRAINING, DOWN;

        /** Whether the relay takes traffic (HTTP 200): UP and DEGRADED. */
        public boolean serving() {
            return this == UP || this == DEGRADED;
        }
    }

    private final String relayId;
    private final Clock clock;
    private final DirectMemory memory;
    private final double degradedShare;
    private final long createdNanos;
    private final AtomicReference<Status> status = new AtomicReference<>(Status.STARTING);

    /** Never DEGRADED: for tests and tools that do not watch memory. */
    public RelayHealth(String relayId, Clock clock) {
        this(relayId, clock, DirectMemory.ofThisProcess(), Double.POSITIVE_INFINITY);
    }

    /**
     * @param memory        the direct memory to watch
     * @param degradedShare share of {@link DirectMemory#maxBytes()} in use above which an UP relay
     *                      is reported DEGRADED
     */
    public RelayHealth(String relayId, Clock clock, DirectMemory memory, double degradedShare) {
        this.relayId = Objects.requireNonNull(relayId, "relayId");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.memory = Objects.requireNonNull(memory, "memory");
        this.degradedShare = degradedShare;
        this.createdNanos = clock.nanoTime();
    }

    /** The status for {@code GET /health}: {@link #status()}, or DEGRADED while UP under memory pressure. */
    public Reported reported() {
        Status current = status.get();
        boolean underMemoryPressure = current == Status.UP && memory.usedShare() > degradedShare;
        return underMemoryPressure ? Reported.DEGRADED : Reported.valueOf(current.name());
    }

    /** The direct memory this health watches. */
    public DirectMemory memory() {
        return memory;
    }

    public String relayId() {
        return relayId;
    }

    public Status status() {
        return status.get();
    }

    public long uptimeMs() {
        return TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - createdNanos);
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
