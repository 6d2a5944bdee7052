package io.jetstream.kafka.relay.config;

import io.jetstream.kafka.core.protocol.PeerRole;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.LinkedHashSet;
import java.util.stream.Collectors;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.types.Password;

/**
 * The validated configuration of one relay node.
 *
 * <p>Built from a YAML file ({@link #load(Path)}) or a map of flattened keys (tests, embedding).
 * Every key is declared in {@link RelayConfigDef}; the raw map stops here: the rest of the relay
 * reads typed accessors ({@link Duration}, {@link InetSocketAddress}, enums, {@link RouteSpec}).
 * A configuration that breaks any rule is refused as a whole with a {@link RelayConfigException}
 * listing every problem, each naming its key. Instances are immutable and thread-safe.
 */
public final class RelayConfig extends AbstractConfig {

    public static final String RELAY_ID = "relay.id";
    public static final String IO_THREADS = "io.threads";
    public static final String LISTENER_HOST = "listener.host";
    public static final String LISTENER_PORT = "listener.port";
    public static final String ADMIN_HOST = "admin.host";
    public static final String ADMIN_PORT = "admin.port";
    public static final String TLS_ENABLED = "tls.enabled";
    public static final String TLS_CERT_FILE = "tls.cert.file";
    public static final String TLS_KEY_FILE = "tls.key.file";
    public static final String TLS_KEY_PASSWORD = "tls.key.password";
    public static final String TLS_CA_FILE = "tls.ca.file";
    public static final String TLS_CLIENT_AUTH = "tls.client.auth";
    public static final String TLS_RELOAD_INTERVAL_MS = "tls.reload.interval.ms";
    /** List of stream ids; each has {@code streams.<id>.}{@value #STREAM_TOKEN}. */
    public static final String STREAMS = "streams";
    public static final String STREAM_TOKEN = "token";
    /** List of destinations; each has {@code destinations.<d>.}{@value #ROUTES}. */
    public static final String DESTINATIONS = "destinations";
    /** List of route names; each has {@code destinations.<d>.routes.<r>.}{@value #ROUTE_HOPS} etc. */
    public static final String ROUTES = "routes";
    public static final String ROUTE_HOPS = "hops";
    public static final String ROUTE_PRICE_PER_GB = "price.per.gb";
    public static final String ROUTE_RELAY_PRICE_PER_HOUR = "relay.price.per.hour";
    public static final String BUFFER_MAX_BYTES_PER_CONNECTION = "buffer.max.bytes.per.connection";
    public static final String BUFFER_MAX_BYTES = "buffer.max.bytes";
    public static final String FRAME_MAX_BYTES = "frame.max.bytes";
    public static final String HEARTBEAT_INTERVAL_MS = "heartbeat.interval.ms";
    public static final String IDLE_TIMEOUT_MS = "idle.timeout.ms";
    public static final String SUBSCRIBE_EPOCH_MAX_AHEAD_MS = "subscribe.epoch.max.ahead.ms";
    public static final String ACK_TIMEOUT_MS = "ack.timeout.ms";
    public static final String ROUTING_POLICY = "routing.policy";
    public static final String ROUTING_SPEND_CAP_PER_HOUR = "routing.spend.cap.per.hour";
    public static final String ROUTING_LATENCY_TARGET_MS = "routing.latency.target.ms";
    public static final String ROUTING_PROBE_SHARE = "routing.probe.share";
    public static final String ROUTING_COSTLY_PROBE_SHARE = "routing.costly.probe.share";
    public static final String CONNECT_TIMEOUT_MS = "connect.timeout.ms";
    public static final String RECONNECT_BACKOFF_MS = "reconnect.backoff.ms";
    public static final String RECONNECT_BACKOFF_MAX_MS = "reconnect.backoff.max.ms";
    public static final String SHUTDOWN_DRAIN_TIMEOUT_MS = "shutdown.drain.timeout.ms";
    public static final String HANDSHAKE_TIMEOUT_MS = "handshake.timeout.ms";
    public static final String HANDSHAKE_FRAME_MAX_BYTES = "handshake.frame.max.bytes";
    public static final String HANDSHAKE_PENDING_MAX = "handshake.pending.max";
    public static final String HANDSHAKE_PENDING_PER_ADDRESS_MAX = "handshake.pending.per.address.max";
    public static final String NEXT_HOPS_ALLOWED = "next.hops.allowed";
    public static final String HEALTH_DIRECT_MEMORY_DEGRADED_RATIO = "health.direct.memory.degraded.ratio";
    public static final String ADMIN_CONNECTIONS_MAX = "admin.connections.max";
    public static final String ADMIN_REQUEST_TIMEOUT_MS = "admin.request.timeout.ms";
    public static final String METRICS_PEERS_MAX = "metrics.peers.max";
    public static final String METRICS_PEER_RETENTION_MS = "metrics.peer.retention.ms";
    /** Kafka's config providers: {@code config.providers}, then {@code config.providers.<name>.class} and {@code .param.*}. */
    public static final String CONFIG_PROVIDERS = org.apache.kafka.common.config.AbstractConfig.CONFIG_PROVIDERS_CONFIG;
    public static final String CONFIG_PROVIDER_CLASS = "class";
    public static final String CONFIG_PROVIDER_PARAM = "param";

    private final String source;
    private final Map<String, StreamSpec> streams;
    private final Map<String, List<RouteSpec>> routes;
    private final Set<HopAddress> allowedNextHops;

    /**
     * @param props flattened keys; values are strings, numbers, booleans or lists (joined with
     *              commas), as in a properties file
     * @throws RelayConfigException listing every problem found
     */
    public RelayConfig(Map<String, ?> props) {
        this(FlatValues.toStrings(props), "(map)");
    }

    private RelayConfig(Map<String, String> flat, String source) {
        this(RelayConfigValidator.validate(flat), source);
    }

    private RelayConfig(RelayConfigValidator.Result result, String source) {
        super(RelayConfigDef.relay(), requireValid(result, source), false);
        this.source = source;
        this.streams = parseStreams(result.props());
        this.routes = parseRoutes(result.props());
        this.allowedNextHops = allowedNextHops(routes, getList(NEXT_HOPS_ALLOWED));
    }

    /** Every hop written in a route, and every address of {@code next.hops.allowed}. */
    private static Set<HopAddress> allowedNextHops(Map<String, List<RouteSpec>> routes, List<String> allowed) {
        Set<HopAddress> hops = new LinkedHashSet<>();
        routes.values().forEach(specs -> specs.forEach(route -> route.hops().forEach(hop -> hops.add(hop.canonical()))));
        allowed.forEach(hop -> hops.add(HopAddress.parse(hop).canonical()));
        return Set.copyOf(hops);
    }

    /**
     * Reads, flattens and validates a YAML configuration file.
     *
     * @throws RelayConfigException if the file is missing or unreadable, is not YAML, or breaks a rule
     */
    public static RelayConfig load(Path yamlFile) {
        return new RelayConfig(YamlFlattener.flatten(yamlFile), yamlFile.toString());
    }

    /** A copy of the fixed keys' definition (member keys are documented by {@link RelayConfigDoc}). */
    public static ConfigDef configDef() {
        return new ConfigDef(RelayConfigDef.relay());
    }

    private static Map<String, String> requireValid(RelayConfigValidator.Result result, String source) {
        if (!result.valid()) {
            throw new RelayConfigException(source, result.problems());
        }
        return result.props();
    }

    private Map<String, StreamSpec> parseStreams(Map<String, String> props) {
        Map<String, StreamSpec> byId = new LinkedHashMap<>();
        for (String id : getList(STREAMS)) {
            Map<String, Object> parsed = RelayConfigDef.stream(id).parse(props);
            Password token = (Password) parsed.get(RelayConfigDef.streamTokenKey(id));
            Map<PeerRole, Password> roleTokens = new EnumMap<>(PeerRole.class);
            Map<PeerRole, List<PeerIdentity>> roleIdentities = new EnumMap<>(PeerRole.class);
            for (PeerRole role : PeerRole.values()) {
                String name = role.name().toLowerCase(Locale.ROOT);
                Password own = (Password) parsed.get(RelayConfigDef.streamRoleTokenKey(id, name));
                if (own != null) {
                    roleTokens.put(role, own);
                }
                @SuppressWarnings("unchecked")
                List<String> identities = (List<String>) parsed.get(RelayConfigDef.streamRoleIdentitiesKey(id, name));
                roleIdentities.put(role, identities.stream().map(PeerIdentity::parse).toList());
            }
            byId.put(id, new StreamSpec(id, token, roleTokens, roleIdentities));
        }
        return Map.copyOf(byId);
    }

    private Map<String, List<RouteSpec>> parseRoutes(Map<String, String> props) {
        Map<String, List<RouteSpec>> byDestination = new LinkedHashMap<>();
        for (String destination : getList(DESTINATIONS)) {
            String routesKey = RelayConfigDef.routesKey(destination);
            @SuppressWarnings("unchecked")
            List<String> names = (List<String>) RelayConfigDef.destination(destination).parse(props).get(routesKey);
            List<RouteSpec> specs = new ArrayList<>();
            for (String route : names) {
                Map<String, Object> values = RelayConfigDef.route(destination, route).parse(props);
                @SuppressWarnings("unchecked")
                List<String> hops = (List<String>) values.get(RelayConfigDef.routeKey(destination, route, ROUTE_HOPS));
                List<HopAddress> addresses = HopListValidator.isLocal(hops) ? List.of()
                        : hops.stream().map(HopAddress::parse).toList();
                specs.add(new RouteSpec(destination, route, addresses,
                        (Double) values.get(RelayConfigDef.routeKey(destination, route, ROUTE_PRICE_PER_GB)),
                        (Double) values.get(RelayConfigDef.routeKey(destination, route, ROUTE_RELAY_PRICE_PER_HOUR))));
            }
            byDestination.put(destination, List.copyOf(specs));
        }
        return byDestination;
    }

    /** Where this configuration came from (file path), for messages. */
    public String source() {
        return source;
    }

    public String relayId() {
        return getString(RELAY_ID);
    }

    /** Event-loop threads; 0 means Netty's default (twice the processors). */
    public int ioThreads() {
        return getInt(IO_THREADS);
    }

    public InetSocketAddress listenerAddress() {
        return new InetSocketAddress(getString(LISTENER_HOST), getInt(LISTENER_PORT));
    }

    public InetSocketAddress adminAddress() {
        return new InetSocketAddress(getString(ADMIN_HOST), getInt(ADMIN_PORT));
    }

    public boolean tlsEnabled() {
        return getBoolean(TLS_ENABLED);
    }

    public Optional<Path> tlsCertFile() {
        return optionalPath(TLS_CERT_FILE);
    }

    public Optional<Path> tlsKeyFile() {
        return optionalPath(TLS_KEY_FILE);
    }

    public Optional<Password> tlsKeyPassword() {
        return Optional.ofNullable(getPassword(TLS_KEY_PASSWORD));
    }

    public Optional<Path> tlsCaFile() {
        return optionalPath(TLS_CA_FILE);
    }

    public TlsClientAuth tlsClientAuth() {
        return EnumValidator.parse(TlsClientAuth.class, getString(TLS_CLIENT_AUTH));
    }

    /** Most frequent look at the TLS files for a change (zero: at every new connection). */
    public Duration tlsReloadInterval() {
        return millis(TLS_RELOAD_INTERVAL_MS);
    }

    /** Accepted streams by id. */
    public Map<String, StreamSpec> streams() {
        return streams;
    }

    public Optional<StreamSpec> stream(String id) {
        return Optional.ofNullable(streams.get(id));
    }

    /** Destinations in configuration order. */
    public Collection<String> destinations() {
        return routes.keySet();
    }

    /** The routes to a destination in configuration order; empty for an unknown destination. */
    public List<RouteSpec> routes(String destination) {
        return routes.getOrDefault(destination, List.of());
    }

    public long bufferMaxBytesPerConnection() {
        return getLong(BUFFER_MAX_BYTES_PER_CONNECTION);
    }

    public long bufferMaxBytes() {
        return getLong(BUFFER_MAX_BYTES);
    }

    public int frameMaxBytes() {
        return getInt(FRAME_MAX_BYTES);
    }

    public Duration heartbeatInterval() {
        return millis(HEARTBEAT_INTERVAL_MS);
    }

    public Duration idleTimeout() {
        return millis(IDLE_TIMEOUT_MS);
    }

    /** How far ahead of this relay's wall clock a SUBSCRIBE's epoch may be (clock skew between sites). */
    public Duration subscribeEpochMaxAhead() {
        return millis(SUBSCRIBE_EPOCH_MAX_AHEAD_MS);
    }

    /** Whether the ingress uses the capacity- and cost-aware route scheduler (else round robin). */
    public boolean adaptiveRouting() {
        return "adaptive".equals(getString(ROUTING_POLICY));
    }

    /** Money per hour the route scheduler may spend; 0 = no cap. */
    public double spendCapPerHour() {
        return getDouble(ROUTING_SPEND_CAP_PER_HOUR);
    }

    /** Latency target of the route scheduler, or zero for its default. */
    public Duration routingLatencyTarget() {
        return millis(ROUTING_LATENCY_TARGET_MS);
    }

    /** Least share of batches of each healthy route of the cheapest tier (adaptive routing). */
    public double routingProbeShare() {
        return getDouble(ROUTING_PROBE_SHARE);
    }

    /** Least share of batches of each healthy costlier route (adaptive routing); 0: none. */
    public double routingCostlyProbeShare() {
        return getDouble(ROUTING_COSTLY_PROBE_SHARE);
    }

    public Duration ackTimeout() {
        return millis(ACK_TIMEOUT_MS);
    }

    public Duration connectTimeout() {
        return millis(CONNECT_TIMEOUT_MS);
    }

    public Duration reconnectBackoff() {
        return millis(RECONNECT_BACKOFF_MS);
    }

    public Duration reconnectBackoffMax() {
        return millis(RECONNECT_BACKOFF_MAX_MS);
    }

    public Duration shutdownDrainTimeout() {
        return millis(SHUTDOWN_DRAIN_TIMEOUT_MS);
    }

    /** Time a data connection has to complete its handshake (TLS and HELLO) before it is closed. */
    public Duration handshakeTimeout() {
        return millis(HANDSHAKE_TIMEOUT_MS);
    }

    /** Largest frame accepted before the handshake has succeeded (never above {@link #frameMaxBytes()}). */
    public int handshakeFrameMaxBytes() {
        return Math.min(getInt(HANDSHAKE_FRAME_MAX_BYTES), frameMaxBytes());
    }

    /** Most data connections in their handshake at once; more are refused at accept. */
    public int handshakePendingMax() {
        return getInt(HANDSHAKE_PENDING_MAX);
    }

    /** Most data connections in their handshake at once from one IP address. */
    public int handshakePendingPerAddressMax() {
        return getInt(HANDSHAKE_PENDING_PER_ADDRESS_MAX);
    }

    /**
     * The relays this one may open connections to: the hops of its routes and
     * {@code next.hops.allowed}, as {@link HopAddress#canonical()} addresses. A path naming any other
     * next hop is refused.
     */
    public Set<HopAddress> allowedNextHops() {
        return allowedNextHops;
    }

    /** Whether {@code hop} may be connected to as a next hop (see {@link #allowedNextHops()}). */
    public boolean nextHopAllowed(HopAddress hop) {
        return allowedNextHops.contains(hop.canonical());
    }

    /** Share of the maximum direct memory in use above which {@code /health} reports DEGRADED. */
    public double healthDirectMemoryDegradedRatio() {
        return getDouble(HEALTH_DIRECT_MEMORY_DEGRADED_RATIO);
    }

    /** Most admin (HTTP) connections open at once; more are closed as soon as they are accepted. */
    public int adminConnectionsMax() {
        return getInt(ADMIN_CONNECTIONS_MAX);
    }

    /**
     * Time an admin connection has to deliver a whole request, from its accept or the end of its
     * previous request; bytes trickled in do not extend it.
     */
    public Duration adminRequestTimeout() {
        return millis(ADMIN_REQUEST_TIMEOUT_MS);
    }

    /** Most peers with {@code peer} series of their own; more share one series. */
    public int metricsPeersMax() {
        return getInt(METRICS_PEERS_MAX);
    }

    /** How long the {@code peer} series of a peer with no connection left are kept. */
    public Duration metricsPeerRetention() {
        return millis(METRICS_PEER_RETENTION_MS);
    }

    private Duration millis(String key) {
        return Duration.ofMillis(getLong(key));
    }

    private Optional<Path> optionalPath(String key) {
        String value = getString(key);
        return value == null || value.isEmpty() ? Optional.empty() : Optional.of(Path.of(value));
    }

    /** One line for the start-up log; no secrets. */
    public String summary() {
        return String.format("relay.id=%s listener=%s admin=%s tls=%s streams=%s destinations=%s",
                relayId(), getString(LISTENER_HOST) + ":" + getInt(LISTENER_PORT),
                getString(ADMIN_HOST) + ":" + getInt(ADMIN_PORT),
                tlsEnabled() ? "on(client.auth=" + getString(TLS_CLIENT_AUTH) + ")" : "OFF",
                streams.keySet().stream().sorted().toList(),
                routes.entrySet().stream().map(e -> e.getKey() + e.getValue().stream().map(RouteSpec::name).toList())
                        .collect(Collectors.joining(",", "[", "]")));
    }
}
