package io.jetstream.kafka.connect.common.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.connect.common.config.RelayClientConfigs;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.SubscribeFrame;
import io.jetstream.kafka.transport.PeerClient;
import io.jetstream.kafka.transport.PeerClientConfig;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.config.types.Password;
import org.junit.jupiter.api.Test;

class RelayClientsTest {

    private static final InetSocketAddress RELAY_A = InetSocketAddress.createUnresolved("relay-a", 7000);
    private static final InetSocketAddress RELAY_B = InetSocketAddress.createUnresolved("relay-b", 7001);

    private static RelayClientConfigs.Settings settings(boolean tls, Optional<Path> caFile) {
        return new RelayClientConfigs.Settings(List.of(RELAY_A, RELAY_B), "orders", new Password("s3cret-token-0123"),
                tls, caFile, Optional.empty(), Optional.empty(), Duration.ofSeconds(10), Duration.ofSeconds(3),
                Duration.ofMillis(250), Duration.ofMillis(20), Duration.ofSeconds(4));
    }

    @Test
    void aSenderAsksForReceiptsAndCarriesTheSharedSettings() {
        try (RelayClients clients = RelayClients.open(settings(false, Optional.empty()), RelayClients.Profile.sender(),
                "src-0-abc")) {
            PeerClientConfig config = clients.config(RELAY_A);

            assertThat(config.remote()).isEqualTo(RELAY_A);
            assertThat(config.role()).isEqualTo(PeerRole.SENDER);
            assertThat(config.nodeId()).isEqualTo("src-0-abc");
            assertThat(config.streamId()).isEqualTo("orders");
            assertThat(config.token()).isEqualTo("s3cret-token-0123");
            assertThat(config.receipts()).isTrue();
            assertThat(config.subscription()).isNull();
            assertThat(config.tls()).isFalse();
            assertThat(config.connectTimeout()).isEqualTo(Duration.ofSeconds(3));
            assertThat(config.heartbeatInterval()).isEqualTo(Duration.ofMillis(250));
            assertThat(config.reconnectBackoff()).isEqualTo(Duration.ofMillis(20));
            assertThat(config.reconnectBackoffMax()).isEqualTo(Duration.ofSeconds(4));
            assertThat(clients.streamId()).isEqualTo("orders");
            assertThat(config.minPeerMaxFrameBytes()).as("a relay announcing less is never used")
                    .isEqualTo(1 << 20);
        }
    }

    @Test
    void aSubscriberSubscribesToItsShareWithoutReceipts() {
        SubscribeFrame share = new SubscribeFrame("orders", "dst-1-abc", 1, 3, 42L);
        try (RelayClients clients = RelayClients.open(settings(false, Optional.empty()),
                RelayClients.Profile.subscriber(share), "dst-1-abc")) {
            PeerClientConfig config = clients.config(RELAY_B);

            assertThat(config.role()).isEqualTo(PeerRole.SUBSCRIBER);
            assertThat(config.subscription()).isEqualTo(share);
            assertThat(config.receipts()).isFalse();
        }
    }

    @Test
    void tlsSettingsBuildAClientContext() {
        try (RelayClients clients = RelayClients.open(settings(true, Optional.empty()), RelayClients.Profile.sender(),
                "src-0-abc")) {
            assertThat(clients.config(RELAY_A).tls()).isTrue();
        }
    }

    @Test
    void anUnusableCaFileIsRefusedWithItsName() {
        Path missing = Path.of("target", "no-such-ca.pem");
        assertThatThrownBy(() -> RelayClients.open(settings(true, Optional.of(missing)), RelayClients.Profile.sender(),
                "src-0-abc"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no-such-ca.pem");
    }

    @Test
    void oneConnectionPerRelayIsMadeInOrderAndBoundToItsClient() {
        List<InetSocketAddress> asked = new ArrayList<>();
        RelayClients clients = RelayClients.open(settings(false, Optional.empty()), RelayClients.Profile.sender(),
                "src-0-abc");
        List<Recording> connections = clients.connect(address -> {
            asked.add(address);
            return new Recording();
        }, false, "unused {}");

        assertThat(asked).containsExactly(RELAY_A, RELAY_B);
        assertThat(connections).hasSize(2);
        assertThat(connections.get(0).client.remote()).isEqualTo(RELAY_A);
        assertThat(connections.get(1).client.remote()).isEqualTo(RELAY_B);
        assertThat(clients.clients()).extracting(PeerClient::remote).containsExactly(RELAY_A, RELAY_B);

        clients.close();

        assertThat(clients.clients()).allSatisfy(client -> assertThat(client.isClosed()).isTrue());
    }

    @Test
    void aNodeIdNamesTheConnectorAndTask() {
        assertThat(RelayClients.nodeId("replicate-orders", 3)).matches("replicate-orders-3-[0-9a-f]{1,6}");
    }

    /** A connection that only remembers its client. */
    private static final class Recording implements RelayClients.Connection {
        PeerClient client;

        @Override
        public void bind(PeerClient client) {
            this.client = client;
        }

        @Override
        public void onFrame(PeerClient client, Frame frame) {
        }
    }
}
