package io.jetstream.kafka.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.time.Duration;

import io.jetstream.kafka.core.protocol.PeerRole;
import org.apache.kafka.common.utils.ExponentialBackoff;
import org.junit.jupiter.api.Test;

class PeerClientConfigTest {

    private static PeerClientConfig.Builder builder() {
        return PeerClientConfig.builder(InetSocketAddress.createUnresolved("relay", 7070), PeerRole.SENDER, "task-1",
                "demo", "secret-token-0123");
    }

    @Test
    void reconnectWaitsDoubleFromTheFirstWaitWithJitterAndNeverPassTheCap() {
        ExponentialBackoff policy = builder().reconnectBackoff(Duration.ofMillis(100), Duration.ofSeconds(1)).build()
                .reconnectBackoffPolicy();

        for (int draw = 0; draw < 200; draw++) {
            assertThat(policy.backoff(0)).isBetween(millis(80), millis(120));
            assertThat(policy.backoff(1)).isBetween(millis(160), millis(240));
            assertThat(policy.backoff(2)).isBetween(millis(320), millis(480));
            assertThat(policy.backoff(10)).isBetween(millis(800), millis(1000));
            assertThat(policy.backoff(1_000_000)).isBetween(millis(800), millis(1000));
        }
    }

    @Test
    void theDefaultsAreOneHundredMillisecondsToTenSeconds() {
        ExponentialBackoff policy = builder().build().reconnectBackoffPolicy();

        assertThat(policy.backoff(0)).isBetween(millis(80), millis(120));
        assertThat(policy.backoff(100)).isBetween(millis(8_000), millis(10_000));
    }

    @Test
    void aCapBelowTheFirstWaitIsRefused() {
        assertThatThrownBy(() -> builder().reconnectBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reconnectBackoffMax");
        assertThatThrownBy(() -> builder().reconnectBackoff(Duration.ZERO, Duration.ofSeconds(1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reconnectBackoff");
    }

    private static long millis(long ms) {
        return Duration.ofMillis(ms).toNanos();
    }
}
