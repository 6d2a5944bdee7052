package io.jetstream.kafka.relay.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.relay.testing.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The production example pair, {@code config/production/relay-ingress.yaml} and
 * {@code relay-egress.yaml}, loaded by the relay's own loader with their files where the examples
 * expect them (moved under a temporary folder): mutual TLS, a token of its own per role read from
 * secret files, the relay id from the environment (the build sets {@code JETSTREAM_RELAY_ID}), and
 * the ingress's routes ending at the egress relays.
 */
class ProductionRelayConfigsTest {

    private static final Path PRODUCTION = Path.of("../config/production");
    private static final String STREAM = "replication";

    @TempDir
    Path root;
    private final Map<String, String> secrets = Map.of(
            "stream-token", "shared-token-from-a-secret-file-0001",
            "sender-token", "sender-token-from-a-secret-file-0001",
            "subscriber-token", "subscriber-token-from-a-secret-file-01",
            "relay-token", "relay-token-from-a-secret-file-00001",
            "no-sender-token", "sender-token-nobody-holds-at-egress-1",
            "no-subscriber-token", "subscriber-token-nobody-holds-at-in1");

    @BeforeEach
    void filesWhereTheExamplesExpectThem() throws Exception {
        Path tls = Files.createDirectories(root.resolve("tls"));
        TestPki pki = new TestPki(Files.createDirectories(root.resolve("pki")));
        TestPki.PemPair relay = pki.relay("relay", "relay-b1.site-b.example.com");
        Files.copy(relay.cert(), tls.resolve("relay.pem"));
        Files.copy(relay.key(), tls.resolve("relay.key"));
        Files.copy(pki.caFile(), tls.resolve("ca.pem"));
        Path secretDir = Files.createDirectories(root.resolve("secrets"));
        for (Map.Entry<String, String> secret : secrets.entrySet()) {
            Files.writeString(secretDir.resolve(secret.getKey()), secret.getValue());
        }
    }

    private RelayConfig load(String file) throws Exception {
        Path copy = root.resolve(file);
        Files.writeString(copy, Files.readString(PRODUCTION.resolve(file)).replace("/etc/jetstream/", root + "/"));
        return RelayConfig.load(copy);
    }

    @Test
    void bothRelaysRunMutualTlsWithTheirIdFromTheEnvironment() throws Exception {
        for (String file : List.of("relay-ingress.yaml", "relay-egress.yaml")) {
            RelayConfig config = load(file);
            assertThat(config.relayId()).as(file).isEqualTo(System.getenv("JETSTREAM_RELAY_ID")).isNotBlank();
            assertThat(config.tlsEnabled()).as(file).isTrue();
            assertThat(config.tlsClientAuth()).as(file).isEqualTo(TlsClientAuth.REQUIRED);
            assertThat(config.tlsCaFile()).as(file).contains(root.resolve("tls/ca.pem"));
            assertThat(config.adminAddress().getPort()).as(file).isEqualTo(7071);
        }
    }

    @Test
    void noSecretIsWrittenInTheFilesEveryTokenComesFromASecretFile() {
        for (String file : List.of("relay-ingress.yaml", "relay-egress.yaml")) {
            Map<String, String> raw = YamlFlattener.flatten(PRODUCTION.resolve(file));
            List<String> tokenKeys = raw.keySet().stream().filter(key -> key.endsWith("token")).toList();
            assertThat(tokenKeys).as(file).isNotEmpty();
            for (String key : tokenKeys) {
                assertThat(raw.get(key)).as(file + " " + key).matches("\\$\\{secrets:/etc/jetstream/secrets:[a-z-]+\\}");
            }
        }
    }

    @Test
    void eachPartyIsGrantedItsOwnRoleOnly() throws Exception {
        StreamSpec ingress = load("relay-ingress.yaml").stream(STREAM).orElseThrow();
        StreamSpec egress = load("relay-egress.yaml").stream(STREAM).orElseThrow();

        assertThat(ingress.tokenMatches(PeerRole.SENDER, secrets.get("sender-token"))).isTrue();
        assertThat(egress.tokenMatches(PeerRole.SUBSCRIBER, secrets.get("subscriber-token"))).isTrue();
        // What the ingress presents to its next hops is what the egress accepts from relays.
        assertThat(egress.tokenMatches(PeerRole.RELAY, ingress.tokenFor(PeerRole.RELAY).value())).isTrue();
        for (PeerRole role : List.of(PeerRole.SUBSCRIBER, PeerRole.RELAY)) {
            assertThat(egress.tokenMatches(role, secrets.get("sender-token"))).as("sender token as " + role).isFalse();
        }
        for (PeerRole role : List.of(PeerRole.SENDER, PeerRole.RELAY)) {
            assertThat(egress.tokenMatches(role, secrets.get("subscriber-token"))).as("subscriber token as " + role)
                    .isFalse();
            assertThat(ingress.tokenMatches(role, secrets.get("stream-token"))).as("shared token as " + role).isFalse();
        }
    }

    @Test
    void theSharedTokenGrantsNoRoleAndEveryRoleIsBoundToItsPartysCertificateAtBothRelays() throws Exception {
        for (String file : List.of("relay-ingress.yaml", "relay-egress.yaml")) {
            StreamSpec stream = load(file).stream(STREAM).orElseThrow();
            for (PeerRole role : PeerRole.values()) {
                assertThat(stream.hasOwnToken(role)).as(file + ": " + role + " has a token of its own").isTrue();
                assertThat(stream.tokenMatches(role, secrets.get("stream-token"))).as(file + ": shared token as " + role)
                        .isFalse();
                assertThat(stream.bindsCertificates(role)).as(file + ": " + role + " bound to identities").isTrue();
            }
        }
        StreamSpec egress = load("relay-egress.yaml").stream(STREAM).orElseThrow();
        assertThat(egress.tokenMatches(PeerRole.SENDER, secrets.get("sender-token")))
                .as("the source-site tasks' token is no SENDER at the egress behind an ingress").isFalse();
    }

    @Test
    void theIngressRoutesSiteBOverBothEgressRelaysAndTheEgressHasNoRoutes() throws Exception {
        RelayConfig ingress = load("relay-ingress.yaml");
        RelayConfig egress = load("relay-egress.yaml");

        assertThat(ingress.destinations()).containsExactly("B");
        assertThat(ingress.routes("B")).extracting(route -> route.nextHop().orElseThrow().toString())
                .containsExactly("relay-b1.site-b.example.com:7070", "relay-b2.site-b.example.com:7070");
        assertThat(egress.destinations()).isEmpty();
    }
}
