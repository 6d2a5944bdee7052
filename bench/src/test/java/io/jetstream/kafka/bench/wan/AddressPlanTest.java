package io.jetstream.kafka.bench.wan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.bench.wan.AddressPlan.HostLinks;
import java.util.List;
import org.junit.jupiter.api.Test;

class AddressPlanTest {

    private final AddressPlan plan = AddressPlan.of(WanSpec.defaults(), 0);

    @Test
    void firstSlotGivesTheDocumentedAddresses() {
        assertThat(plan.hosts()).containsExactly(
                new WanHost("a1", "A", "js-a1", "198.18.1.1"),
                new WanHost("a2", "A", "js-a2", "198.18.1.2"),
                new WanHost("a3", "A", "js-a3", "198.18.1.3"),
                new WanHost("b1", "B", "js-b1", "198.18.2.1"),
                new WanHost("b2", "B", "js-b2", "198.18.2.2"));
        assertThat(plan.lanSubnet("A")).isEqualTo("198.18.1.0/24");
        assertThat(plan.lanSubnet("B")).isEqualTo("198.18.2.0/24");
        assertThat(plan.rootAddress("A")).isEqualTo("198.18.1.254");
        assertThat(plan.rootAddress("B")).isEqualTo("198.18.2.254");
        assertThat(plan.coreNamespace()).isEqualTo("js-wan");
        assertThat(plan.bridge("A")).isEqualTo("jsbrA");
        assertThat(plan.bridge("B")).isEqualTo("jsbrB");
    }

    @Test
    void wanLinksArePointToPointPairsFromTheSlotsOwnSubnet() {
        List<HostLinks> links = AddressPlan.of(WanSpec.defaults(), 3).links();

        assertThat(links).extracting(HostLinks::wanCoreAddress)
                .containsExactly("198.19.3.0", "198.19.3.2", "198.19.3.4", "198.19.3.6", "198.19.3.8");
        assertThat(links).extracting(HostLinks::wanHostAddress)
                .containsExactly("198.19.3.1", "198.19.3.3", "198.19.3.5", "198.19.3.7", "198.19.3.9");
        assertThat(links.get(3).rootInterface()).isEqualTo("js-b1");
        assertThat(links.get(3).coreInterface()).isEqualTo("wan-b1");
        assertThat(AddressPlan.of(WanSpec.defaults(), 3).lanSubnet("A")).isEqualTo("198.18.7.0/24");
        assertThat(AddressPlan.of(WanSpec.defaults(), 3).lanSubnet("B")).isEqualTo("198.18.8.0/24");
    }

    @Test
    void everyAddressOfTheLargestNetworkInTheLastSlotStaysInTheBenchmarkingRange() {
        WanSpec largest = WanSpec.defaults().withPrefix("abcdef").withSourceHosts(32).withDestinationHosts(32);
        AddressPlan last = AddressPlan.of(largest, AddressPlan.SLOTS - 1);

        for (HostLinks links : last.links()) {
            for (String address : List.of(links.host().address(), links.wanHostAddress(), links.wanCoreAddress())) {
                long[] range = AddressPlan.parseCidr(address).orElseThrow();
                assertThat(range[0]).isBetween(0xC612_0000L, 0xC613_FFFFL); // 198.18.0.0/15
            }
            assertThat(links.rootInterface().length()).isLessThanOrEqualTo(15);
        }
        assertThat(last.links().get(63).wanHostAddress()).isEqualTo("198.19.63.127");
        assertThat(last.rootAddress("B")).isEqualTo("198.18.128.254");
        assertThat(last.bridge("B").length()).isLessThanOrEqualTo(15);
    }

    @Test
    void slotsOutsideTheRangeAreRejected() {
        assertThatThrownBy(() -> AddressPlan.of(WanSpec.defaults(), AddressPlan.SLOTS))
                .hasMessage("address slot must be within [0, 63], was 64");
    }

    @Test
    void ownershipMatchesThisPrefixOnly() {
        assertThat(AddressPlan.ownsNamespace("js", "js-wan")).isTrue();
        assertThat(AddressPlan.ownsNamespace("js", "js-a12")).isTrue();
        assertThat(AddressPlan.ownsNamespace("js", "jsit-a1")).isFalse();
        assertThat(AddressPlan.ownsNamespace("js", "js-c1")).isFalse();
        assertThat(AddressPlan.ownsNamespace("js", "js-a1x")).isFalse();
        assertThat(AddressPlan.ownsRootLink("js", "jsbrA")).isTrue();
        assertThat(AddressPlan.ownsRootLink("js", "js-b2")).isTrue();
        assertThat(AddressPlan.ownsRootLink("js", "jsitbrA")).isFalse();
        assertThat(AddressPlan.ownsRootLink("js", "eth0")).isFalse();
        assertThat(AddressPlan.ownsRootLink("jsit", "jsit-a1")).isTrue();
    }

    @Test
    void freeSlotSkipsSubnetsTheRootNamespaceAlreadyRoutes() {
        assertThat(AddressPlan.freeSlot(List.of("default", "0.0.0.0/0", "192.0.2.0/24", "192.0.2.2")))
                .hasValue(0);
        // another network in slot 0 (its bridge addresses and their subnets)
        assertThat(AddressPlan.freeSlot(List.of("198.18.1.0/24", "198.18.1.254", "198.18.2.0/24"))).hasValue(1);
        // a route covering slot 1's site B only
        assertThat(AddressPlan.freeSlot(List.of("198.18.1.0/24", "198.18.4.7"))).hasValue(2);
        // something routes the whole benchmarking range
        assertThat(AddressPlan.freeSlot(List.of("198.18.0.0/15"))).isEmpty();
    }

    @Test
    void parsesCidrsAndSingleAddresses() {
        assertThat(AddressPlan.parseCidr("198.18.1.0/24")).hasValueSatisfying(range ->
                assertThat(range).containsExactly(0xC612_0100L, 0xC612_01FFL));
        assertThat(AddressPlan.parseCidr("198.18.1.7")).hasValueSatisfying(range ->
                assertThat(range).containsExactly(0xC612_0107L, 0xC612_0107L));
        assertThat(AddressPlan.parseCidr("default")).isEmpty();
        assertThat(AddressPlan.parseCidr("198.18.1.0/33")).isEmpty();
        assertThat(AddressPlan.parseCidr("198.18.256.0/24")).isEmpty();
        assertThat(AddressPlan.parseCidr("fe80::/64")).isEmpty();
    }
}
