package io.jetstream.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RelayPreferenceTest {

    private static final InetSocketAddress HOST_1 = InetSocketAddress.createUnresolved("relay-host-1", 7400);
    private static final InetSocketAddress HOST_2 = InetSocketAddress.createUnresolved("relay-host-2", 7400);
    private static final InetSocketAddress HOST_3 = InetSocketAddress.createUnresolved("relay-host-3", 7400);
    private static final List<InetSocketAddress> THREE = List.of(HOST_1, HOST_2, HOST_3);

    @Test
    void aTaskOnHost2PrefersHost2sRelayAndKeepsTheOthersAsFallback() {
        RelayPreference.Tiers tiers = RelayPreference.tiers(THREE, true, Set.of(HOST_2)::contains);
        assertThat(tiers.preferred()).containsExactly(HOST_2);
        assertThat(tiers.fallback()).containsExactly(HOST_1, HOST_3);
        assertThat(tiers.local()).isTrue();
        assertThat(tiers.preferred(HOST_2)).isTrue();
        assertThat(tiers.preferred(HOST_1)).isFalse();
    }

    @Test
    void severalRelaysOnTheHostAreAllPreferredInTheirListedOrder() {
        RelayPreference.Tiers tiers = RelayPreference.tiers(THREE, true, Set.of(HOST_3, HOST_1)::contains);
        assertThat(tiers.preferred()).containsExactly(HOST_1, HOST_3);
        assertThat(tiers.fallback()).containsExactly(HOST_2);
    }

    @Test
    void withNoRelayOnTheHostEveryRelayIsUsedAlike() {
        RelayPreference.Tiers tiers = RelayPreference.tiers(THREE, true, relay -> false);
        assertThat(tiers.preferred()).containsExactlyElementsOf(THREE);
        assertThat(tiers.fallback()).isEmpty();
        assertThat(tiers.local()).isFalse();
    }

    @Test
    void withThePreferenceOffEveryRelayIsUsedAlikeWhereverItRuns() {
        RelayPreference.Tiers tiers = RelayPreference.tiers(THREE, false, Set.of(HOST_2)::contains);
        assertThat(tiers.preferred()).containsExactlyElementsOf(THREE);
        assertThat(tiers.fallback()).isEmpty();
        assertThat(tiers.local()).isFalse();
    }

    @Test
    void anEmptyRelayListIsRefused() {
        assertThatThrownBy(() -> RelayPreference.tiers(List.of(), true, relay -> true))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void loopbackAndTheWildcardAreOnThisHost() {
        assertThat(RelayPreference.onThisHost(InetSocketAddress.createUnresolved("127.0.0.1", 7400))).isTrue();
        assertThat(RelayPreference.onThisHost(InetSocketAddress.createUnresolved("localhost", 7400))).isTrue();
        assertThat(RelayPreference.onThisHost(new InetSocketAddress("0.0.0.0", 7400))).isTrue();
    }

    @Test
    void anAddressOfOneOfThisHostsInterfacesIsOnThisHost() throws Exception {
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            for (InetAddress address : Collections.list(nic.getInetAddresses())) {
                assertThat(RelayPreference.onThisHost(new InetSocketAddress(address, 7400)))
                        .as("%s of %s", address, nic.getName()).isTrue();
                assertThat(RelayPreference.onThisHost(InetSocketAddress.createUnresolved(
                        address.getHostAddress(), 7400))).as("%s written out", address).isTrue();
            }
        }
    }

    @Test
    void anotherHostsAddressAndAnUnknownNameAreNot() throws Exception {
        // 198.18.0.0/15 is reserved for benchmarks (RFC 2544); the WAN bench gives such addresses to
        // network namespaces, never this one to this host.
        InetAddress elsewhere = InetAddress.getByName("198.19.254.253");
        assumeTrue(NetworkInterface.getByInetAddress(elsewhere) == null, "this host has 198.19.254.253");
        assertThat(RelayPreference.onThisHost(InetSocketAddress.createUnresolved("198.19.254.253", 7400)))
                .isFalse();
        assertThat(RelayPreference.onThisHost(InetSocketAddress.createUnresolved("no-such-relay.invalid", 7400)))
                .isFalse();
    }
}
