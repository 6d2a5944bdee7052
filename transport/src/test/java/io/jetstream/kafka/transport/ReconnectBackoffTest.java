package io.jetstream.kafka.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class ReconnectBackoffTest {

    @Test
    void doublesPerFailureUpToTheCapWithoutJitter() {
        ReconnectBackoff backoff = new ReconnectBackoff(Duration.ofMillis(100), Duration.ofSeconds(1), 0, () -> 0.5);

        assertThat(backoff.delay(0)).isEqualTo(Duration.ofMillis(100));
        assertThat(backoff.delay(1)).isEqualTo(Duration.ofMillis(200));
        assertThat(backoff.delay(3)).isEqualTo(Duration.ofMillis(800));
        assertThat(backoff.delay(4)).isEqualTo(Duration.ofSeconds(1));
        assertThat(backoff.delay(1_000_000)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void jitterOnlyShortensSoTheCapHolds() {
        ReconnectBackoff most = new ReconnectBackoff(Duration.ofMillis(100), Duration.ofSeconds(1), 0.2, () -> 0.0);
        ReconnectBackoff least = new ReconnectBackoff(Duration.ofMillis(100), Duration.ofSeconds(1), 0.2, () -> 0.999999);

        assertThat(most.delay(10)).isEqualTo(Duration.ofSeconds(1));
        assertThat(least.delay(10)).isBetween(Duration.ofMillis(800), Duration.ofMillis(801));
        for (int failures = 0; failures < 40; failures++) {
            assertThat(ReconnectBackoff.of(Duration.ofMillis(1), Duration.ofMillis(50)).delay(failures))
                    .isPositive().isLessThanOrEqualTo(Duration.ofMillis(50));
        }
    }

    @Test
    void refusesNonsense() {
        assertThatThrownBy(() -> ReconnectBackoff.of(Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ReconnectBackoff.of(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ReconnectBackoff(Duration.ofSeconds(1), Duration.ofSeconds(1), 1.0, () -> 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
