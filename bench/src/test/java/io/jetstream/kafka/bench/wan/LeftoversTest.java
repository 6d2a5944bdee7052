package io.jetstream.kafka.bench.wan;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LeftoversTest {

    @Test
    void parsesNamespaceListsWithAndWithoutIds() {
        assertThat(Leftovers.parseNamespaces("js-b1 (id: 1)\njs-wan\n\njs-a1 (id: 0)\n"))
                .containsExactly("js-b1", "js-wan", "js-a1");
    }

    @Test
    void parsesLinkNamesWithoutThePeerSuffix() {
        String output = """
                1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default\\    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00
                2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc fq_codel state UP\\    link/ether 02:fc:00:00:00:01
                7: jsbrA: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP
                9: js-a1@if2: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue master jsbrA state UP
                """;

        assertThat(Leftovers.parseLinkNames(output)).containsExactly("lo", "eth0", "jsbrA", "js-a1");
    }

    @Test
    void parsesPids() {
        assertThat(Leftovers.parsePids("4597\n 5507 \nnot a pid\n")).containsExactly(4597L, 5507L);
    }
}
