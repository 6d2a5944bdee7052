package io.jetstream.kafka.relay.metrics;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The metrics of one relay node, exposed on {@code GET /metrics} in Prometheus text format.
 *
 * <p>Owned by the relay instance (no static registry: two relays in one JVM, as in tests and the
 * demo, keep separate numbers). Every family is declared once below with its help text and label
 * names; the names are documented in {@code docs/relay.md}.
 *
 * <p>Hot-path contract: handlers resolve {@link PeerMetrics}, {@link RouteMetrics} and the other
 * handles once (per connection, per route) and then update plain {@link Counter}/{@link Gauge}
 * fields: {@link java.util.concurrent.atomic.LongAdder} / {@link java.util.concurrent.atomic.AtomicLong},
 * no map lookup, no lock, no allocation per batch. All methods are thread-safe.
 */
public final class RelayMetrics implements AutoCloseable {

    /** Prefix of every relay metric name. */
    public static final String PREFIX = "jetstream_relay_";

    private final List<MetricFamily<?>> families = new ArrayList<>();

    private final MetricFamily<Gauge> info;
    private final MetricFamily<Counter> peerBytesIn;
    private final MetricFamily<Counter> peerBytesOut;
    private final MetricFamily<Counter> peerBatchesIn;
    private final MetricFamily<Counter> peerBatchesOut;
    private final MetricFamily<DoubleGauge> peerRtt;
    private final MetricFamily<Counter> routeBytesIn;
    private final MetricFamily<Counter> routeBytesOut;
    private final MetricFamily<Counter> routeBatchesIn;
    private final MetricFamily<Counter> routeBatchesOut;
    private final MetricFamily<Counter> errors;
    private final MetricFamily<Gauge> connections;
    private final MetricFamily<Counter> nacks;
    private final Map<String, MetricFamily<DoubleGauge>> decisions = new java.util.LinkedHashMap<>();
    private final List<Runnable> beforeScrape = new java.util.concurrent.CopyOnWriteArrayList<>();

    private final Gauge bufferedBytes;
    private final Gauge bufferLimitBytes;
    private final Gauge inFlightBatches;
    private final Gauge directMemoryUsedBytes;
    private final Gauge directMemoryMaxBytes;
    private final Counter acks;
    private final Map<ErrorKind, Counter> errorsByKind = new EnumMap<>(ErrorKind.class);
    private final Map<ConnectionRole, Gauge> connectionsByRole = new EnumMap<>(ConnectionRole.class);
    private final Map<NackReason, Counter> nacksByReason = new EnumMap<>(NackReason.class);
    private final Map<String, PeerMetrics> peers = new ConcurrentHashMap<>();
    private final Map<List<String>, RouteMetrics> routes = new ConcurrentHashMap<>();

    /**
     * @param relayId this relay's id, exported as a label of {@code jetstream_relay_info}
     */
    public RelayMetrics(String relayId) {
        Objects.requireNonNull(relayId, "relayId");
        info = gauge("info", "Constant 1; labels identify the relay and its version.", "relay_id", "version");
        peerBytesIn = counter("peer_bytes_in_total", "Bytes read from a peer, frame headers included.", "peer");
        peerBytesOut = counter("peer_bytes_out_total", "Bytes written to a peer, frame headers included.", "peer");
        peerBatchesIn = counter("peer_batches_in_total", "Batches received from a peer.", "peer");
        peerBatchesOut = counter("peer_batches_out_total", "Batches sent to a peer.", "peer");
        peerRtt = family("peer_rtt_ms", "Last heartbeat round-trip time to a peer, in milliseconds.",
                MetricFamily.Type.GAUGE, DoubleGauge::new, "peer");
        routeBytesIn = counter("route_bytes_in_total", "Bytes of batches that arrived travelling on a route.",
                "destination", "route");
        routeBytesOut = counter("route_bytes_out_total", "Bytes of batches sent onto a route.",
                "destination", "route");
        routeBatchesIn = counter("route_batches_in_total", "Batches that arrived travelling on a route.",
                "destination", "route");
        routeBatchesOut = counter("route_batches_out_total", "Batches sent onto a route.", "destination", "route");
        bufferedBytes = gauge("buffered_bytes", "Bytes of batches held by the relay (received, not yet"
                + " acknowledged downstream).").labels();
        bufferLimitBytes = gauge("buffer_limit_bytes", "Configured buffer.max.bytes.").labels();
        inFlightBatches = gauge("inflight_batches", "Batches received and not yet acknowledged downstream.").labels();
        directMemoryUsedBytes = gauge("direct_memory_used_bytes", "Direct (off-heap) memory in use by the"
                + " process: Netty's count, or the JVM's direct buffer pool where Netty does not count.").labels();
        directMemoryMaxBytes = gauge("direct_memory_max_bytes", "Most direct memory the process may use"
                + " (-XX:MaxDirectMemorySize, by default the heap maximum).").labels();
        errors = counter("errors_total", "Rejected input and failed operations, by kind.", "kind");
        connections = gauge("connections", "Open data connections, by role of the peer.", "role");
        acks = counter("acks_total", "Acknowledgements relayed upstream (batch durably written at the destination).")
                .labels();
        nacks = counter("nacks_total", "Negative acknowledgements sent upstream, by reason.", "reason");
        // The adaptive scheduler's view at the ingress (routing.policy=adaptive), refreshed at each scrape.
        decision(ROUTE_WEIGHT, "Adaptive routing: the route's share of the capacity of the routes not down "
                + "(its weight).");
        decision(ROUTE_TRAFFIC_SHARE, "Adaptive routing: the route's share of the bytes recently sent.");
        decision(ROUTE_CAPACITY, "Adaptive routing: capacity estimate used for scheduling, bytes per second.");
        decision(ROUTE_DELIVERED, "Adaptive routing: bytes per second recently carried to the"
                + " route's egress relay (receipts), or acknowledged where no receipt comes.");
        decision(ROUTE_RTT, "Adaptive routing: base round-trip time used for scheduling (the"
                + " smallest recent receipt or acknowledgement latency), in milliseconds.");
        decision(ROUTE_IN_FLIGHT, "Adaptive routing: bytes sent on the route and neither received by"
                + " its egress relay (receipt) nor answered: the route's own queue, without what waits at the destination.");
        decision(ROUTE_AWAITING_ANSWER, "Adaptive routing: bytes the route carried to its egress relay"
                + " (receipts) whose answer from the destination is still due: what waits at the destination.");
        decision(ROUTE_STATE, "Adaptive routing: 0 up, 1 degraded, 2 down.");
        decision(ROUTE_SPENT, "Adaptive routing: egress and relay money charged to the route since start.");

        info.labels(relayId, version()).set(1);
        // Pre-create the bounded label sets: handles need no lookup, and every series is visible
        // (at 0) from the first scrape, which keeps rate() and alerts simple.
        for (ErrorKind kind : ErrorKind.values()) {
            errorsByKind.put(kind, errors.labels(kind.label()));
        }
        for (ConnectionRole role : ConnectionRole.values()) {
            connectionsByRole.put(role, connections.labels(role.label()));
        }
        for (NackReason reason : NackReason.values()) {
            nacksByReason.put(reason, nacks.labels(reason.label()));
        }
    }

    /** The series of one peer, created on first use. Call once per connection, not per batch. */
    public PeerMetrics peer(String peer) {
        return peers.computeIfAbsent(peer, p -> new PeerMetrics(p, peerBytesIn.labels(p), peerBytesOut.labels(p),
                peerBatchesIn.labels(p), peerBatchesOut.labels(p), peerRtt.labels(p)));
    }

    /** Forgets a peer that is gone for good, so its series stop being exported. */
    public void removePeer(String peer) {
        peers.remove(peer);
        for (MetricFamily<?> family : List.of(peerBytesIn, peerBytesOut, peerBatchesIn, peerBatchesOut, peerRtt)) {
            family.remove(peer);
        }
    }

    /** The series of one route, created on first use. Call once per route, not per batch. */
    public RouteMetrics route(String destination, String route) {
        return routes.computeIfAbsent(List.of(destination, route), k -> new RouteMetrics(destination, route,
                routeBytesIn.labels(destination, route), routeBytesOut.labels(destination, route),
                routeBatchesIn.labels(destination, route), routeBatchesOut.labels(destination, route)));
    }

    public Gauge bufferedBytes() {
        return bufferedBytes;
    }

    public Gauge bufferLimitBytes() {
        return bufferLimitBytes;
    }

    public Gauge inFlightBatches() {
        return inFlightBatches;
    }

    public Gauge directMemoryUsedBytes() {
        return directMemoryUsedBytes;
    }

    public Gauge directMemoryMaxBytes() {
        return directMemoryMaxBytes;
    }

    public Counter errors(ErrorKind kind) {
        return errorsByKind.get(kind);
    }

    public Gauge connections(ConnectionRole role) {
        return connectionsByRole.get(role);
    }

    public Counter acks() {
        return acks;
    }

    public Counter nacks(NackReason reason) {
        return nacksByReason.get(reason);
    }

    public static final String ROUTE_WEIGHT = "route_weight";
    public static final String ROUTE_TRAFFIC_SHARE = "route_traffic_share";
    public static final String ROUTE_CAPACITY = "route_capacity_bytes_per_second";
    public static final String ROUTE_DELIVERED = "route_delivered_bytes_per_second";
    public static final String ROUTE_RTT = "route_rtt_ms";
    public static final String ROUTE_IN_FLIGHT = "route_inflight_bytes";
    public static final String ROUTE_AWAITING_ANSWER = "route_awaiting_answer_bytes";
    public static final String ROUTE_STATE = "route_state";
    public static final String ROUTE_SPENT = "route_spent_total";

    private void decision(String name, String help) {
        decisions.put(name, family(name, help, MetricFamily.Type.GAUGE, DoubleGauge::new, "destination", "route"));
    }

    /** One of the adaptive scheduler's per-route figures ({@code ROUTE_*} names). */
    public DoubleGauge decision(String name, String destination, String route) {
        MetricFamily<DoubleGauge> family = decisions.get(name);
        if (family == null) {
            throw new IllegalArgumentException("no decision metric " + name);
        }
        return family.labels(destination, route);
    }

    /** Runs {@code refresh} before every scrape (figures computed on demand, such as the scheduler's). */
    public void beforeScrape(Runnable refresh) {
        beforeScrape.add(Objects.requireNonNull(refresh, "refresh"));
    }

    /** Every family, in declaration order (for the exposition and the docs). */
    public List<MetricFamily<?>> families() {
        return Collections.unmodifiableList(families);
    }

    /** Appends the Prometheus text exposition (format 0.0.4) of every series. */
    public void writePrometheus(StringBuilder out) {
        PrometheusText.write(out, families);
    }

    public String scrape() {
        beforeScrape.forEach(Runnable::run);
        StringBuilder out = new StringBuilder(4096);
        writePrometheus(out);
        return out.toString();
    }

    /** Drops every series; handles already resolved keep working but are no longer exported. */
    @Override
    public void close() {
        families.forEach(MetricFamily::clear);
        peers.clear();
        routes.clear();
    }

    private MetricFamily<Counter> counter(String name, String help, String... labels) {
        return family(name, help, MetricFamily.Type.COUNTER, Counter::new, labels);
    }

    private MetricFamily<Gauge> gauge(String name, String help, String... labels) {
        return family(name, help, MetricFamily.Type.GAUGE, Gauge::new, labels);
    }

    private <M extends Metric> MetricFamily<M> family(String name, String help, MetricFamily.Type type,
                                                      Supplier<M> factory, String... labels) {
        MetricFamily<M> family = new MetricFamily<>(PREFIX + name, help, type, factory, labels);
        families.add(family);
        return family;
    }

    private static String version() {
        String version = RelayMetrics.class.getPackage().getImplementationVersion();
        return version == null ? "dev" : version;
    }
}
