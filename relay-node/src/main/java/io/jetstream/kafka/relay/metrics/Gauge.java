package io.jetstream.kafka.relay.metrics;

import java.util.concurrent.atomic.AtomicLong;

/** A whole-number value that goes up and down (bytes buffered, connections open). */
public final class Gauge implements Metric {

    private final AtomicLong value = new AtomicLong();

    public void set(long newValue) {
        value.set(newValue);
    }

    public void add(long delta) {
        value.addAndGet(delta);
    }

    public void inc() {
        value.incrementAndGet();
    }

    public void dec() {
        value.decrementAndGet();
    }

    public long value() {
        return value.get();
    }

    @Override
    public void appendValue(StringBuilder out) {
        out.append(value.get());
    }
}
