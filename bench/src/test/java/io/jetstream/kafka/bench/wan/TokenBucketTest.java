package io.jetstream.kafka.bench.wan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TokenBucketTest {

    @Test
    void fortyMegabitsGetA32KibBurstAnd50MillisecondsOfQueue() {
        assertThat(TokenBucket.forRate(40_000_000)).isEqualTo(new TokenBucket(40_000_000, 32_768, 250_000));
    }

    @Test
    void slowLinksGetASmallerBurstButAlwaysTwoFrames() {
        assertThat(TokenBucket.forRate(1_000_000)).isEqualTo(new TokenBucket(1_000_000, 12_500, 15_528));
        assertThat(TokenBucket.forRate(100_000)).isEqualTo(new TokenBucket(100_000, 3_028, 6_056));
    }

    @Test
    void fastLinksGetAtLeastOneMillisecondOfBurst() {
        assertThat(TokenBucket.forRate(10_000_000_000L))
                .isEqualTo(new TokenBucket(10_000_000_000L, 1_250_000, 62_500_000));
    }

    @Test
    void tcArgumentsUseBitsAndBytes() {
        assertThat(TokenBucket.forRate(40_000_000).tcArguments())
                .containsExactly("tbf", "rate", "40000000bit", "burst", "32768", "limit", "250000");
    }

    @Test
    void ratesOutsideTheSpecsBoundsAreRejected() {
        assertThatThrownBy(() -> TokenBucket.forRate(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
