package io.jetstream.kafka.relay.config;

import static io.jetstream.kafka.relay.config.ConfigKeyBuilder.key;
import static io.jetstream.kafka.relay.config.RelayConfig.*;

import io.jetstream.kafka.relay.config.ConfigKeyBuilder.ConfigGroup;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * Declarations of every relay configuration key, one group per method.
 *
 * <p>Fixed keys live in {@link #relay()}. Keys named after a stream, destination or route are
 * declared by small per-member definitions ({@link #stream}, {@link #destination}, {@link #route}),
 * built with the member's real name so that validation messages name the key exactly as the user
 * wrote it ({@code streams.demo.token}), and built with placeholders ({@code <id>}) for the docs.
 */
final class RelayConfigDef {

    static final String GROUP_RELAY = "Relay";
    static final String GROUP_LISTENER = "Data listener";
    static final String GROUP_ADMIN = "Admin listener";
    static final String GROUP_TLS = "TLS";
    static final String GROUP_STREAMS = "Streams";
    static final String GROUP_ROUTING = "Destinations and routes";
    static final String GROUP_BUFFERS = "Buffers";
    static final String GROUP_TIMEOUTS = "Timeouts";
    static final String GROUP_HANDSHAKE = "Before authentication";
    static final String GROUP_CONFIG_PROVIDERS = "Config providers";
    static final String GROUP_METRICS = "Metrics";

    static final long KIB = 1024L;
    static final long MIB = 1024L * KIB;

    private static final ConfigDef RELAY = buildRelay();
    private static final ConfigDef CONFIG_PROVIDERS_DEF = buildConfigProviders();

    private RelayConfigDef() {
    }

    /** The fixed keys. Shared and never mutated after class initialisation. */
    static ConfigDef relay() {
        return RELAY;
    }

    private static ConfigDef buildRelay() {
        ConfigDef def = new ConfigDef();
        new ConfigGroup(def, GROUP_RELAY)
                .add(key(RELAY_ID, Type.STRING).validator(IdentifierValidator.single())
                        .importance(Importance.HIGH).displayName("Relay id")
                        .doc("Name of this relay, unique among the relays of a deployment. It appears in"
                                + " batch paths, logs and the jetstream_relay_info metric."))
                .add(key(IO_THREADS, Type.INT).defaultValue(0).validator(Range.between(0, 1024))
                        .importance(Importance.LOW).displayName("I/O threads")
                        .doc("Number of Netty event-loop threads serving connections. 0 uses Netty's"
                                + " default of twice the number of available processors."));
        new ConfigGroup(def, GROUP_LISTENER)
                .add(key(LISTENER_HOST, Type.STRING).defaultValue("0.0.0.0").validator(HostValidator.INSTANCE)
                        .importance(Importance.HIGH).displayName("Data listener host")
                        .doc("Address the data listener binds to: connector tasks and other relays connect"
                                + " here. 0.0.0.0 listens on every interface."))
                .add(key(LISTENER_PORT, Type.INT).defaultValue(7070).validator(PortValidator.INSTANCE)
                        .importance(Importance.HIGH).displayName("Data listener port")
                        .doc("TCP port of the data listener."));
        new ConfigGroup(def, GROUP_ADMIN)
                .add(key(ADMIN_HOST, Type.STRING).defaultValue("127.0.0.1").validator(HostValidator.INSTANCE)
                        .importance(Importance.MEDIUM).displayName("Admin listener host")
                        .doc("Address the plain-HTTP admin listener (GET /health, GET /metrics) binds to. It has"
                                + " no authentication, so it listens on loopback unless told otherwise: set the"
                                + " address of a management network (or 0.0.0.0 behind a firewall, as a container"
                                + " must for its health check and Prometheus to reach it)."))
                .add(key(ADMIN_PORT, Type.INT).defaultValue(7071).validator(PortValidator.INSTANCE)
                        .importance(Importance.MEDIUM).displayName("Admin listener port")
                        .doc("TCP port of the admin listener; must differ from the data port."));
        defineTls(def);
        new ConfigGroup(def, GROUP_STREAMS)
                .add(key(STREAMS, Type.LIST).defaultValue("").validator(IdentifierValidator.list())
                        .importance(Importance.HIGH).displayName("Accepted streams")
                        .doc("Ids of the streams this relay accepts. Each needs streams.<id>.token. In YAML"
                                + " the list may be left out: the ids under a nested streams: map are used."));
        new ConfigGroup(def, GROUP_ROUTING)
                .add(key(DESTINATIONS, Type.LIST).defaultValue("").validator(IdentifierValidator.list())
                        .importance(Importance.HIGH).displayName("Destinations")
                        .doc("Destination sites this relay routes batches to when it is their ingress. Each"
                                + " needs destinations.<destination>.routes. In YAML the list may be left out:"
                                + " the names under a nested destinations: map are used."));
        new ConfigGroup(def, GROUP_ROUTING)
                .add(key(RelayConfig.ROUTING_POLICY, Type.STRING).defaultValue("adaptive")
                        .validator(ConfigDef.ValidString.in("adaptive", "round-robin"))
                        .importance(Importance.MEDIUM).displayName("Routing policy")
                        .doc("How the ingress splits batches over a destination's routes. 'adaptive' (the"
                                + " default): core's route scheduler (docs/model.md section 4): cheaper routes first,"
                                + " costlier ones only when the cheaper cannot carry the load or meet"
                                + " routing.latency.target.ms, within routing.spend.cap.per.hour; within a price tier"
                                + " it joins the shortest queue of bytes on the route (timed by the egress relay's"
                                + " receipts), so a saturating load splits by capacity; failed routes are drained"
                                + " within seconds and probed back. 'round-robin': in turn, skipping routes that just"
                                + " failed; ignores prices, capacities and the spend cap (equal shares for equal"
                                + " routes)."))
                .add(key(RelayConfig.ROUTING_SPEND_CAP_PER_HOUR, Type.DOUBLE).defaultValue(0.0)
                        .validator(Range.atLeast(0.0))
                        .importance(Importance.MEDIUM).displayName("Spend cap per hour")
                        .doc("Most money the adaptive policy may spend on route traffic and relays per hour, in"
                                + " the currency of the routes' prices; 0 means no cap. When a batch would exceed it,"
                                + " only routes that cost nothing more remain."))
                .add(key(RelayConfig.ROUTING_LATENCY_TARGET_MS, Type.LONG).defaultValue(0L)
                        .validator(Range.between(0, 600_000))
                        .importance(Importance.LOW).displayName("Latency target (ms)")
                        .doc("With the adaptive policy, a costlier route is also used when the cheaper ones would"
                                + " complete a batch later than this (at their own measured pace and round trip):"
                                + " the operator's way to buy latency with money. 0: no target, money first: a"
                                + " cheaper route may hold up to about a second of queue to bridge bursts before"
                                + " a costlier one takes its overflow (docs/model.md section 4)."))
                .add(key(RelayConfig.ROUTING_PROBE_SHARE, Type.DOUBLE).defaultValue(0.05)
                        .validator(Range.between(0.0, 0.5))
                        .importance(Importance.LOW).displayName("Probing share")
                        .doc("With the adaptive policy, the least share of batches each healthy route of the"
                                + " cheapest price tier gets (and at least one batch a second), so its round-trip and"
                                + " capacity estimates stay fresh and a failure shows; 0 turns probing off."))
                .add(key(RelayConfig.ROUTING_COSTLY_PROBE_SHARE, Type.DOUBLE).defaultValue(0.0)
                        .validator(Range.between(0.0, 0.5))
                        .importance(Importance.LOW).displayName("Probing share of costlier routes")
                        .doc("As routing.probe.share, for routes costlier than the cheapest tier. Each probe is"
                                + " paid and counts against routing.spend.cap.per.hour, so 0 (no probing) by default."));
        new ConfigGroup(def, GROUP_ROUTING)
                .add(key(NEXT_HOPS_ALLOWED, Type.LIST).defaultValue("").validator(HopListValidator.ADDRESSES)
                        .importance(Importance.HIGH).displayName("Allowed next hops")
                        .doc("Data addresses (host:port) of relays this relay may forward to when a batch's path"
                                + " names them, besides the hops of its own routes. An intermediate relay (one with"
                                + " no route for a destination) must list the next relay of every route it is on;"
                                + " a path naming any other address is refused with NACK NEXT_HOP_UNREACHABLE,"
                                + " counted as next_hop_not_allowed, and no connection is opened to it. Written as"
                                + " in the upstream relays' routes (host names compare case-insensitively; no name"
                                + " resolution)."));
        defineBuffers(def);
        defineTimeouts(def);
        defineHandshake(def);
        new ConfigGroup(def, GROUP_ADMIN)
                .add(key(HEALTH_DIRECT_MEMORY_DEGRADED_RATIO, Type.DOUBLE).defaultValue(0.9)
                        .validator(Range.between(0.05, 1.0))
                        .importance(Importance.LOW).displayName("Degraded above direct memory share")
                        .doc("GET /health reports DEGRADED (still HTTP 200: the relay serves) while the direct"
                                + " memory in use (Netty's count, or the JVM's direct buffer pool) is above this"
                                + " share of the maximum (-XX:MaxDirectMemorySize, by default the heap maximum)."))
                .add(key(ADMIN_CONNECTIONS_MAX, Type.INT).defaultValue(32).validator(Range.between(1, 10_000))
                        .importance(Importance.LOW).displayName("Admin connections")
                        .doc("Most admin connections open at once (Prometheus, health probes and operators"
                                + " need a few). A connection accepted beyond it is closed at once, before any"
                                + " read, counted as admin_connection_limit."))
                .add(key(ADMIN_REQUEST_TIMEOUT_MS, Type.LONG).defaultValue(10_000L)
                        .validator(Range.between(100, 600_000))
                        .importance(Importance.LOW).displayName("Admin request timeout (ms)")
                        .doc("Time an admin connection has to deliver a whole request, counted from its accept"
                                + " and then from the end of its previous request: a total deadline that bytes"
                                + " trickled in do not extend. A connection with a request unfinished then (or"
                                + " none begun since its accept) is closed and counted as admin_request_timeout;"
                                + " a kept-alive connection that is merely idle is closed uncounted."));
        new ConfigGroup(def, GROUP_METRICS)
                .add(key(METRICS_PEERS_MAX, Type.INT).defaultValue(512).validator(Range.between(1, 100_000))
                        .importance(Importance.LOW).displayName("Peers with their own series")
                        .doc("Most peers (by the id they announce at handshake) with jetstream_relay_peer_*"
                                + " series of their own. A new peer beyond it takes the place of the series"
                                + " released longest ago, or, when every one belongs to a connected peer, is counted"
                                + " under peer=\"(other)\" and in jetstream_relay_peers_folded_total. Keeps a peer"
                                + " that reconnects under ever new ids from growing the exposition without bound."))
                .add(key(METRICS_PEER_RETENTION_MS, Type.LONG).defaultValue(300_000L)
                        .validator(Range.between(0, 86_400_000))
                        .importance(Importance.LOW).displayName("Peer series retention (ms)")
                        .doc("How long the series of a peer whose last connection closed are still exported (a"
                                + " peer that reconnects within it continues its counters); then they are removed."
                                + " A connected peer's series are never removed. 0: removed as the last connection"
                                + " closes."));
        return def;
    }

    private static void defineTls(ConfigDef def) {
        new ConfigGroup(def, GROUP_TLS)
                .add(key(TLS_ENABLED, Type.BOOLEAN).defaultValue(true)
                        .importance(Importance.HIGH).displayName("TLS enabled")
                        .doc("Encrypt the data listener and outgoing relay connections. On by default:"
                                + " plaintext needs an explicit tls.enabled: false. The admin listener is"
                                + " always plain HTTP."))
                .add(key(TLS_CERT_FILE, Type.STRING).defaultValue("").validator(ReadableFileValidator.INSTANCE)
                        .importance(Importance.HIGH).displayName("Certificate chain (PEM)")
                        .doc("PEM file with this relay's certificate chain, leaf first. Required when TLS"
                                + " is enabled; also presented to next-hop relays as the client certificate."))
                .add(key(TLS_KEY_FILE, Type.STRING).defaultValue("").validator(ReadableFileValidator.INSTANCE)
                        .importance(Importance.HIGH).displayName("Private key (PEM)")
                        .doc("PEM file with the PKCS#8 private key of the certificate (BEGIN PRIVATE KEY, or"
                                + " BEGIN ENCRYPTED PRIVATE KEY with tls.key.password). Required when TLS is enabled."))
                .add(key(TLS_KEY_PASSWORD, Type.PASSWORD).defaultValue(null)
                        .importance(Importance.MEDIUM).displayName("Private key password")
                        .doc("Password of an encrypted tls.key.file; leave unset for an unencrypted key."))
                .add(key(TLS_CA_FILE, Type.STRING).defaultValue("").validator(ReadableFileValidator.INSTANCE)
                        .importance(Importance.HIGH).displayName("Trusted CAs (PEM)")
                        .doc("PEM file with the CA certificates trusted for peers: clients of the data"
                                + " listener and next-hop relays. Required when tls.client.auth is not none;"
                                + " when empty, outgoing connections trust the JDK's default CAs."))
                .add(key(TLS_CLIENT_AUTH, Type.STRING).defaultValue("required")
                        .validator(EnumValidator.of(TlsClientAuth.class))
                        .importance(Importance.MEDIUM).displayName("Client certificates")
                        .doc("Whether peers connecting to the data listener must present a certificate"
                                + " signed by tls.ca.file: none, optional or required (mutual TLS)."))
                .add(key(TLS_RELOAD_INTERVAL_MS, Type.LONG).defaultValue(10_000L)
                        .validator(Range.between(0, 86_400_000))
                        .importance(Importance.LOW).displayName("TLS files check interval (ms)")
                        .doc("How often, at most, the relay looks at tls.cert.file, tls.key.file and tls.ca.file"
                                + " for a change (on a timer and when a connection opens). Changed files are"
                                + " taken without a restart: new connections, accepted and outgoing, use the new"
                                + " certificate, key and CAs; open connections keep their session. Files that"
                                + " cannot be used (half-written, unparsable, a key that does not belong to the"
                                + " certificate) are not taken: the relay keeps what it has, logs a WARN naming"
                                + " the file and counts jetstream_relay_tls_reload_failures_total. 0: at every new"
                                + " connection."));
    }

    private static void defineBuffers(ConfigDef def) {
        new ConfigGroup(def, GROUP_BUFFERS)
                .add(key(BUFFER_MAX_BYTES_PER_CONNECTION, Type.LONG).defaultValue(16 * MIB)
                        .validator(Range.between(64 * KIB, 64 * 1024 * MIB))
                        .importance(Importance.MEDIUM).displayName("Buffer per connection")
                        .doc("Most bytes buffered for one connection before the relay stops reading from it"
                                + " (a batch counts until it is written downstream, its 512 bytes of"
                                + " bookkeeping until it is answered); also the high write-buffer water mark,"
                                + " capped at 2 MiB (the low mark is half). Must be at least frame.max.bytes"
                                + " so that any valid frame fits."))
                .add(key(BUFFER_MAX_BYTES, Type.LONG).defaultValue(256 * MIB)
                        .validator(Range.between(MIB, 1024 * 1024 * MIB))
                        .importance(Importance.HIGH).displayName("Buffer per relay")
                        .doc("Most bytes of batches buffered by the whole relay (received, not yet"
                                + " acknowledged downstream). When reached, connections stop being read:"
                                + " a slow destination slows the source instead of exhausting memory."))
                .add(key(FRAME_MAX_BYTES, Type.INT).defaultValue((int) (16 * MIB))
                        .validator(Range.between((int) KIB, 1024 * (int) MIB))
                        .importance(Importance.MEDIUM).displayName("Largest frame")
                        .doc("Largest frame accepted on a data connection; a longer length prefix closes"
                                + " the connection with a counted error."));
    }

    private static void defineTimeouts(ConfigDef def) {
        new ConfigGroup(def, GROUP_TIMEOUTS)
                .add(key(HEARTBEAT_INTERVAL_MS, Type.LONG).defaultValue(1_000L).validator(Range.between(100, 600_000))
                        .importance(Importance.LOW).displayName("Heartbeat interval (ms)")
                        .doc("Every connection gets a PING this often, busy or not: it measures the round-trip"
                                + " time and tells peers the relay is alive even while the relay holds back reading"
                                + " from them. Peers take a relay silent for three of their own heartbeat intervals"
                                + " for dead, so keep this at or below the connectors' relay.heartbeat.interval.ms"
                                + " (default 1000). Must be below idle.timeout.ms."))
                .add(key(IDLE_TIMEOUT_MS, Type.LONG).defaultValue(30_000L).validator(Range.between(1_000, 3_600_000))
                        .importance(Importance.MEDIUM).displayName("Idle timeout (ms)")
                        .doc("A connection on which nothing was read for this long is closed as dead."))
                .add(key(SUBSCRIBE_EPOCH_MAX_AHEAD_MS, Type.LONG).defaultValue(10_000L)
                        .validator(Range.between(0, 3_600_000))
                        .importance(Importance.LOW).displayName("Subscription epoch ahead (ms)")
                        .doc("A SUBSCRIBE whose epoch (the start time of the subscribing task instance, epoch"
                                + " milliseconds on its worker's clock) is more than this ahead of this relay's"
                                + " clock is refused with ERROR(NOT_AUTHORIZED), counted as epoch_ahead: an epoch"
                                + " from the future would hold the share against every restarted task. Allows for"
                                + " clock skew between the destination site's Connect workers and the relay; a"
                                + " holder of the subscriber token can keep a share from a restarted task for at"
                                + " most this long."))
                .add(key(ACK_TIMEOUT_MS, Type.LONG).defaultValue(30_000L).validator(Range.between(100, 3_600_000))
                        .importance(Importance.MEDIUM).displayName("Ack timeout (ms)")
                        .doc("A batch forwarded downstream and not acknowledged within this time is failed"
                                + " back upstream, so that the sender re-sends it on another route."))
                .add(key(CONNECT_TIMEOUT_MS, Type.LONG).defaultValue(10_000L).validator(Range.between(100, 600_000))
                        .importance(Importance.LOW).displayName("Connect timeout (ms)")
                        .doc("Time allowed to open a connection (TCP and TLS handshake) to a next-hop relay."))
                .add(key(RECONNECT_BACKOFF_MS, Type.LONG).defaultValue(100L).validator(Range.between(1, 600_000))
                        .importance(Importance.LOW).displayName("Reconnect backoff (ms)")
                        .doc("First wait before reconnecting to a next-hop relay; doubles (with jitter) on"
                                + " each consecutive failure."))
                .add(key(RECONNECT_BACKOFF_MAX_MS, Type.LONG).defaultValue(10_000L)
                        .validator(Range.between(1, 3_600_000))
                        .importance(Importance.LOW).displayName("Reconnect backoff max (ms)")
                        .doc("Longest wait between reconnect attempts; at least reconnect.backoff.ms."))
                .add(key(SHUTDOWN_DRAIN_TIMEOUT_MS, Type.LONG).defaultValue(20_000L)
                        .validator(Range.between(0, 3_600_000))
                        .importance(Importance.MEDIUM).displayName("Shutdown drain timeout (ms)")
                        .doc("On SIGTERM the relay stops accepting connections, reports DRAINING on /health"
                                + " and waits up to this long for in-flight batches to be acknowledged before"
                                + " closing connections. Keep it below the orchestrator's kill grace period."));
    }

    private static void defineHandshake(ConfigDef def) {
        new ConfigGroup(def, GROUP_HANDSHAKE)
                .add(key(HANDSHAKE_TIMEOUT_MS, Type.LONG).defaultValue(10_000L).validator(Range.between(100, 600_000))
                        .importance(Importance.MEDIUM).displayName("Handshake timeout (ms)")
                        .doc("Time an accepted data connection has to complete its handshake (TLS, then an"
                                + " accepted HELLO). A connection still in its handshake then is closed and"
                                + " counted as handshake_timeout."))
                .add(key(HANDSHAKE_FRAME_MAX_BYTES, Type.INT).defaultValue((int) (4 * KIB))
                        .validator(Range.between((int) KIB, (int) MIB))
                        .importance(Importance.LOW).displayName("Largest frame before authentication")
                        .doc("Largest frame accepted until the handshake has succeeded (a HELLO is a few hundred"
                                + " bytes); frame.max.bytes applies only after it. A longer length prefix from an"
                                + " unauthenticated peer closes the connection, counted as frame_too_large. Capped at"
                                + " frame.max.bytes."))
                .add(key(HANDSHAKE_PENDING_MAX, Type.INT).defaultValue(256).validator(Range.between(1, 1_000_000))
                        .importance(Importance.MEDIUM).displayName("Connections in handshake")
                        .doc("Most data connections in their handshake at once. A connection accepted beyond"
                                + " it is closed at once, before TLS or any read, counted as connection_limit."
                                + " Authenticated connections do not count."))
                .add(key(HANDSHAKE_PENDING_PER_ADDRESS_MAX, Type.INT).defaultValue(32)
                        .validator(Range.between(1, 1_000_000))
                        .importance(Importance.MEDIUM).displayName("Connections in handshake per address")
                        .doc("Most data connections in their handshake at once from one IP address; more are"
                                + " closed at once, counted as connection_limit. Connector tasks and relays finish"
                                + " their handshake in milliseconds, so only a burst of reconnections from one host"
                                + " (they retry with backoff) or a stranger comes near it."));
    }

    /** Keys of one stream: {@code streams.<id>.*}. */
    static ConfigDef stream(String id) {
        ConfigDef def = new ConfigDef();
        new ConfigGroup(def, GROUP_STREAMS)
                .add(key(streamTokenKey(id), Type.PASSWORD).validator(SecretTokenValidator.INSTANCE)
                        .importance(Importance.HIGH).displayName("Stream token")
                        .doc("Secret that connector tasks and relays must present at handshake to send or"
                                + " subscribe to this stream. Generate one per stream, e.g. openssl rand -hex 24."
                                + " It grants every role that has no token of its own (below)."));
        roleToken(def, id, "sender", "source-site connector tasks (stream.token of the source-site connector): they"
                + " send batches");
        roleToken(def, id, "subscriber", "destination-site connector tasks (stream.token of the destination-site"
                + " connector): they subscribe to shares and acknowledge batches");
        roleToken(def, id, "relay", "relays forwarding the stream to this one; this relay also presents it to its"
                + " own next hops");
        roleIdentities(def, id, "sender", "a source-site connector task");
        roleIdentities(def, id, "subscriber", "a destination-site connector task (and so take over a share)");
        roleIdentities(def, id, "relay", "a relay forwarding the stream to this one");
        return def;
    }

    private static void roleIdentities(ConfigDef def, String id, String role, String who) {
        new ConfigGroup(def, GROUP_STREAMS)
                .add(key(streamRoleIdentitiesKey(id, role), Type.LIST).defaultValue("")
                        .validator(PeerIdentityListValidator.INSTANCE)
                        .importance(Importance.MEDIUM).displayName("Stream " + role + " certificate identities")
                        .doc("Certificate identities allowed to act as " + who + " on this stream, besides"
                                + " presenting the role's token: cn:<subject common name>, dns:<name>, uri:<uri>"
                                + " (e.g. a SPIFFE id) or ip:<address>, matched against the leaf certificate the"
                                + " peer proved in the TLS handshake. A peer whose certificate names none of them"
                                + " is refused (authentication_failed), so a stolen token is useless without the"
                                + " matching key, and one workload's certificate cannot take another's role."
                                + " Needs tls.client.auth: required. Empty (the default): any certificate the CA"
                                + " verified may take the role."));
    }

    /** {@code streams.<id>.<role>.identities}. */
    static String streamRoleIdentitiesKey(String id, String role) {
        return STREAMS + "." + id + "." + role + ".identities";
    }

    private static void roleToken(ConfigDef def, String id, String role, String who) {
        new ConfigGroup(def, GROUP_STREAMS)
                .add(key(streamRoleTokenKey(id, role), Type.PASSWORD).defaultValue(null)
                        .validator(OptionalSecretTokenValidator.INSTANCE)
                        .importance(Importance.MEDIUM).displayName("Stream " + role + " token")
                        .doc("Token of its own for " + who + ". Once set, only it grants that role: the shared"
                                + " streams.<id>.token no longer does, so a leaked token of one role cannot act as"
                                + " another (a source task's token cannot take over a destination task's share)."
                                + " Must differ from the shared token and from the other roles' tokens."));
    }

    /**
     * The provider list, {@code config.providers}: checked on its own, before the other keys, whose
     * values may hold the providers' variables.
     */
    static ConfigDef configProviders() {
        return CONFIG_PROVIDERS_DEF;
    }

    private static ConfigDef buildConfigProviders() {
        ConfigDef def = new ConfigDef();
        new ConfigGroup(def, GROUP_CONFIG_PROVIDERS)
                .add(key(CONFIG_PROVIDERS, Type.LIST).defaultValue("").validator(IdentifierValidator.list())
                        .importance(Importance.LOW).displayName("Config provider names")
                        .doc("Names of Kafka config providers whose variables other values may use, as in Kafka"
                                + " clients and Connect workers: ${<name>:[path:]key} is replaced by what the"
                                + " provider returns before the configuration is validated, e.g. a token from the"
                                + " environment with ${env:JETSTREAM_STREAM_TOKEN} or from a mounted Kubernetes"
                                + " Secret with ${directory:/etc/jetstream/secrets:stream-token}. Each needs"
                                + " config.providers.<name>.class; config.providers.<name>.param.<param> is"
                                + " passed to the provider's configure(). A variable that does not resolve is an"
                                + " error. Written dotted (config.providers is a prefix of its members' keys)."));
        return def;
    }

    /** Keys of one config provider: {@code config.providers.<name>.class} (its params are free-form). */
    static ConfigDef configProvider(String name) {
        ConfigDef def = new ConfigDef();
        new ConfigGroup(def, GROUP_CONFIG_PROVIDERS)
                .add(key(configProviderClassKey(name), Type.STRING)
                        .validator(ConfigProviderClassValidator.INSTANCE)
                        .importance(Importance.LOW).displayName("Config provider class")
                        .doc("Class of the provider: org.apache.kafka.common.config.provider.EnvVarConfigProvider"
                                + " (${env:VAR}), FileConfigProvider (${file:/path/file.properties:key}),"
                                + " DirectoryConfigProvider (${directory:/path:file}: the file's content, as a"
                                + " mounted Kubernetes Secret holds one value per file), or any ConfigProvider on"
                                + " the class path. The org.apache.kafka.automatic.config.providers system property"
                                + " restricts the allowed classes as it does for Kafka."));
        return def;
    }

    static String configProviderClassKey(String name) {
        return CONFIG_PROVIDERS + "." + name + "." + CONFIG_PROVIDER_CLASS;
    }

    static String configProviderParamPrefix(String name) {
        return CONFIG_PROVIDERS + "." + name + "." + CONFIG_PROVIDER_PARAM + ".";
    }

    /** {@code streams.<id>.<role>.token}. */
    static String streamRoleTokenKey(String id, String role) {
        return STREAMS + "." + id + "." + role + "." + STREAM_TOKEN;
    }

    /** Keys of one destination: {@code destinations.<destination>.*}. */
    static ConfigDef destination(String destination) {
        ConfigDef def = new ConfigDef();
        new ConfigGroup(def, GROUP_ROUTING)
                .add(key(routesKey(destination), Type.LIST).defaultValue("").validator(IdentifierValidator.list())
                        .importance(Importance.HIGH).displayName("Routes")
                        .doc("Names of the routes to the destination; at least one. In YAML the list may be"
                                + " left out: the names under a nested routes: map are used."));
        return def;
    }

    /** Keys of one route: {@code destinations.<destination>.routes.<route>.*}. */
    static ConfigDef route(String destination, String route) {
        ConfigDef def = new ConfigDef();
        new ConfigGroup(def, GROUP_ROUTING)
                .add(key(routeKey(destination, route, ROUTE_HOPS), Type.LIST).validator(HopListValidator.ROUTE_HOPS)
                        .importance(Importance.HIGH).displayName("Route hops")
                        .doc("Data addresses (host:port) of the relays the batches pass through after this one,"
                                + " in order; the last one is the destination's egress relay. [] or local: this"
                                + " relay is the egress (destination-site tasks subscribe to it)."))
                .add(key(routeKey(destination, route, ROUTE_PRICE_PER_GB), Type.DOUBLE).defaultValue(0.0)
                        .validator(Range.atLeast(0.0))
                        .importance(Importance.MEDIUM).displayName("Price per GB")
                        .doc("Cost of sending one GB over this route: the egress charges of every site"
                                + " boundary it crosses, in any currency used consistently."))
                .add(key(routeKey(destination, route, ROUTE_RELAY_PRICE_PER_HOUR), Type.DOUBLE).defaultValue(0.0)
                        .validator(Range.atLeast(0.0))
                        .importance(Importance.LOW).displayName("Relay price per hour")
                        .doc("Hourly cost of the relays used only by this route; lets the scheduler avoid"
                                + " keeping them busy when cheaper routes suffice."));
        return def;
    }

    static String streamTokenKey(String id) {
        return STREAMS + "." + id + "." + STREAM_TOKEN;
    }

    static String routesKey(String destination) {
        return DESTINATIONS + "." + destination + "." + ROUTES;
    }

    static String routeKey(String destination, String route, String suffix) {
        return routesKey(destination) + "." + route + "." + suffix;
    }
}
