package io.jetstream.kafka.relay.metrics;

import java.util.concurrent.atomic.AtomicLong;

/** A fractional value that is set, not accumulated (a round-trip time in milliseconds). */
public final class DoubleGauge implements Metric {

    private final AtomicLong bits = new AtomicLong(Double.doubleToRawLongBits(Double.NaN));

    public void set(double newValue) {
        bits.set(Double.doubleToRawLongBits(newValue));
    }

    /** The last value set, or NaN before the first measurement. */
    public double value() {
        return Double.longBitsToDouble(bits.get());
    }

    @Override
    public void appendValue(StringBuilder out) {
        PrometheusText.appendDouble(out, value());
    }
}
