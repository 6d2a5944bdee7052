package io.jetstream.kafka.launcher;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The adaptive route scheduler's state as one ingress relay exports it on {@code GET /metrics}
 * (Prometheus text): per destination and route the weight, traffic share, state, capacity, delivered
 * rate, round trip, bytes sent, money spent and measured acknowledgement latency, and per destination
 * whether its spend cap is reached. Read by {@code ./jetstream explain}.
 *
 * @param routes         every route the relay reports, ordered by destination and route
 * @param spendCapReached per destination: whether its spend cap is reached now
 */
record RelayRoutes(List<Route> routes, Map<String, Boolean> spendCapReached) {

    private static final String PREFIX = "jetstream_relay_";

    /**
     * One route's figures; NaN where the relay exports none (a static route table has no weights).
     *
     * @param state          0 up, 1 degraded, 2 down; NaN when not scheduled adaptively
     * @param rankingRttSeconds the round trip the scheduler ranks the route by (its own where it really
     *                       differs from the routes' common one); NaN from relays that do not export it
     * @param ackLatencySeconds mean time from forwarding a batch on the route to its acknowledgement
     * @param queueDrains    times the scheduler drained the route's own queue to measure its round trip
     *                       without it; NaN from relays that do not export it
     */
    record Route(String destination, String route, double weight, double trafficShare, double state,
                 double capacityBytesPerSecond, double deliveredBytesPerSecond, double rttSeconds,
                 double rankingRttSeconds,
                 double inFlightBytes, double bytesOut, double batchesOut, double spent, double ackLatencySeconds,
                 double queueDrains) {

        /** Money per GB (10^9 bytes) sent on the route: spent over bytes out; NaN before any byte. */
        double costPerGb() {
            return bytesOut > 0 && !Double.isNaN(spent) ? spent / (bytesOut / 1e9) : Double.NaN;
        }

        String stateName() {
            if (Double.isNaN(state)) {
                return null;
            }
            return switch ((int) state) {
                case 0 -> "up";
                case 1 -> "degraded";
                case 2 -> "down";
                default -> "state " + (int) state;
            };
        }
    }

    /** The routes in a relay's metrics text; series of other families are ignored. */
    static RelayRoutes parse(String metricsText) {
        Map<List<String>, Map<String, Double>> byRoute = new TreeMap<>((a, b) -> {
            int c = a.get(0).compareTo(b.get(0));
            return c != 0 ? c : a.get(1).compareTo(b.get(1));
        });
        Map<String, Boolean> capReached = new TreeMap<>();
        for (String line : metricsText.split("\n")) {
            Sample sample = Sample.parse(line.strip());
            if (sample == null || !sample.name.startsWith(PREFIX)) {
                continue;
            }
            String name = sample.name.substring(PREFIX.length());
            String destination = sample.labels.get("destination");
            if (name.equals("spend_cap_reached") && destination != null) {
                capReached.put(destination, sample.value >= 1);
            } else if (name.startsWith("route_") && destination != null && sample.labels.containsKey("route")) {
                byRoute.computeIfAbsent(List.of(destination, sample.labels.get("route")), k -> new LinkedHashMap<>())
                        .merge(name, sample.value, Double::sum);
            }
        }
        List<Route> routes = new ArrayList<>();
        byRoute.forEach((key, figures) -> {
            double ackSum = figures.getOrDefault("route_ack_latency_seconds_sum", Double.NaN);
            double ackCount = figures.getOrDefault("route_ack_latency_seconds_count", Double.NaN);
            routes.add(new Route(key.get(0), key.get(1),
                    figures.getOrDefault("route_weight", Double.NaN),
                    figures.getOrDefault("route_traffic_share", Double.NaN),
                    figures.getOrDefault("route_state", Double.NaN),
                    figures.getOrDefault("route_capacity_bytes_per_second", Double.NaN),
                    figures.getOrDefault("route_delivered_bytes_per_second", Double.NaN),
                    figures.getOrDefault("route_rtt_seconds", Double.NaN),
                    figures.getOrDefault("route_ranking_rtt_seconds", Double.NaN),
                    figures.getOrDefault("route_inflight_bytes", Double.NaN),
                    figures.getOrDefault("route_bytes_out_total", Double.NaN),
                    figures.getOrDefault("route_batches_out_total", Double.NaN),
                    figures.getOrDefault("route_spent_total", Double.NaN),
                    ackCount > 0 ? ackSum / ackCount : Double.NaN,
                    figures.getOrDefault("route_queue_drains_total", Double.NaN)));
        });
        return new RelayRoutes(List.copyOf(routes), Map.copyOf(capReached));
    }

    /** One line of the text format: {@code name{label="value",...} value [timestamp]}. */
    private record Sample(String name, Map<String, String> labels, double value) {

        static Sample parse(String line) {
            if (line.isEmpty() || line.startsWith("#")) {
                return null;
            }
            int brace = line.indexOf('{');
            int space = line.indexOf(' ');
            if (space < 0) {
                return null;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            String name;
            int rest;
            if (brace >= 0 && brace < space) {
                name = line.substring(0, brace);
                rest = labels(line, brace + 1, labels);
                if (rest < 0) {
                    return null;
                }
            } else {
                name = line.substring(0, space);
                rest = space;
            }
            String[] values = line.substring(rest).strip().split("\\s+");
            try {
                return new Sample(name, labels, Double.parseDouble(values[0]));
            } catch (NumberFormatException e) {
                return null;
            }
        }

        /** Reads labels from {@code from} (after the brace) into {@code labels}; the index after the closing brace. */
        private static int labels(String line, int from, Map<String, String> labels) {
            int i = from;
            while (i < line.length()) {
                char c = line.charAt(i);
                if (c == '}') {
                    return i + 1;
                }
                if (c == ',' || c == ' ') {
                    i++;
                    continue;
                }
                int eq = line.indexOf('=', i);
                if (eq < 0 || eq + 1 >= line.length() || line.charAt(eq + 1) != '"') {
                    return -1;
                }
                String key = line.substring(i, eq);
                StringBuilder value = new StringBuilder();
                int j = eq + 2;
                for (; j < line.length() && line.charAt(j) != '"'; j++) {
                    char v = line.charAt(j);
                    if (v == '\\' && j + 1 < line.length()) {
                        char next = line.charAt(++j);
                        value.append(next == 'n' ? '\n' : next);
                    } else {
                        value.append(v);
                    }
                }
                labels.put(key, value.toString());
                i = j + 1;
            }
            return -1;
        }
    }
}
