package io.jetstream.kafka.bench;

import java.time.Duration;
import java.util.Objects;

/**
 * One timed event of a scenario with events ({@link EventSchedule}): what happens, to which host, and
 * when, counted from the start of the scenario's steady load.
 *
 * <p>Adding an event type: a {@link Kind} and its case in {@link TimedEvents#apply}. Events that change
 * the network ({@link Kind#network()}) are one {@link BenchNetwork} call each: {@link Kind#SET_UPLINK_RATE}
 * calls {@link BenchNetwork#setUplinkRate}, {@link Kind#SET_EXTRA_DELAY} ("a route's delay grows")
 * {@link BenchNetwork#setExtraDelay} with {@code value} milliseconds.
 *
 * @param name  short name for the report ({@code restart-tasks}, {@code lower-a2}, ...)
 * @param at    when, after the start of the steady load
 * @param kind  what happens
 * @param host  the host it happens to ({@code a2}); empty for {@link Kind#RESTART_TASKS}
 * @param value the new value for a change ({@link Kind#SET_UPLINK_RATE}: bits per second;
 *              {@link Kind#SET_EXTRA_DELAY}: milliseconds, 0 puts the base delay back); 0 otherwise
 */
public record BenchEvent(String name, Duration at, Kind kind, String host, long value) {

    /** What an event does. */
    public enum Kind {
        /** Restart every task of the source-site connector (Connect REST, {@code restart?includeTasks=true}). */
        RESTART_TASKS(false, true),
        /** Kill a relay (SIGKILL): every route through it fails. */
        KILL_RELAY(false, true),
        /** Start a killed relay again, on the same addresses and with the same configuration. */
        START_RELAY(false, true),
        /** Change a source host's uplink cap ({@code tc}) to {@code value} bits per second. */
        SET_UPLINK_RATE(true, false),
        /**
         * Make the packets a source host sends to site B take {@code value} ms longer than the WAN's one-way
         * delay from now on (its route's round trip grows by as much; 0: back to the base delay).
         */
        SET_EXTRA_DELAY(true, false);

        private final boolean network;
        private final boolean disruption;

        Kind(boolean network, boolean disruption) {
            this.network = network;
            this.disruption = disruption;
        }

        /** The event is a {@link BenchNetwork} call (needs a network that supports it). */
        public boolean network() {
            return network;
        }

        /** A failure or restart whose recovery (records per batch back to steady) is measured. */
        public boolean disruption() {
            return disruption;
        }
    }

    public BenchEvent {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(kind, "kind");
        host = host == null ? "" : host;
        if (at.isNegative()) {
            throw new IllegalArgumentException("event " + name + ": negative time " + at);
        }
        if (kind != Kind.RESTART_TASKS && host.isEmpty()) {
            throw new IllegalArgumentException("event " + name + ": " + kind + " needs a host");
        }
        if (kind == Kind.SET_UPLINK_RATE && value < 1_000) {
            throw new IllegalArgumentException("event " + name + ": uplink rate must be >= 1000 bit/s, was " + value);
        }
        if (kind == Kind.SET_EXTRA_DELAY && value < 0) {
            throw new IllegalArgumentException("event " + name + ": extra delay must be >= 0 ms, was " + value);
        }
    }

    static BenchEvent restartTasks(String name, Duration at) {
        return new BenchEvent(name, at, Kind.RESTART_TASKS, "", 0);
    }

    static BenchEvent killRelay(String name, Duration at, String host) {
        return new BenchEvent(name, at, Kind.KILL_RELAY, host, 0);
    }

    static BenchEvent startRelay(String name, Duration at, String host) {
        return new BenchEvent(name, at, Kind.START_RELAY, host, 0);
    }

    static BenchEvent uplinkRate(String name, Duration at, String host, long bitsPerSecond) {
        return new BenchEvent(name, at, Kind.SET_UPLINK_RATE, host, bitsPerSecond);
    }

    static BenchEvent extraDelay(String name, Duration at, String host, Duration extraOneWay) {
        return new BenchEvent(name, at, Kind.SET_EXTRA_DELAY, host, extraOneWay.toMillis());
    }

    /** {@link Kind#SET_EXTRA_DELAY}: the extra one-way delay it sets. */
    Duration extraDelay() {
        return Duration.ofMillis(kind == Kind.SET_EXTRA_DELAY ? value : 0);
    }
}
