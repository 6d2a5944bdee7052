package io.jetstream.kafka.core.routing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The state machine drawn in {@link RouteHealth}'s javadoc. */
class RouteHealthTest {

    private static final long MS = 1_000_000L;
    private final RouteHealth health = new RouteHealth(3, 2, 500 * MS, 4_000 * MS);

    @Test
    void failuresDegradeThenTakeDownAndAcksBringBack() {
        health.onFailure(0);
        assertThat(health.state()).isEqualTo(RouteState.DEGRADED);
        health.onAck();
        assertThat(health.state()).as("one ack is not enough").isEqualTo(RouteState.DEGRADED);
        health.onAck();
        assertThat(health.state()).isEqualTo(RouteState.UP);
        health.onFailure(0);
        health.onFailure(0);
        health.onFailure(0);
        assertThat(health.state()).isEqualTo(RouteState.DOWN);
        assertThat(health.usable(499 * MS)).isFalse();
        assertThat(health.usable(500 * MS)).as("probe due after the backoff").isTrue();
    }

    @Test
    void failedProbesDoubleTheBackoffUpToTheCapAndLateFailuresDoNot() {
        health.onStalled(0);
        long probeAt = 500 * MS;
        for (long expectedBackoff : new long[] {1_000, 2_000, 4_000, 4_000}) {
            assertThat(health.probeDue(probeAt)).isTrue();
            health.onSent(probeAt);
            assertThat(health.usable(probeAt)).as("one probe at a time").isFalse();
            health.onFailure(probeAt);
            health.onFailure(probeAt); // a batch sent before the route went down: not a probe
            assertThat(health.probeDue(probeAt + expectedBackoff * MS - 1)).isFalse();
            probeAt += expectedBackoff * MS;
        }
        health.onSent(probeAt);
        health.onAck();
        assertThat(health.state()).isEqualTo(RouteState.UP);
    }

    @Test
    void aProbeWithoutAnswerTimesOut() {
        health.onStalled(0);
        health.onSent(500 * MS);
        assertThat(health.probeTimedOut(1_400 * MS, 1_000 * MS)).isFalse();
        assertThat(health.probeTimedOut(1_600 * MS, 1_000 * MS)).isTrue();
    }

    @Test
    void aRouteDownOnlyForItsConnectionIsUpOnceReconnected() {
        health.onConnectionLost(0);
        assertThat(health.usable(60_000 * MS)).isFalse();
        health.onRecovered(60_000 * MS);
        assertThat(health.state()).isEqualTo(RouteState.UP);
        assertThat(health.transitions()).isEqualTo(2);
    }

    @Test
    void aRouteThatFailedBeforeItsDisconnectionIsProbedOnceReconnected() {
        health.onFailure(0);
        health.onFailure(0);
        health.onFailure(0);
        assertThat(health.state()).isEqualTo(RouteState.DOWN);
        health.onConnectionLost(0);
        assertThat(health.usable(60_000 * MS)).as("a disconnected route is never probed").isFalse();
        health.onRecovered(60_000 * MS);
        assertThat(health.state()).isEqualTo(RouteState.DOWN);
        assertThat(health.probeDue(60_000 * MS)).as("probe at once").isTrue();
        health.onSent(60_000 * MS);
        health.onAck();
        assertThat(health.state()).isEqualTo(RouteState.UP);
    }
}
