package io.jetstream.kafka.relay.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RelayConfigTest {

    static final String TOKEN = "0123456789abcdef-token";

    /** The smallest valid configuration: an id and plaintext chosen explicitly. */
    static Map<String, Object> minimal() {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("relay.id", "relay-a1");
        props.put("tls.enabled", false);
        return props;
    }

    static List<String> problems(Map<String, ?> props) {
        RelayConfigException e = catchThrowableOfType(RelayConfigException.class, () -> new RelayConfig(props));
        assertThat(e).as("configuration should be rejected").isNotNull();
        return e.problems().stream().map(ConfigProblem::message).toList();
    }

    @Test
    void everyKeyIsFullyDeclared() {
        List<ConfigDef> defs = List.of(RelayConfig.configDef(), RelayConfigDef.stream("s"),
                RelayConfigDef.destination("d"), RelayConfigDef.route("d", "r"), RelayConfigDef.configProviders(),
                RelayConfigDef.configProvider("p"));
        for (ConfigDef def : defs) {
            for (ConfigDef.ConfigKey key : def.configKeys().values()) {
                assertThat(key.documentation).as("doc of %s", key.name).isNotBlank();
                assertThat(key.displayName).as("display name of %s", key.name).isNotBlank().isNotEqualTo(key.group);
                assertThat(key.group).as("group of %s", key.name).isNotBlank();
                assertThat(key.importance).as("importance of %s", key.name).isNotNull();
                if (!key.type.equals(ConfigDef.Type.BOOLEAN) && !key.type.equals(ConfigDef.Type.PASSWORD)) {
                    assertThat(key.validator).as("validator of %s", key.name).isNotNull();
                }
            }
        }
    }

    @Test
    void minimalConfigurationUsesDocumentedDefaults() {
        RelayConfig config = new RelayConfig(minimal());

        assertThat(config.relayId()).isEqualTo("relay-a1");
        assertThat(config.listenerAddress()).isEqualTo(new InetSocketAddress("0.0.0.0", 7070));
        assertThat(config.adminAddress().getPort()).isEqualTo(7071);
        assertThat(config.tlsEnabled()).isFalse();
        assertThat(config.tlsClientAuth()).isEqualTo(TlsClientAuth.REQUIRED);
        assertThat(config.bufferMaxBytesPerConnection()).isEqualTo(16L << 20);
        assertThat(config.bufferMaxBytes()).isEqualTo(256L << 20);
        assertThat(config.frameMaxBytes()).isEqualTo(16 << 20);
        assertThat(config.heartbeatInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(config.idleTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.reconnectBackoff()).isEqualTo(Duration.ofMillis(100));
        assertThat(config.streams()).isEmpty();
        assertThat(config.destinations()).isEmpty();
    }

    @Test
    void demoFileIsValidAndPlaintextByExplicitChoice() {
        RelayConfig config = RelayConfig.load(Path.of("../config/relay-demo.yaml"));

        assertThat(config.relayId()).isEqualTo("demo-relay-b1");
        assertThat(config.listenerAddress()).isEqualTo(new InetSocketAddress("127.0.0.1", 7070));
        assertThat(config.adminAddress()).isEqualTo(new InetSocketAddress("127.0.0.1", 7071));
        assertThat(config.tlsEnabled()).isFalse();
        assertThat(config.originals()).containsEntry("tls.enabled", "false");
        assertThat(config.stream("demo")).hasValueSatisfying(s -> assertThat(s.token().value()).hasSizeGreaterThan(15));
        assertThat(config.routes("B")).singleElement().satisfies(route -> {
            assertThat(route.name()).isEqualTo("direct");
            assertThat(route.local()).isTrue();
            assertThat(route.nextHop()).isEmpty();
        });
    }

    @Test
    void badPortNamesTheKeyAndTheRule() {
        Map<String, Object> props = minimal();
        props.put("listener.port", -1);

        assertThat(problems(props)).containsExactly(
                "Invalid value -1 for configuration listener.port: must be between 0 and 65535 (0 picks a free port)");
    }

    @Test
    void nonNumericValueNamesTheKey() {
        Map<String, Object> props = minimal();
        props.put("admin.port", "seven");

        assertThat(problems(props)).singleElement().asString()
                .startsWith("Invalid value seven for configuration admin.port");
    }

    @Test
    void unknownKeyIsRejectedWithTheClosestKnownKey() {
        Map<String, Object> props = minimal();
        props.put("listner.port", 7070);

        assertThat(problems(props)).containsExactly(
                "Unknown configuration key listner.port (did you mean listener.port?)");
    }

    @Test
    void tlsIsOnByDefaultAndThenNeedsItsFiles() {
        Map<String, Object> props = minimal();
        props.remove("tls.enabled");

        assertThat(problems(props)).containsExactly(
                "Missing configuration tls.cert.file: required when tls.enabled is true (the default);"
                        + " for plaintext set tls.enabled: false explicitly",
                "Missing configuration tls.key.file: required when tls.enabled is true (the default);"
                        + " for plaintext set tls.enabled: false explicitly",
                "Missing configuration tls.ca.file: required to verify client certificates when"
                        + " tls.client.auth is required; set tls.client.auth: none to accept peers without one");
    }

    @Test
    void tlsFilesMustExist(@TempDir Path dir) throws Exception {
        Path cert = Files.writeString(dir.resolve("cert.pem"), "not checked here");
        Map<String, Object> props = minimal();
        props.put("tls.enabled", true);
        props.put("tls.client.auth", "none");
        props.put("tls.cert.file", cert.toString());
        props.put("tls.key.file", dir.resolve("missing.pem").toString());

        assertThat(problems(props)).containsExactly("Invalid value " + dir.resolve("missing.pem")
                + " for configuration tls.key.file: file does not exist or is not a regular file");
    }

    @Test
    void clientAuthIsAnEnumMatchedCaseInsensitively() {
        Map<String, Object> props = minimal();
        props.put("tls.client.auth", "OPTIONAL");
        assertThat(new RelayConfig(props).tlsClientAuth()).isEqualTo(TlsClientAuth.OPTIONAL);

        props.put("tls.client.auth", "sometimes");
        assertThat(problems(props)).containsExactly("Invalid value sometimes for configuration tls.client.auth:"
                + " must be one of [none, optional, required]");
    }

    @Test
    void everyListedStreamNeedsAToken() {
        Map<String, Object> props = minimal();
        props.put("streams", List.of("demo"));

        assertThat(problems(props)).containsExactly(
                "Missing required configuration \"streams.demo.token\" which has no default value.");
    }

    @Test
    void shortTokenIsRejectedWithoutPrintingIt() {
        Map<String, Object> props = minimal();
        props.put("streams.demo.token", "short-secret");

        assertThat(problems(props)).containsExactly(
                "Invalid value [hidden] for configuration streams.demo.token: must be at least 16 characters long");
    }

    @Test
    void rolesBoundToCertificatesNeedMutualTlsAndWellFormedIdentities(@TempDir Path dir) throws Exception {
        Map<String, Object> props = minimal();
        props.put("streams.demo.token", TOKEN);
        props.put("streams.demo.subscriber.identities", List.of("cn:sink-b", "uri:spiffe://example.com/sink"));
        assertThat(problems(props)).containsExactly("Invalid value cn:sink-b,uri:spiffe://example.com/sink for"
                + " configuration streams.demo.subscriber.identities: needs tls.enabled: true and tls.client.auth:"
                + " required, so that every peer proves a certificate (now tls.enabled is false)");

        Path file = Files.writeString(dir.resolve("pem"), "not read by the validation");
        props.put("tls.enabled", true);
        props.put("tls.cert.file", file.toString());
        props.put("tls.key.file", file.toString());
        props.put("tls.ca.file", file.toString());
        props.put("tls.client.auth", "optional");
        assertThat(problems(props)).singleElement().asString()
                .contains("streams.demo.subscriber.identities", "(now tls.client.auth is optional)");

        props.put("tls.client.auth", "required");
        StreamSpec stream = new RelayConfig(props).stream("demo").orElseThrow();
        assertThat(stream.roleIdentities()).containsOnlyKeys(io.jetstream.kafka.core.protocol.PeerRole.SUBSCRIBER);
        assertThat(stream.roleIdentities().values().iterator().next()).extracting(Object::toString)
                .containsExactly("cn:sink-b", "uri:spiffe://example.com/sink");

        props.put("streams.demo.sender.identities", List.of("CN=source-a"));
        assertThat(problems(props)).singleElement().asString().startsWith(
                "Invalid value [CN=source-a] for configuration streams.demo.sender.identities: 'CN=source-a' must"
                        + " be one of cn:<common name>");
    }

    @Test
    void streamListIsImpliedByItsKeysButAnExplicitListWins() {
        Map<String, Object> props = minimal();
        props.put("streams.demo.token", TOKEN);
        assertThat(new RelayConfig(props).stream("demo")).hasValueSatisfying(s -> assertThat(s.tokenMatches(io.jetstream.kafka.core.protocol.PeerRole.SENDER, TOKEN)).isTrue());

        props.put("streams", "other");
        props.put("streams.other.token", TOKEN);
        assertThat(problems(props)).containsExactly(
                "Unknown configuration key streams.demo.token: stream 'demo' is not listed in streams");
    }

    @Test
    void misspelledMemberKeyGetsAHint() {
        Map<String, Object> props = minimal();
        props.put("streams", "demo");
        props.put("streams.demo.token", TOKEN);
        props.put("streams.demo.tokn", TOKEN);

        assertThat(problems(props)).containsExactly(
                "Unknown configuration key streams.demo.tokn (did you mean streams.demo.token?)");
    }

    @Test
    void streamIdsCannotContainDots() {
        Map<String, Object> props = minimal();
        props.put("streams", "a.b");

        assertThat(problems(props)).containsExactly("Invalid value [a.b] for configuration streams: 'a.b' must be"
                + " 1-64 characters from [A-Za-z0-9_-] (no dots: they separate key parts)");
    }

    @Test
    void routesParseIntoRouteSpecs() {
        Map<String, Object> props = minimal();
        props.put("destinations.site-b.routes.direct.hops", "b1.example:7070");
        props.put("destinations.site-b.routes.direct.price.per.gb", 0.02);
        props.put("destinations.site-b.routes.via-c.hops", List.of("c1.example:7070", "[::1]:7070"));
        props.put("destinations.site-b.routes.via-c.relay.price.per.hour", 0.5);
        props.put("destinations.site-c.routes.here.hops", "");

        RelayConfig config = new RelayConfig(props);

        assertThat(config.destinations()).containsExactly("site-b", "site-c");
        assertThat(config.routes("site-b")).containsExactly(
                new RouteSpec("site-b", "direct", List.of(new HopAddress("b1.example", 7070)), 0.02, 0.0),
                new RouteSpec("site-b", "via-c",
                        List.of(new HopAddress("c1.example", 7070), new HopAddress("::1", 7070)), 0.0, 0.5));
        assertThat(config.routes("site-b").get(1).nextHop()).contains(new HopAddress("c1.example", 7070));
        assertThat(config.routes("site-c")).singleElement().satisfies(r -> assertThat(r.local()).isTrue());
        assertThat(config.routes("nowhere")).isEmpty();
    }

    @Test
    void badHopNamesTheRouteKey() {
        Map<String, Object> props = minimal();
        props.put("destinations.site-b.routes.direct.hops", List.of("relay-b1"));

        assertThat(problems(props)).containsExactly("Invalid value [relay-b1] for configuration"
                + " destinations.site-b.routes.direct.hops: bad hop 'relay-b1' is not of the form host:port");
    }

    @Test
    void localMustStandAloneInAHopList() {
        Map<String, Object> props = minimal();
        props.put("destinations.site-b.routes.direct.hops", List.of("local", "b1:7070"));

        assertThat(problems(props)).singleElement().asString().endsWith("'local' must stand alone: it means"
                + " this relay is the egress");
    }

    @Test
    void routeNeedsHopsAndNonNegativePrices() {
        Map<String, Object> props = minimal();
        props.put("destinations.site-b.routes.direct.price.per.gb", -1);

        assertThat(problems(props)).containsExactly(
                "Missing required configuration \"destinations.site-b.routes.direct.hops\" which has no default value.",
                "Invalid value -1.0 for configuration destinations.site-b.routes.direct.price.per.gb:"
                        + " Value must be at least 0.0");
    }

    @Test
    void destinationNeedsARoute() {
        Map<String, Object> props = minimal();
        props.put("destinations", "site-b");

        assertThat(problems(props)).containsExactly("Missing configuration destinations.site-b.routes:"
                + " destination 'site-b' needs at least one route under destinations.site-b.routes");
    }

    @Test
    void crossFieldRulesNameTheKeyToChange() {
        Map<String, Object> props = minimal();
        props.put("heartbeat.interval.ms", 30_000);
        props.put("frame.max.bytes", 32 << 20);
        props.put("admin.port", 7070);

        assertThat(problems(props)).containsExactly(
                "Invalid value 30000 for configuration heartbeat.interval.ms: must be less than idle.timeout.ms"
                        + " (30000) so that a live peer is never taken for idle",
                "Invalid value 33554432 for configuration frame.max.bytes: must be at most"
                        + " buffer.max.bytes.per.connection (16777216): so that any valid frame can be buffered",
                "Invalid value 7070 for configuration admin.port: must differ from listener.port");
    }

    @Test
    void allProblemsAreReportedTogether() {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("listener.port", 70000);
        props.put("tls.enabled", false);
        props.put("idle.timeout", 5);

        RelayConfigException e = catchThrowableOfType(RelayConfigException.class, () -> new RelayConfig(props));

        assertThat(e.problems()).extracting(ConfigProblem::key)
                .containsExactly("relay.id", "listener.port", "idle.timeout");
        assertThat(e.getMessage()).startsWith("Invalid relay configuration (map) (3 problems):\n  - ");
    }

    @Test
    void missingFileIsReportedAsSuch() {
        assertThatThrownBy(() -> RelayConfig.load(Path.of("no/such/relay.yaml")))
                .isInstanceOf(RelayConfigException.class)
                .hasMessage("no/such/relay.yaml: file not found");
    }

    @Test
    void beforeAuthenticationLimitsHaveSafeDefaults() {
        RelayConfig config = new RelayConfig(minimal());

        assertThat(config.handshakeTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.handshakeFrameMaxBytes()).isEqualTo(4096);
        assertThat(config.handshakePendingMax()).isEqualTo(256);
        assertThat(config.handshakePendingPerAddressMax()).isEqualTo(32);
        assertThat(config.healthDirectMemoryDegradedRatio()).isEqualTo(0.9);
        assertThat(config.allowedNextHops()).isEmpty();
    }

    @Test
    void adminAndPeerSeriesLimitsHaveSafeDefaultsMatchingTheMetrics() {
        RelayConfig config = new RelayConfig(minimal());

        assertThat(config.adminConnectionsMax()).isEqualTo(32);
        assertThat(config.adminRequestTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.metricsPeersMax()).isEqualTo(RelayMetrics.DEFAULT_PEERS_MAX);
        assertThat(config.metricsPeerRetention()).isEqualTo(RelayMetrics.DEFAULT_PEER_RETENTION);
    }

    @Test
    void badAdminAndPeerSeriesLimitsNameTheirKey() {
        Map<String, Object> props = minimal();
        props.put("admin.connections.max", 0);
        props.put("admin.request.timeout.ms", 50);
        props.put("metrics.peers.max", 0);
        props.put("metrics.peer.retention.ms", -1);

        assertThat(problems(props)).anySatisfy(p -> assertThat(p).contains("admin.connections.max"))
                .anySatisfy(p -> assertThat(p).contains("admin.request.timeout.ms"))
                .anySatisfy(p -> assertThat(p).contains("metrics.peers.max"))
                .anySatisfy(p -> assertThat(p).contains("metrics.peer.retention.ms"));
    }

    @Test
    void theHandshakeFrameLimitNeverExceedsTheFrameLimit() {
        Map<String, Object> props = minimal();
        props.put("frame.max.bytes", 2048);
        props.put("buffer.max.bytes.per.connection", 65536);

        assertThat(new RelayConfig(props).handshakeFrameMaxBytes()).isEqualTo(2048);
    }

    @Test
    void badBeforeAuthenticationValuesNameTheirKey() {
        Map<String, Object> props = minimal();
        props.put("handshake.timeout.ms", 10);
        props.put("handshake.frame.max.bytes", 100);
        props.put("handshake.pending.max", 0);
        props.put("handshake.pending.per.address.max", -1);
        props.put("health.direct.memory.degraded.ratio", 1.5);
        props.put("next.hops.allowed", "b1.example:7070,nonsense");

        assertThat(problems(props)).anySatisfy(p -> assertThat(p).contains("handshake.timeout.ms"))
                .anySatisfy(p -> assertThat(p).contains("handshake.frame.max.bytes"))
                .anySatisfy(p -> assertThat(p).contains("handshake.pending.max"))
                .anySatisfy(p -> assertThat(p).contains("handshake.pending.per.address.max"))
                .anySatisfy(p -> assertThat(p).contains("health.direct.memory.degraded.ratio"))
                .anySatisfy(p -> assertThat(p).contains("next.hops.allowed").contains("nonsense"));
    }

    @Test
    void nextHopsAreTheHopsOfTheRoutesAndTheAllowListComparedWithoutCase() {
        Map<String, Object> props = minimal();
        props.put("destinations", "B");
        props.put("destinations.B.routes", "direct,via-c1");
        props.put("destinations.B.routes.direct.hops", "b1.example:7070");
        props.put("destinations.B.routes.via-c1.hops", "c1.example:7070,b1.example:7070");
        props.put("next.hops.allowed", "D1.Example:7070, [::1]:7070");
        RelayConfig config = new RelayConfig(props);

        assertThat(config.nextHopAllowed(HopAddress.parse("b1.example:7070"))).isTrue();
        assertThat(config.nextHopAllowed(HopAddress.parse("c1.example:7070"))).isTrue();
        assertThat(config.nextHopAllowed(HopAddress.parse("d1.example:7070"))).isTrue();
        assertThat(config.nextHopAllowed(HopAddress.parse("[::1]:7070"))).isTrue();
        assertThat(config.nextHopAllowed(HopAddress.parse("b1.example:7071"))).isFalse();
        assertThat(config.nextHopAllowed(HopAddress.parse("evil.example:7070"))).isFalse();
    }
}
