package io.jetstream.kafka.bench;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The steady load and timed events of a scenario with events (issue 13): one offered rate for
 * {@code duration}, and {@link BenchEvent}s at fixed times into it. Rates scale with the uplink cap, so
 * that the load stays the same fraction of the links whatever {@code --uplink-mbit} says.
 *
 * <ul>
 *   <li>{@code cold-start}: 25% of one uplink; restart the source-site tasks, later kill a relay and
 *       start it again (three routes: relay a2, route {@code via-a2}; one route: the ingress a1, the only
 *       route's relay);</li>
 *   <li>{@code capacity-change}: 60% of the three uplinks together; lower a2's uplink to a quarter of its
 *       cap (route {@code via-a2}), later raise it back; then make a3's packets to site B (route
 *       {@code via-a3}) take {@link #EXTRA_DELAY} longer one way (full: and later put the base delay back).</li>
 * </ul>
 *
 * @param ratePerS     records/s offered for the whole load
 * @param duration     how long the load runs
 * @param events       the events, in time order
 * @param changedRoute capacity-change: the route whose cap the events change ({@code via-a2}; the delay events
 *                     change {@code via-a3}); empty otherwise
 * @param routeCaps    capacity-change: each route's uplink cap in bits/s before the first event, by route name
 */
public record EventSchedule(double ratePerS, Duration duration, List<BenchEvent> events, String changedRoute,
                            Map<String, Long> routeCaps) {

    /**
     * Wire bytes of one benchmark record on a route (1 KiB of random A-Z, zstd, JetStream's framing):
     * 645 measured in the full run of 2 December 11:52 UTC; used only to size the offered rate.
     */
    static final double WIRE_BYTES_PER_RECORD = 650;

    /** TCP payload per byte of an uplink's cap (the cap counts Ethernet, IP and TCP headers). */
    static final double PAYLOAD_SHARE = 0.94;

    /**
     * Cold start's load, a fraction of one uplink: small enough that the 2-core machine keeps up with
     * it while other work shares it (at 40%, ~2,900 records/s, a first quick run on a machine at load
     * average 9 fell seconds behind), large enough that batches hold more than one record.
     */
    static final double COLD_START_LOAD = 0.25;

    /** The quick form's load (~1,080 records/s at 40 Mbit/s): {@code mvn verify} shares the machine too. */
    static final double COLD_START_QUICK_LOAD = 0.15;

    /** The route whose relay (a2) capacity-change throttles and cold-start kills with three routes. */
    static final String CHANGED_HOST = "a2";

    /** The host whose route ({@code via-a3}) capacity-change delays: another route than the cap's. */
    static final String DELAYED_HOST = "a3";

    /**
     * How much longer capacity-change makes the delayed host's packets to site B take one way: its route's
     * round trip goes from 50 to 90 ms at the scenario's 25 ms one-way delay.
     */
    static final Duration EXTRA_DELAY = Duration.ofMillis(40);

    /**
     * The largest fraction of its cap a route carries in the best static split while slower routes still have
     * room ({@link EventAnalysis#fastestFirst}): the load capacity-change itself puts on what is left after a2's
     * cap falls (80%), so a split at this utilisation is one the scenario already calls carried.
     */
    static final double MAX_UTILISATION = 0.8;

    public EventSchedule {
        events = events.stream().sorted(Comparator.comparing(BenchEvent::at)).toList();
        Objects.requireNonNull(duration, "duration");
        changedRoute = changedRoute == null ? "" : changedRoute;
        routeCaps = Map.copyOf(routeCaps);
        if (ratePerS <= 0) {
            throw new IllegalArgumentException("rate must be > 0, was " + ratePerS);
        }
        for (BenchEvent event : events) {
            if (event.at().compareTo(duration) >= 0) {
                throw new IllegalArgumentException("event " + event.name() + " at " + event.at()
                        + " is not before the end of the load at " + duration);
            }
        }
    }

    /** Records/s one uplink of {@code bitsPerSecond} carries of the benchmark's records. */
    static double recordsPerSecondPerUplink(long bitsPerSecond) {
        return bitsPerSecond / 8.0 * PAYLOAD_SHARE / WIRE_BYTES_PER_RECORD;
    }

    /**
     * {@code cold-start} for a variant with {@code routes} routes: 25% of one uplink (the load fits one
     * route with room to drain what piles up while tasks restart); full: 100 s, tasks restarted at 30 s,
     * the relay killed at 60 s and started at 75 s; quick: 48 s, 12 s, 27 s, 35 s.
     */
    static EventSchedule coldStart(boolean quick, long uplinkBitsPerSecond, int routes) {
        double rate = Math.round((quick ? COLD_START_QUICK_LOAD : COLD_START_LOAD)
                * recordsPerSecondPerUplink(uplinkBitsPerSecond) / 10) * 10.0;
        String relay = routes >= 3 ? CHANGED_HOST : "a1";
        return quick
                ? new EventSchedule(rate, Duration.ofSeconds(48), List.of(
                        BenchEvent.restartTasks("restart-tasks", Duration.ofSeconds(12)),
                        BenchEvent.killRelay("kill-relay-" + relay, Duration.ofSeconds(27), relay),
                        BenchEvent.startRelay("start-relay-" + relay, Duration.ofSeconds(35), relay)), "", Map.of())
                : new EventSchedule(rate, Duration.ofSeconds(100), List.of(
                        BenchEvent.restartTasks("restart-tasks", Duration.ofSeconds(30)),
                        BenchEvent.killRelay("kill-relay-" + relay, Duration.ofSeconds(60), relay),
                        BenchEvent.startRelay("start-relay-" + relay, Duration.ofSeconds(75), relay)), "", Map.of());
    }

    /**
     * {@code capacity-change} (three routes): 60% of the three uplinks together (after a2's uplink falls
     * to a quarter, 80% of what is left); full: 180 s, a2 lowered at 40 s, raised back at 100 s, a3's
     * packets {@link #EXTRA_DELAY} longer one way at 130 s and back to the base delay at 155 s; quick: 65 s,
     * 12 s, 30 s, the delay at 45 s (put back after the load).
     */
    static EventSchedule capacityChange(boolean quick, long uplinkBitsPerSecond) {
        double rate = Math.round(0.6 * 3 * recordsPerSecondPerUplink(uplinkBitsPerSecond) / 10) * 10.0;
        long lowered = uplinkBitsPerSecond / 4;
        List<BenchEvent> events = new java.util.ArrayList<>(List.of(
                BenchEvent.uplinkRate("lower-" + CHANGED_HOST, Duration.ofSeconds(quick ? 12 : 40), CHANGED_HOST,
                        lowered),
                BenchEvent.uplinkRate("raise-" + CHANGED_HOST, Duration.ofSeconds(quick ? 30 : 100), CHANGED_HOST,
                        uplinkBitsPerSecond),
                BenchEvent.extraDelay("delay-" + DELAYED_HOST, Duration.ofSeconds(quick ? 45 : 130), DELAYED_HOST,
                        EXTRA_DELAY)));
        if (!quick) {
            events.add(BenchEvent.extraDelay("undelay-" + DELAYED_HOST, Duration.ofSeconds(155), DELAYED_HOST,
                    Duration.ZERO));
        }
        return new EventSchedule(rate, Duration.ofSeconds(quick ? 65 : 180), events, "via-" + CHANGED_HOST,
                Map.of("direct", uplinkBitsPerSecond, "via-a2", uplinkBitsPerSecond, "via-a3", uplinkBitsPerSecond));
    }

    /** The schedule for the JSON result: rate, length, and each event's name, time, kind, host and value. */
    Map<String, Object> describe() {
        Map<String, Object> described = new java.util.LinkedHashMap<>();
        described.put("rate_per_s", ratePerS);
        described.put("duration_s", duration.toMillis() / 1000.0);
        List<Map<String, Object>> list = new java.util.ArrayList<>();
        for (BenchEvent event : events) {
            Map<String, Object> e = new java.util.LinkedHashMap<>();
            e.put("name", event.name());
            e.put("at_s", event.at().toMillis() / 1000.0);
            e.put("kind", event.kind().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
            if (!event.host().isEmpty()) {
                e.put("host", event.host());
            }
            if (event.kind() == BenchEvent.Kind.SET_UPLINK_RATE) {
                e.put("uplink_bits_per_s", event.value());
            } else if (event.kind() == BenchEvent.Kind.SET_EXTRA_DELAY) {
                e.put("extra_one_way_delay_ms", event.value());
            }
            list.add(e);
        }
        described.put("events", list);
        if (!changedRoute.isEmpty()) {
            described.put("changed_route", changedRoute);
            described.put("route_caps_bits_per_s", new java.util.TreeMap<>(routeCaps));
        }
        return described;
    }

    /** The route a host's uplink carries in the three-route placement ({@code a1}: {@code direct}). */
    static String routeOf(String host) {
        return host.equals("a1") ? "direct" : "via-" + host;
    }

    /**
     * The best static split ("best static configuration") for the caps and delays that the network events
     * up to and including {@code upTo} left: the load on the routes with the shortest delay first, each at
     * most {@link #MAX_UTILISATION} of its cap, in proportion to the caps among routes of equal delay
     * ({@link EventAnalysis#fastestFirst}). With equal delays (every cap change here) that is each route's
     * share of the summed caps.
     */
    Map<String, Double> bestSplitAfter(BenchEvent upTo) {
        Map<String, Long> caps = new java.util.TreeMap<>(routeCaps);
        Map<String, Long> extraDelays = new java.util.TreeMap<>();
        for (BenchEvent event : events) {
            if (event.kind() == BenchEvent.Kind.SET_UPLINK_RATE) {
                caps.put(routeOf(event.host()), event.value());
            } else if (event.kind() == BenchEvent.Kind.SET_EXTRA_DELAY) {
                extraDelays.put(routeOf(event.host()), event.value());
            }
            if (event.equals(upTo)) {
                break;
            }
        }
        return EventAnalysis.fastestFirst(caps, extraDelays, loadBitsPerSecond(), MAX_UTILISATION);
    }

    /** The offered load in bits/s of uplink cap (what {@link #recordsPerSecondPerUplink} inverts). */
    double loadBitsPerSecond() {
        return ratePerS * WIRE_BYTES_PER_RECORD * 8 / PAYLOAD_SHARE;
    }
}
