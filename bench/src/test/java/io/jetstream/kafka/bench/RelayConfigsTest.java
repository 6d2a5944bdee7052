package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.relay.config.HopAddress;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.testkit.site.SiteFiles;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RelayConfigsTest {

    @Test
    void theBaseKeepsTheShippedSettingsButNothingPerRelay() {
        Map<String, String> shipped = Map.of("relay.id", "demo", "listener.port", "7070", "admin.host", "127.0.0.1",
                "destinations.B.routes.direct.hops", "local", "buffer.max.bytes", "67108864",
                "streams.demo.token", "secret-secret-secret");
        assertThat(RelayConfigs.base(shipped)).containsOnlyKeys("buffer.max.bytes", "streams.demo.token");
    }

    @Test
    void anIngressWithThreeRoutesIsAValidRelayConfig() {
        Map<String, String> base = RelayConfigs.shippedBase(SiteFiles.configFile("relay-demo.yaml"));
        Map<String, List<InetSocketAddress>> routes = new LinkedHashMap<>();
        InetSocketAddress egress = new InetSocketAddress("198.18.2.2", 7000);
        routes.put("direct", List.of(egress));
        routes.put("via-a2", List.of(new InetSocketAddress("198.18.1.2", 7001), egress));
        Map<String, String> config = RelayConfigs.relay(base, "a1", new InetSocketAddress("198.18.1.1", 7100),
                new InetSocketAddress("198.18.1.1", 7101));
        config.putAll(RelayConfigs.ingressRoutes("B", routes));

        assertThat(config).containsEntry("destinations.B.routes", "direct,via-a2")
                .containsEntry("destinations.B.routes.via-a2.hops", "198.18.1.2:7001,198.18.2.2:7000")
                .containsEntry("destinations.B.routes.direct.price.per.gb", "0.02")
                .containsEntry("listener.host", "198.18.1.1").containsEntry("admin.port", "7101");
        RelayConfig relay = new RelayConfig(config);
        assertThat(relay.relayId()).isEqualTo("a1");
    }

    @Test
    void anIntermediateMayForwardOnlyToTheNextHopsItIsGiven() {
        Map<String, String> base = RelayConfigs.shippedBase(SiteFiles.configFile("relay-demo.yaml"));
        Map<String, String> config = RelayConfigs.relay(base, "a2", new InetSocketAddress("198.18.1.2", 7001),
                new InetSocketAddress("198.18.1.2", 7002));
        config.putAll(RelayConfigs.allowedNextHops(List.of(new InetSocketAddress("198.18.2.2", 7000))));

        RelayConfig relay = new RelayConfig(config);
        assertThat(relay.nextHopAllowed(HopAddress.parse("198.18.2.2:7000"))).isTrue();
        assertThat(relay.nextHopAllowed(HopAddress.parse("198.18.2.3:7000"))).isFalse();
        assertThat(RelayConfigs.base(Map.of("next.hops.allowed", "198.18.2.2:7000"))).isEmpty();
    }
}
