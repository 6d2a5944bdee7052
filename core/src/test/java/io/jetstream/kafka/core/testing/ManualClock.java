package io.jetstream.kafka.core.testing;

import io.jetstream.kafka.core.model.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Clock} that moves only when a test says so. Shared through core's test-jar; thread-safe.
 */
public final class ManualClock implements Clock {

    private final AtomicLong nanos = new AtomicLong();

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    /** Moves the clock forward by {@code by} instead of waiting. */
    public void advance(Duration by) {
        nanos.addAndGet(by.toNanos());
    }
}
