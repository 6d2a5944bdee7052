package io.jetstream.kafka.relay.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.datapoints.GaugeDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.core.metrics.StatefulMetric;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import io.jetstream.kafka.core.model.Clock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The metrics of one relay node, kept in the Prometheus Java client's registry and exposed on
 * {@code GET /metrics} in the Prometheus text format (version 0.0.4) by the client's own writer.
 *
 * <p>Conventions (those of Prometheus): counters end in {@code _total}, durations are in seconds
 * and sizes in bytes, latencies are histograms, and {@link #registerJvmMetrics()} adds the client's
 * standard JVM metrics ({@code jvm_memory_*}, {@code jvm_gc_*}, {@code jvm_threads_*},
 * {@code process_*}) for a relay process.
 *
 * <p>Owned by the relay instance (its own {@link PrometheusRegistry}, never the static default
 * one: two relays in one JVM, as in tests and the demo, keep separate numbers). Every family is
 * declared once below with its help text and label names; {@link RelayMetricsDoc} renders the
 * reference in {@code docs/relay.md} from the same declarations.
 *
 * <p>Hot-path contract: handlers resolve {@link PeerMetrics}, {@link RouteMetrics} and the other
 * handles once (per connection, per route) and then update the client's data points (lock-free
 * adders), no map lookup and no allocation per batch. All methods are thread-safe.
 *
 * <p>Peer ids come from the wire, so the {@code peer} series are bounded ({@link PeerSeries}): a
 * connection holds its peer's series from {@link #peer} to {@link #release}; a series no connection
 * holds is removed after {@link #limitPeers retention}, and beyond {@code maxPeers} peers new ones
 * share the series labelled {@value PeerSeries#OVERFLOW}.
 */
public final class RelayMetrics implements AutoCloseable {

    /** Prefix of every relay metric name. */
    public static final String PREFIX = "jetstream_relay_";

    /** The {@code Content-Type} of a scrape response. */
    public static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

    /**
     * Upper bounds of the latency histograms, in seconds: from a LAN hop (5 ms) to a WAN route
     * under a backlog (30 s); the acknowledgement timeout defaults to 30 s.
     */
    static final double[] LATENCY_BUCKETS = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};

    /** Default of {@code metrics.peers.max}: peers with their own {@code peer} series. */
    public static final int DEFAULT_PEERS_MAX = 512;
    /** Default of {@code metrics.peer.retention.ms}: how long a disconnected peer's series stay. */
    public static final Duration DEFAULT_PEER_RETENTION = Duration.ofMinutes(5);

    /** One declared family, as exposed: for the reference docs and the tests. */
    public record Family(String name, String type, List<String> labelNames, String help) {
    }

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
    private final List<Family> declared = new ArrayList<>();
    private final List<StatefulMetric<?, ?>> stateful = new ArrayList<>();

    private final Counter peerBytesIn;
    private final Counter peerBytesOut;
    private final Counter peerBatchesIn;
    private final Counter peerBatchesOut;
    private final Gauge peerRtt;
    private final Counter routeBytesIn;
    private final Counter routeBytesOut;
    private final Counter routeBatchesIn;
    private final Counter routeBatchesOut;
    private final Histogram routeAckLatency;
    private final Counter routeSpent;
    private final Counter routeQueueDrains;
    private final Gauge spendCapReached;
    private final Map<String, Gauge> decisions = new LinkedHashMap<>();
    private final List<Runnable> beforeScrape = new CopyOnWriteArrayList<>();

    private final GaugeDataPoint bufferedBytes;
    private final GaugeDataPoint bufferLimitBytes;
    private final GaugeDataPoint inFlightBatches;
    private final GaugeDataPoint directMemoryUsedBytes;
    private final GaugeDataPoint directMemoryMaxBytes;
    private final GaugeDataPoint adminConnections;
    private final CounterDataPoint tlsReloads;
    private final CounterDataPoint tlsReloadFailures;
    private final GaugeDataPoint tlsCertificateExpiry;
    private final CounterDataPoint acks;
    private final Map<ErrorKind, CounterDataPoint> errorsByKind = new EnumMap<>(ErrorKind.class);
    private final Map<RoleLabel, GaugeDataPoint> connectionsByRole = new EnumMap<>(RoleLabel.class);
    private final Map<NackReason, CounterDataPoint> nacksByReason = new EnumMap<>(NackReason.class);
    private final PeerSeries peers;
    private final Map<List<String>, RouteMetrics> routes = new ConcurrentHashMap<>();
    private boolean jvmMetrics;

    /**
     * @param relayId this relay's id, exported as a label of {@code jetstream_relay_info}
     */
    public RelayMetrics(String relayId) {
        this(relayId, Clock.system());
    }

    /**
     * @param relayId this relay's id, exported as a label of {@code jetstream_relay_info}
     * @param clock   times the retention of released peer series
     */
    public RelayMetrics(String relayId, Clock clock) {
        Objects.requireNonNull(relayId, "relayId");
        Info info = Info.builder().name(PREFIX + "info").help("Constant 1; labels identify the relay and its version.")
                .labelNames("relay_id", "version").register(registry);
        declare(PREFIX + "info", "gauge", "Constant 1; labels identify the relay and its version.",
                "relay_id", "version");
        peerBytesIn = counter("peer_bytes_in_total", "Bytes read from a peer, frame headers included.", "peer");
        peerBytesOut = counter("peer_bytes_out_total", "Bytes written to a peer, frame headers included.", "peer");
        peerBatchesIn = counter("peer_batches_in_total", "Batches received from a peer.", "peer");
        peerBatchesOut = counter("peer_batches_out_total", "Batches sent to a peer.", "peer");
        peerRtt = gauge("peer_rtt_seconds", "Last heartbeat (PING/PONG) round-trip time to a peer, in seconds.",
                "peer");
        GaugeDataPoint peerSeries = gauge("peer_series", "Peers with series of their own now (connected, or"
                + " disconnected less than metrics.peer.retention.ms ago); at most metrics.peers.max.");
        CounterDataPoint peersFolded = counter("peers_folded_total", "Peer connections counted under the"
                + " shared peer label " + PeerSeries.OVERFLOW + " because metrics.peers.max connected peers already had"
                + " series of their own.");
        peers = new PeerSeries(this::newPeer, this::removePeer, DEFAULT_PEERS_MAX, DEFAULT_PEER_RETENTION, clock,
                peersFolded, peerSeries);
        routeBytesIn = counter("route_bytes_in_total", "Bytes of batches that arrived travelling on a route.",
                "destination", "route");
        routeBytesOut = counter("route_bytes_out_total", "Bytes of batches sent onto a route.",
                "destination", "route");
        routeBatchesIn = counter("route_batches_in_total", "Batches that arrived travelling on a route.",
                "destination", "route");
        routeBatchesOut = counter("route_batches_out_total", "Batches sent onto a route.", "destination", "route");
        routeAckLatency = histogram("route_ack_latency_seconds", "Time from forwarding a batch (or topic"
                + " metadata) onto a route to its acknowledgement (durably written at the destination), as seen"
                + " by this relay, in seconds.", "destination", "route");
        bufferedBytes = gauge("buffered_bytes", "Bytes of batches held by the relay (received, not yet"
                + " acknowledged downstream).");
        bufferLimitBytes = gauge("buffer_limit_bytes", "Configured buffer.max.bytes.");
        inFlightBatches = gauge("inflight_batches", "Batches received and not yet acknowledged downstream.");
        directMemoryUsedBytes = gauge("direct_memory_used_bytes", "Direct (off-heap) memory in use by the"
                + " process: Netty's count, or the JVM's direct buffer pool where Netty does not count.");
        directMemoryMaxBytes = gauge("direct_memory_max_bytes", "Most direct memory the process may use"
                + " (-XX:MaxDirectMemorySize, by default the heap maximum).");
        adminConnections = gauge("admin_connections", "Open connections to the admin listener (GET /health,"
                + " GET /metrics); at most admin.connections.max are served.");
        tlsReloads = counter("tls_reloads_total", "Times changed TLS files (tls.cert.file, tls.key.file,"
                + " tls.ca.file) were taken without a restart; new connections use what they hold.");
        tlsReloadFailures = counter("tls_reload_failures_total", "Times changed TLS files could not be used"
                + " (unreadable, half-written, unparsable, a key that does not belong to the certificate): the"
                + " relay kept the material it had; the WARN log names the file. Counted once per content.");
        tlsCertificateExpiry = gauge("tls_certificate_expiry_timestamp_seconds", "End of validity (notAfter) of"
                + " the certificate the relay presents to new connections, in seconds since the epoch; 0 with"
                + " TLS off. Alert when it comes near: the files were not renewed, or not taken.");
        Counter errors = counter("errors_total", "Rejected input and failed operations, by kind.", "kind");
        Gauge connections = gauge("connections", "Open data connections, by role of the peer.", "role");
        acks = counter("acks_total", "Acknowledgements relayed upstream (batch durably written at the"
                + " destination).");
        Counter nacks = counter("nacks_total", "Negative acknowledgements sent upstream, by reason.", "reason");
        // The adaptive scheduler's view at the ingress (routing.policy=adaptive), refreshed at each scrape.
        decision(ROUTE_WEIGHT, "Adaptive routing: the route's share of the capacity of the routes not down "
                + "(its weight).");
        decision(ROUTE_TRAFFIC_SHARE, "Adaptive routing: the route's share of the bytes recently sent.");
        decision(ROUTE_CAPACITY, "Adaptive routing: capacity estimate used for scheduling, bytes per second.");
        decision(ROUTE_DELIVERED, "Adaptive routing: bytes per second recently carried to the"
                + " route's egress relay (receipts), or acknowledged where no receipt comes.");
        decision(ROUTE_RTT, "Adaptive routing: base round-trip time used for scheduling (the"
                + " smallest recent receipt or acknowledgement latency), in seconds.");
        decision(ROUTE_RANKING_RTT, "Adaptive routing: round trip the route is ranked by, in seconds: the"
                + " routes' common base round trip, or the route's own smallest latency of the last 2 s where that"
                + " exceeds the common one by more than 30 ms (a longer path, a delay that grew); while the"
                + " route's own standing queue explains that latency, its latency measured after its last queue"
                + " drain.");
        decision(ROUTE_IN_FLIGHT, "Adaptive routing: bytes sent on the route and neither received by"
                + " its egress relay (receipt) nor answered: the route's own queue, without what waits at the destination.");
        decision(ROUTE_AWAITING_ANSWER, "Adaptive routing: bytes the route carried to its egress relay"
                + " (receipts) whose answer from the destination is still due: what waits at the destination.");
        decision(ROUTE_STATE, "Adaptive routing: 0 up, 1 degraded, 2 down.");
        routeSpent = counter("route_spent_total", "Adaptive routing: egress and relay money charged to the"
                + " route since start, in the currency of its configured prices.", "destination", "route");
        routeQueueDrains = counter("route_queue_drains_total", "Adaptive routing: times the route took no new"
                + " batch until nothing of its own was in flight, so that its next batch measured its round trip"
                + " without its queue (its recent latency exceeded the common round trip by the margin).",
                "destination", "route");
        spendCapReached = gauge("spend_cap_reached", "Adaptive routing: 1 while the destination's spend cap"
                + " (total or per window) is reached and no route may take more traffic, else 0.", "destination");

        info.addLabelValues(relayId, version());
        // Pre-create the bounded label sets: handles need no lookup, and every series is visible
        // (at 0) from the first scrape, which keeps rate() and alerts simple.
        for (ErrorKind kind : ErrorKind.values()) {
            errorsByKind.put(kind, errors.labelValues(kind.label()));
        }
        for (RoleLabel role : RoleLabel.values()) {
            connectionsByRole.put(role, connections.labelValues(role.label()));
        }
        for (NackReason reason : NackReason.values()) {
            nacksByReason.put(reason, nacks.labelValues(reason.label()));
        }
    }

    /**
     * Adds the client library's JVM and process metrics ({@code jvm_*}, {@code process_*}) to this
     * relay's registry. For the relay that owns its process: call once, at start.
     */
    public synchronized void registerJvmMetrics() {
        if (!jvmMetrics) {
            JvmMetrics.builder().register(registry);
            jvmMetrics = true;
        }
    }

    /**
     * Bounds the {@code peer} series: at most {@code maxPeers} peers have their own (more share the
     * {@value PeerSeries#OVERFLOW} series), and a series no connection holds is removed after
     * {@code retention}. The relay server applies its configuration here before serving.
     */
    public void limitPeers(int maxPeers, Duration retention) {
        peers.limit(maxPeers, retention);
    }

    /**
     * The series of one peer, held for the caller until {@link #release}: call once per connection
     * (when the peer is known), not per batch, and release it when the connection closes. Several
     * connections of one peer share its series. Beyond the peer limit, the shared
     * {@value PeerSeries#OVERFLOW} series.
     */
    public PeerMetrics peer(String peer) {
        return peers.acquire(Objects.requireNonNull(peer, "peer"));
    }

    /**
     * One holder of {@code metrics} (from {@link #peer}) is done with it: once no connection holds a
     * peer's series, they are removed after the retention period. Releasing twice is harmless.
     */
    public void release(PeerMetrics metrics) {
        peers.release(metrics);
    }

    private PeerMetrics newPeer(String p) {
        return new PeerMetrics(p, peerBytesIn.labelValues(p), peerBytesOut.labelValues(p),
                peerBatchesIn.labelValues(p), peerBatchesOut.labelValues(p), peerRtt.labelValues(p));
    }

    private void removePeer(String peer) {
        for (StatefulMetric<?, ?> family : List.of(peerBytesIn, peerBytesOut, peerBatchesIn, peerBatchesOut, peerRtt)) {
            family.remove(peer);
        }
    }

    /** The series of one route, created on first use. Call once per route, not per batch. */
    public RouteMetrics route(String destination, String route) {
        return routes.computeIfAbsent(List.of(destination, route), k -> new RouteMetrics(destination, route,
                routeBytesIn.labelValues(destination, route), routeBytesOut.labelValues(destination, route),
                routeBatchesIn.labelValues(destination, route), routeBatchesOut.labelValues(destination, route),
                routeAckLatency.labelValues(destination, route)));
    }

    public GaugeDataPoint bufferedBytes() {
        return bufferedBytes;
    }

    public GaugeDataPoint bufferLimitBytes() {
        return bufferLimitBytes;
    }

    public GaugeDataPoint inFlightBatches() {
        return inFlightBatches;
    }

    public GaugeDataPoint directMemoryUsedBytes() {
        return directMemoryUsedBytes;
    }

    public GaugeDataPoint directMemoryMaxBytes() {
        return directMemoryMaxBytes;
    }

    public GaugeDataPoint adminConnections() {
        return adminConnections;
    }

    /** Changed TLS files taken ({@code tls_reloads_total}). */
    public CounterDataPoint tlsReloads() {
        return tlsReloads;
    }

    /** Changed TLS files refused ({@code tls_reload_failures_total}). */
    public CounterDataPoint tlsReloadFailures() {
        return tlsReloadFailures;
    }

    /** notAfter of the certificate in use, seconds since the epoch ({@code tls_certificate_expiry_timestamp_seconds}). */
    public GaugeDataPoint tlsCertificateExpiry() {
        return tlsCertificateExpiry;
    }

    public CounterDataPoint errors(ErrorKind kind) {
        return errorsByKind.get(kind);
    }

    public GaugeDataPoint connections(RoleLabel role) {
        return connectionsByRole.get(role);
    }

    public CounterDataPoint acks() {
        return acks;
    }

    public CounterDataPoint nacks(NackReason reason) {
        return nacksByReason.get(reason);
    }

    public static final String ROUTE_WEIGHT = "route_weight";
    public static final String ROUTE_TRAFFIC_SHARE = "route_traffic_share";
    public static final String ROUTE_CAPACITY = "route_capacity_bytes_per_second";
    public static final String ROUTE_DELIVERED = "route_delivered_bytes_per_second";
    public static final String ROUTE_RTT = "route_rtt_seconds";
    public static final String ROUTE_RANKING_RTT = "route_ranking_rtt_seconds";
    public static final String ROUTE_IN_FLIGHT = "route_inflight_bytes";
    public static final String ROUTE_AWAITING_ANSWER = "route_awaiting_answer_bytes";
    public static final String ROUTE_STATE = "route_state";

    private void decision(String name, String help) {
        decisions.put(name, gauge(name, help, "destination", "route"));
    }

    /** One of the adaptive scheduler's per-route figures ({@code ROUTE_*} names). */
    public GaugeDataPoint decision(String name, String destination, String route) {
        Gauge family = decisions.get(name);
        if (family == null) {
            throw new IllegalArgumentException("no decision metric " + name);
        }
        return family.labelValues(destination, route);
    }

    /**
     * The money the scheduler has charged to a route since start ({@code route_spent_total}). The
     * scheduler keeps the running sum; the counter follows it (a sum that went down, which a
     * scheduler never reports, is ignored rather than breaking the counter's monotony).
     */
    public void spent(String destination, String route, double totalSinceStart) {
        advanceTo(routeSpent.labelValues(destination, route), totalSinceStart);
    }

    /** The scheduler's count of a route's queue drains since start ({@code route_queue_drains_total}). */
    public void queueDrains(String destination, String route, long totalSinceStart) {
        advanceTo(routeQueueDrains.labelValues(destination, route), totalSinceStart);
    }

    /** Brings a counter kept elsewhere as a total since start up to that total (never down). */
    private static void advanceTo(CounterDataPoint counter, double totalSinceStart) {
        double increase = totalSinceStart - counter.get();
        if (increase > 0) {
            counter.inc(increase);
        }
    }

    /** Whether a destination's spend cap is reached now ({@code spend_cap_reached}). */
    public void spendCapReached(String destination, boolean reached) {
        spendCapReached.labelValues(destination).set(reached ? 1 : 0);
    }

    /** Runs {@code refresh} before every scrape (figures computed on demand, such as the scheduler's). */
    public void beforeScrape(Runnable refresh) {
        beforeScrape.add(Objects.requireNonNull(refresh, "refresh"));
    }

    /** Every relay family, in declaration order (for the docs and the tests); JVM metrics excluded. */
    public List<Family> families() {
        return Collections.unmodifiableList(declared);
    }

    /** The text exposition (format 0.0.4) of every series, written by the client library. */
    public String scrape() {
        peers.expire();
        beforeScrape.forEach(Runnable::run);
        ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
        try {
            writer.write(out, registry.scrape());
        } catch (IOException e) {
            throw new UncheckedIOException("writing the metrics to memory failed", e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Drops every series; handles already resolved keep working but are no longer exported. */
    @Override
    public void close() {
        peers.clear();
        stateful.forEach(StatefulMetric::clear);
        routes.clear();
    }

    private Counter counter(String name, String help, String... labels) {
        Counter counter = Counter.builder().name(PREFIX + name).help(help).labelNames(labels).register(registry);
        stateful.add(counter);
        declare(PREFIX + name, "counter", help, labels);
        return counter;
    }

    private Gauge gauge(String name, String help, String... labels) {
        Gauge gauge = Gauge.builder().name(PREFIX + name).help(help).labelNames(labels).register(registry);
        stateful.add(gauge);
        declare(PREFIX + name, "gauge", help, labels);
        return gauge;
    }

    private Histogram histogram(String name, String help, String... labels) {
        Histogram histogram = Histogram.builder().name(PREFIX + name).help(help).unit(Unit.SECONDS)
                .classicOnly().classicUpperBounds(LATENCY_BUCKETS).labelNames(labels).register(registry);
        stateful.add(histogram);
        declare(PREFIX + name, "histogram", help, labels);
        return histogram;
    }

    private void declare(String name, String type, String help, String... labels) {
        declared.add(new Family(name, type, List.of(labels), help));
    }

    private static String version() {
        String version = RelayMetrics.class.getPackage().getImplementationVersion();
        return version == null ? "dev" : version;
    }
}
