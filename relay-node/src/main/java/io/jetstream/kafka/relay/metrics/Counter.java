package io.jetstream.kafka.relay.metrics;

import java.util.concurrent.atomic.LongAdder;

/**
 * A monotonically increasing count. Cheap under contention from several event loops
 * ({@link LongAdder}); keep the handle in a field instead of looking it up per event.
 */
public final class Counter implements Metric {

    private final LongAdder value = new LongAdder();

    public void inc() {
        value.increment();
    }

    /** @param amount not negative */
    public void add(long amount) {
        if (amount < 0) {
            throw new IllegalArgumentException("a counter only goes up, got " + amount);
        }
        value.add(amount);
    }

    public long value() {
        return value.sum();
    }

    @Override
    public void appendValue(StringBuilder out) {
        out.append(value.sum());
    }
}
