package io.jetstream.kafka.relay.metrics;

/** One time series value: a {@link Counter}, {@link Gauge} or {@link DoubleGauge}. */
public sealed interface Metric permits Counter, Gauge, DoubleGauge {

    /** Appends the current value in Prometheus text syntax. */
    void appendValue(StringBuilder out);
}
