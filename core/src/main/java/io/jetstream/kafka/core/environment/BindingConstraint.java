package io.jetstream.kafka.core.environment;

import java.util.Locale;

/**
 * What limits a source-site task now ({@link Binding#of}). The order is the {@code binding-constraint}
 * gauge's code ({@link #code}), documented in docs/operations.md: keep it.
 */
public enum BindingConstraint {
    /** The load is below what the path carries: latency is the linger plus the round trip. */
    NONE,
    /** The path is full while records wait: more routes (relays with their own uplinks) carry more. */
    LINK,
    /** The worker's JVM or the machine is out of CPU: more tasks on more workers, or direct routes. */
    CPU,
    /** The in-flight window is full below the path's capacity: a larger window ({@code max.in.flight.bytes}). */
    ROUND_TRIP,
    /** Many partitions with few records per batch: per-batch costs dominate. */
    PARTITIONS;

    /** The gauge's value: 0 none, 1 link, 2 cpu, 3 round-trip, 4 partitions. */
    public int code() {
        return ordinal();
    }

    /** {@code ROUND_TRIP} as {@code round-trip}, the name in the task's view and the docs. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
