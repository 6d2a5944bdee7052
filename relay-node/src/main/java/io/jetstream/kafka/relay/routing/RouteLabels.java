package io.jetstream.kafka.relay.routing;

import java.util.concurrent.ConcurrentHashMap;

import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.metrics.RouteMetrics;

/**
 * Route series for frames that arrive already routed. Only the ingress knows a route's configured
 * name; later relays label it by the path the frame carries ({@code relay-a1>c1:7070>b1:7070}).
 * Paths come from peers, so the number of labels is capped: beyond {@value #MAX_LABELS} they share
 * the label {@code other}.
 */
public final class RouteLabels {

    static final int MAX_LABELS = 64;
    static final String OTHER = "other";

    private final RelayMetrics metrics;
    private final ConcurrentHashMap<String, RouteMetrics> byPath = new ConcurrentHashMap<>();

    public RouteLabels(RelayMetrics metrics) {
        this.metrics = metrics;
    }

    /** The series of the route a routed frame carries. Thread-safe. */
    public RouteMetrics forPath(RoutingHeader routing) {
        String label = String.join(">", routing.path());
        String key = routing.destination() + " " + label;
        RouteMetrics known = byPath.get(key);
        if (known != null) {
            return known;
        }
        if (byPath.size() >= MAX_LABELS) {
            return metrics.route(routing.destination(), OTHER);
        }
        return byPath.computeIfAbsent(key, k -> metrics.route(routing.destination(), label));
    }
}
