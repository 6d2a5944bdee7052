package io.jetstream.kafka.bench;

import io.jetstream.kafka.relay.config.YamlFlattener;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The relay configurations of the benchmark, as flat key/value maps (the keys of docs/relay.md):
 * each relay starts from the shipped {@code config/relay-demo.yaml} (streams, budgets, timeouts:
 * the defaults under test) and changes only its id, its listeners and, for the ingress, its routes
 * (for an intermediate, the next hops it may forward to).
 * Pure functions on maps; {@link RelayProcess} writes them as YAML.
 */
final class RelayConfigs {

    /** The relay key listing the next hops an intermediate relay (one without routes) may forward to. */
    static final String NEXT_HOPS_ALLOWED = "next.hops.allowed";

    /** Price per GB of every benchmark route: equal, so that adaptive routing may use all three. */
    static final double ROUTE_PRICE_PER_GB = 0.02;

    private RelayConfigs() {
    }

    /** The shipped relay file, flattened, without what is per relay (id, listeners, destinations). */
    static Map<String, String> shippedBase(Path relayYaml) {
        return base(YamlFlattener.flatten(relayYaml));
    }

    static Map<String, String> base(Map<String, String> shipped) {
        Map<String, String> base = new LinkedHashMap<>();
        shipped.forEach((key, value) -> {
            boolean perRelay = key.equals("relay.id") || key.startsWith("listener.") || key.startsWith("admin.")
                    || key.equals("destinations") || key.startsWith("destinations.") || key.equals(NEXT_HOPS_ALLOWED);
            if (!perRelay) {
                base.put(key, value);
            }
        });
        return base;
    }

    /** A relay with {@code id}, listening on {@code data} and {@code admin}, on top of {@code base}. */
    static Map<String, String> relay(Map<String, String> base, String id, InetSocketAddress data,
                                     InetSocketAddress admin) {
        Map<String, String> config = new LinkedHashMap<>(base);
        config.put("relay.id", id);
        config.put("listener.host", data.getHostString());
        config.put("listener.port", Integer.toString(data.getPort()));
        config.put("admin.host", admin.getHostString());
        config.put("admin.port", Integer.toString(admin.getPort()));
        return config;
    }

    /**
     * The ingress keys for one destination: each route (in order) with its hops after this relay
     * (host:port each; the last is the egress) and {@link #ROUTE_PRICE_PER_GB}.
     */
    static Map<String, String> ingressRoutes(String destination, Map<String, List<InetSocketAddress>> routes) {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("destinations", destination);
        config.put("destinations." + destination + ".routes", String.join(",", routes.keySet()));
        routes.forEach((route, hops) -> {
            List<String> endpoints = new ArrayList<>();
            hops.forEach(hop -> endpoints.add(hop.getHostString() + ":" + hop.getPort()));
            String prefix = "destinations." + destination + ".routes." + route;
            config.put(prefix + ".hops", String.join(",", endpoints));
            config.put(prefix + ".price.per.gb", Double.toString(ROUTE_PRICE_PER_GB));
        });
        return config;
    }

    /** The keys of a relay that is its own egress for {@code destination}: one route {@code local}. */
    static Map<String, String> localRoute(String destination) {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("destinations", destination);
        config.put("destinations." + destination + ".routes", "local");
        config.put("destinations." + destination + ".routes.local.hops", "local");
        return config;
    }

    /**
     * The keys of an intermediate relay: the next hops (host:port each) its upstreams' routes name
     * after it. A relay connects only to hops of its own routes and these.
     */
    static Map<String, String> allowedNextHops(List<InetSocketAddress> hops) {
        List<String> endpoints = new ArrayList<>();
        hops.forEach(hop -> endpoints.add(hop.getHostString() + ":" + hop.getPort()));
        return Map.of(NEXT_HOPS_ALLOWED, String.join(",", endpoints));
    }
}
