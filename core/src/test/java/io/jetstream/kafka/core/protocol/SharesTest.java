package io.jetstream.kafka.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.core.testing.ProtocolArbitraries;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class SharesTest {

    @Test
    void theHashIsPinnedBecauseEgressAndSinkMustAgreeAcrossVersions() {
        // murmur2("orders") made positive is 1117641372, which is 0 mod 3.
        assertThat(ownersOf("orders", 6, 3)).containsExactly(0, 1, 2, 0, 1, 2);
        assertThat(ownersOf("ü", 6, 3)).containsExactly(2, 0, 1, 2, 0, 1);
        assertThat(Shares.owner("orders", 0, 7)).isEqualTo(1);
        assertThat(Shares.owner("sensor-readings", 0, 7)).isEqualTo(5);
    }

    static LongStream spreadSeeds() {
        return ProtocolArbitraries.seeds(0x54A2E5L, 300);
    }

    static LongStream largePartitionSeeds() {
        return ProtocolArbitraries.seeds(0x1A26EL, 200);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("spreadSeeds")
    void eachTopicIsSpreadEvenly(long seed) {
        Random random = new Random(seed);
        String topic = ProtocolArbitraries.text(random, 1, 40);
        int partitions = ProtocolArbitraries.intBetween(random, 1, 500);
        int shares = ProtocolArbitraries.intBetween(random, 1, 64);
        assertSpreadEvenly(topic, partitions, shares, "seed " + seed);
    }

    @Test
    void eachTopicIsSpreadEvenlyAtTheBoundaries() {
        for (String topic : new String[] {"a", "\u0000", "\uD7FF", "\uD800", "t".repeat(40), "\uD7FF".repeat(40)}) {
            for (int partitions : new int[] {1, 2, 63, 64, 65, 499, 500}) {
                for (int shares : new int[] {1, 2, 63, 64}) {
                    assertSpreadEvenly(topic, partitions, shares,
                            "topic " + topic.length() + " chars, " + partitions + " partitions, " + shares + " shares");
                }
            }
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("largePartitionSeeds")
    void largePartitionNumbersDoNotOverflow(long seed) {
        Random random = new Random(seed);
        String topic = ProtocolArbitraries.text(random, 1, 10);
        int partition = ProtocolArbitraries.intBetween(random, Integer.MAX_VALUE - 10, Integer.MAX_VALUE);
        int shares = ProtocolArbitraries.intBetween(random, 1, 65535);
        assertThat(Shares.owner(topic, partition, shares)).as("seed %d", seed).isBetween(0, shares - 1);
    }

    @Test
    void theLargestPartitionNumbersDoNotOverflow() {
        for (String topic : new String[] {"a", "orders", "\uD7FF".repeat(10)}) {
            for (int partition : new int[] {Integer.MAX_VALUE - 10, Integer.MAX_VALUE - 1, Integer.MAX_VALUE}) {
                for (int shares : new int[] {1, 2, 3, 7, 64, 65534, 65535}) {
                    assertThat(Shares.owner(topic, partition, shares))
                            .as("%s, partition %d, %d shares", topic, partition, shares).isBetween(0, shares - 1);
                }
            }
        }
        // The hash plus the partition exceeds Integer.MAX_VALUE: an int sum would wrap negative.
        long start = Shares.owner("orders", 0, 65535);
        assertThat(Shares.owner("orders", Integer.MAX_VALUE, 65535))
                .isEqualTo((int) ((1117641372L + Integer.MAX_VALUE) % 65535));
        assertThat(start).isEqualTo(1117641372L % 65535);
    }

    private static void assertSpreadEvenly(String topic, int partitions, int shares, String where) {
        Map<Integer, Integer> perShare = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            int owner = Shares.owner(topic, p, shares);
            assertThat(owner).as(where).isBetween(0, shares - 1);
            assertThat(Shares.owns(owner, shares, topic, p)).as(where).isTrue();
            perShare.merge(owner, 1, Integer::sum);
        }
        int min = partitions / shares;
        assertThat(perShare.values()).as(where).allSatisfy(count -> assertThat(count).isBetween(min, min + 1));
    }

    @Test
    void invalidArgumentsAreRejected() {
        assertThatThrownBy(() -> Shares.owner("t", 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Shares.owner("t", -1, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SubscribeFrame("s", "sub", 2, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SubscribeFrame("s", "sub", 0, 65536)).isInstanceOf(IllegalArgumentException.class);
    }

    private static int[] ownersOf(String topic, int partitions, int shares) {
        int[] owners = new int[partitions];
        for (int p = 0; p < partitions; p++) {
            owners[p] = Shares.owner(topic, p, shares);
        }
        return owners;
    }
}
