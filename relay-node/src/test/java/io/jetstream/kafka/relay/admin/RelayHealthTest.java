package io.jetstream.kafka.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.relay.testing.FakeTime;
import org.junit.jupiter.api.Test;

class RelayHealthTest {

    @Test
    void statusOnlyMovesForward() {
        RelayHealth health = new RelayHealth("r", new FakeTime());

        assertThat(health.status()).isEqualTo(RelayHealth.Status.STARTING);
        assertThat(health.advanceTo(RelayHealth.Status.UP)).isTrue();
        assertThat(health.advanceTo(RelayHealth.Status.DRAINING)).isTrue();
        assertThat(health.advanceTo(RelayHealth.Status.UP)).isFalse();
        assertThat(health.status()).isEqualTo(RelayHealth.Status.DRAINING);
        assertThat(health.status().serving()).isFalse();
    }

    @Test
    void uptimeFollowsTheClock() {
        FakeTime time = new FakeTime();
        RelayHealth health = new RelayHealth("r", time);

        time.sleep(1500);

        assertThat(health.uptimeMs()).isEqualTo(1500);
    }
}
