package io.jetstream.kafka.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

class SharesTest {

    @Test
    void theHashIsPinnedBecauseEgressAndSinkMustAgreeAcrossVersions() {
        // murmur2("orders") made positive is 1117641372, which is 0 mod 3.
        assertThat(ownersOf("orders", 6, 3)).containsExactly(0, 1, 2, 0, 1, 2);
        assertThat(ownersOf("ü", 6, 3)).containsExactly(2, 0, 1, 2, 0, 1);
        assertThat(Shares.owner("orders", 0, 7)).isEqualTo(1);
        assertThat(Shares.owner("sensor-readings", 0, 7)).isEqualTo(5);
    }

    @Property(tries = 300)
    void eachTopicIsSpreadEvenly(@ForAll @StringLength(min = 1, max = 40) String topic,
            @ForAll @IntRange(min = 1, max = 500) int partitions, @ForAll @IntRange(min = 1, max = 64) int shares) {
        Map<Integer, Integer> perShare = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            int owner = Shares.owner(topic, p, shares);
            assertThat(owner).isBetween(0, shares - 1);
            assertThat(Shares.owns(owner, shares, topic, p)).isTrue();
            perShare.merge(owner, 1, Integer::sum);
        }
        int min = partitions / shares;
        assertThat(perShare.values()).allSatisfy(count -> assertThat(count).isBetween(min, min + 1));
    }

    @Property(tries = 200)
    void largePartitionNumbersDoNotOverflow(@ForAll @StringLength(min = 1, max = 10) String topic,
            @ForAll @IntRange(min = Integer.MAX_VALUE - 10, max = Integer.MAX_VALUE) int partition,
            @ForAll @IntRange(min = 1, max = 65535) int shares) {
        assertThat(Shares.owner(topic, partition, shares)).isBetween(0, shares - 1);
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
