package io.jetstream.kafka.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.testing.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RelayHealthTest {

    @Test
    void statusOnlyMovesForward() {
        RelayHealth health = new RelayHealth("r", new ManualClock());

        assertThat(health.status()).isEqualTo(RelayHealth.Status.STARTING);
        assertThat(health.advanceTo(RelayHealth.Status.UP)).isTrue();
        assertThat(health.advanceTo(RelayHealth.Status.DRAINING)).isTrue();
        assertThat(health.advanceTo(RelayHealth.Status.UP)).isFalse();
        assertThat(health.status()).isEqualTo(RelayHealth.Status.DRAINING);
        assertThat(health.status().serving()).isFalse();
    }

    @Test
    void uptimeFollowsTheClock() {
        ManualClock clock = new ManualClock();
        RelayHealth health = new RelayHealth("r", clock);

        clock.advance(Duration.ofMillis(1500));

        assertThat(health.uptimeMs()).isEqualTo(1500);
    }

    /** Direct memory with settable use, max 1000 bytes. */
    private static final class FakeMemory implements DirectMemory {
        volatile long used;

        @Override
        public long usedBytes() {
            return used;
        }

        @Override
        public long maxBytes() {
            return 1000;
        }
    }

    @Test
    void anUpRelayIsReportedDegradedWhileItsDirectMemoryIsAboveTheShareAndServesStill() {
        FakeMemory memory = new FakeMemory();
        RelayHealth health = new RelayHealth("r", new ManualClock(), memory, 0.8);
        health.advanceTo(RelayHealth.Status.UP);

        memory.used = 800;
        assertThat(health.reported()).isEqualTo(RelayHealth.Reported.UP);
        memory.used = 801;
        assertThat(health.reported()).isEqualTo(RelayHealth.Reported.DEGRADED);
        assertThat(health.reported().serving()).isTrue();
        assertThat(health.status()).as("a condition, not a lifecycle state").isEqualTo(RelayHealth.Status.UP);
        memory.used = 100;
        assertThat(health.reported()).isEqualTo(RelayHealth.Reported.UP);
    }

    @Test
    void lifecycleStatesOtherThanUpAreReportedAsTheyAreWhateverTheMemory() {
        FakeMemory memory = new FakeMemory();
        memory.used = 999;
        RelayHealth health = new RelayHealth("r", new ManualClock(), memory, 0.5);

        assertThat(health.reported()).isEqualTo(RelayHealth.Reported.STARTING);
        health.advanceTo(RelayHealth.Status.DRAINING);
        assertThat(health.reported()).isEqualTo(RelayHealth.Reported.DRAINING);
        assertThat(health.reported().serving()).isFalse();
    }

    @Test
    void theProcessFiguresArePlausible() {
        DirectMemory memory = DirectMemory.ofThisProcess();
        assertThat(memory.maxBytes()).isPositive();
        assertThat(memory.usedBytes()).isNotNegative();
    }
}
