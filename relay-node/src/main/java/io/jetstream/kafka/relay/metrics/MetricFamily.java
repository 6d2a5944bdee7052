package io.jetstream.kafka.relay.metrics;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * All time series of one metric name: its help text, type, label names and one child
 * {@link Metric} per combination of label values. Children are created on first use and cached,
 * so callers resolve a handle once (per connection, per route) and update it lock-free.
 *
 * @param <M> the kind of value
 */
public final class MetricFamily<M extends Metric> {

    /** Prometheus exposition type. */
    public enum Type {
        COUNTER, GAUGE;

        String text() {
            return this == COUNTER ? "counter" : "gauge";
        }
    }

    private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

    private final String name;
    private final String help;
    private final Type type;
    private final List<String> labelNames;
    private final Supplier<M> factory;
    private final Map<List<String>, M> children = new ConcurrentHashMap<>();

    MetricFamily(String name, String help, Type type, Supplier<M> factory, String... labelNames) {
        if (!METRIC_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("invalid metric name " + name);
        }
        for (String label : labelNames) {
            if (!LABEL_NAME.matcher(label).matches() || label.startsWith("__")) {
                throw new IllegalArgumentException("invalid label name " + label + " in " + name);
            }
        }
        this.name = name;
        this.help = Objects.requireNonNull(help, "help");
        this.type = type;
        this.factory = factory;
        this.labelNames = List.of(labelNames);
    }

    public String name() {
        return name;
    }

    public String help() {
        return help;
    }

    public Type type() {
        return type;
    }

    public List<String> labelNames() {
        return labelNames;
    }

    /** The series for these label values (in {@link #labelNames()} order), created on first use. */
    public M labels(String... values) {
        if (values.length != labelNames.size()) {
            throw new IllegalArgumentException(name + " takes labels " + labelNames + ", got " + Arrays.toString(values));
        }
        for (String value : values) {
            Objects.requireNonNull(value, () -> "null label value for " + name);
        }
        return children.computeIfAbsent(List.of(values), k -> factory.get());
    }

    /** Drops one series, e.g. when its peer disconnects for good. */
    public void remove(String... values) {
        children.remove(List.of(values));
    }

    void clear() {
        children.clear();
    }

    /** Series sorted by label values, so the exposition is stable from scrape to scrape. */
    List<Map.Entry<List<String>, M>> series() {
        List<Map.Entry<List<String>, M>> entries = new ArrayList<>(children.entrySet());
        entries.sort(Comparator.comparing(e -> String.join("\u0000", e.getKey())));
        return entries;
    }
}
