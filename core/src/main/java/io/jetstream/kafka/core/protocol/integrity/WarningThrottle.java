package io.jetstream.kafka.core.protocol.integrity;

import io.jetstream.kafka.core.model.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Bounds how often one kind of warning is logged: integrity failures are caused by whoever sits on
 * the path, and a hostile relay must not be able to fill the connector's log. The first event is
 * logged, then at most one per interval, saying how many were not.
 *
 * <p>Thread-safe.
 */
public final class WarningThrottle {

    /** {@link #admit()}'s answer for an event not to be logged. */
    public static final long QUIET = -1;

    private final long intervalNanos;
    private final Clock clock;
    private boolean logged;
    private long lastLoggedNanos;
    private long suppressed;

    public WarningThrottle(Duration interval, Clock clock) {
        this.intervalNanos = interval.toNanos();
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** One warning per {@code interval}, on the system clock. */
    public static WarningThrottle every(Duration interval) {
        return new WarningThrottle(interval, Clock.system());
    }

    /**
     * An event happened: returns how many events were not logged since the last one that was
     * (0 or more) when this one is to be logged, or {@link #QUIET}.
     */
    public synchronized long admit() {
        long now = clock.nanoTime();
        if (logged && now - lastLoggedNanos < intervalNanos) {
            suppressed++;
            return QUIET;
        }
        logged = true;
        lastLoggedNanos = now;
        long skipped = suppressed;
        suppressed = 0;
        return skipped;
    }
}
