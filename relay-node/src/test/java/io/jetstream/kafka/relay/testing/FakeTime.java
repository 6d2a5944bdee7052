package io.jetstream.kafka.relay.testing;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.apache.kafka.common.utils.Time;

/** A clock that moves only when a test says so (kafka-clients' MockTime lives in its test jar). */
public final class FakeTime implements Time {

    private final AtomicLong nanos = new AtomicLong(TimeUnit.MILLISECONDS.toNanos(1_700_000_000_000L));

    @Override
    public long milliseconds() {
        return TimeUnit.NANOSECONDS.toMillis(nanos.get());
    }

    @Override
    public long nanoseconds() {
        return nanos.get();
    }

    /** Advances the clock instead of waiting. */
    @Override
    public void sleep(long ms) {
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
    }

    @Override
    public void waitObject(Object obj, Supplier<Boolean> condition, long deadlineMs) {
        if (!condition.get()) {
            nanos.set(TimeUnit.MILLISECONDS.toNanos(deadlineMs));
        }
    }
}
