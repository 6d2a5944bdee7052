package io.jetstream.kafka.bench.wan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pure parts of {@link WanNetwork}; building one needs root and is {@link WanNetworkIT}'s job. */
class WanNetworkTest {

    @Test
    void routeDestinationsComeFromEveryKindOfRouteLine() {
        assertThat(RootRoutes.destination("default via 192.0.2.1 dev eth0")).isEqualTo("default");
        assertThat(RootRoutes.destination("198.18.1.0/24 dev jsbrA proto kernel scope link src 198.18.1.254"))
                .isEqualTo("198.18.1.0/24");
        assertThat(RootRoutes.destination("local 198.18.1.254 dev jsbrA table local proto kernel scope host"))
                .isEqualTo("198.18.1.254");
        assertThat(RootRoutes.destination("broadcast 198.18.1.255 dev jsbrA table local proto kernel"))
                .isEqualTo("198.18.1.255");
    }

    @Test
    void aSecondNetworkNextToARunningOneTakesTheNextSlot() {
        List<String> rootRoutes = List.of(
                "default via 192.0.2.1 dev eth0",
                "192.0.2.0/24 dev eth0 proto kernel scope link src 192.0.2.2",
                "198.18.1.0/24 dev jsbrA proto kernel scope link src 198.18.1.254",
                "198.18.2.0/24 dev jsbrB proto kernel scope link src 198.18.2.254",
                "local 198.18.1.254 dev jsbrA table local proto kernel scope host src 198.18.1.254",
                "broadcast 198.18.2.255 dev jsbrB table local proto kernel scope link src 198.18.2.254")
                .stream().map(RootRoutes::destination).toList();

        int slot = AddressPlan.freeSlot(rootRoutes).orElseThrow();
        AddressPlan plan = AddressPlan.of(WanSpec.defaults().withPrefix("jsit"), slot);

        assertThat(slot).isEqualTo(1);
        assertThat(plan.hosts().get(0)).isEqualTo(new WanHost("a1", "A", "jsit-a1", "198.18.3.1"));
        assertThat(plan.rootAddress("B")).isEqualTo("198.18.4.254");
    }

    @Test
    void hostCommandPrefixEntersItsNamespace() {
        assertThat(new WanHost("b1", "B", "js-b1", "198.18.2.1").commandPrefix())
                .containsExactly("ip", "netns", "exec", "js-b1");
    }

    @Test
    void extraDelayKeepsTheOneWayDelayWithinOneSecond() {
        WanSpec spec = WanSpec.defaults(); // 25 ms one way

        WanNetwork.requireExtraDelay(spec, Duration.ZERO);
        WanNetwork.requireExtraDelay(spec, Duration.ofMillis(975));
        assertThatThrownBy(() -> WanNetwork.requireExtraDelay(spec, Duration.ofMillis(976)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[0, 975 ms]");
        assertThatThrownBy(() -> WanNetwork.requireExtraDelay(spec, Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WanNetwork.requireExtraDelay(spec, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void unavailableReasonIsAnsweredWithoutThrowing() {
        // Empty as root on a machine with namespaces; a reason anywhere else. Either way, never an exception.
        assertThat(WanNetwork.unavailableReason()).isNotNull();
        assertThat(WanNetwork.unavailableReason()).isEqualTo(WanNetwork.unavailableReason());
    }
}
