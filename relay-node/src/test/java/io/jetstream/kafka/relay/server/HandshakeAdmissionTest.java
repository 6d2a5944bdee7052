package io.jetstream.kafka.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.metrics.RoleLabel;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HandshakeAdmissionTest {

    private final RelayMetrics metrics = new RelayMetrics("r");
    private final HandshakeAdmission admission = new HandshakeAdmission(3, 2, Duration.ofSeconds(5), metrics);

    @AfterEach
    void close() {
        metrics.close();
    }

    private static EmbeddedChannel channel() {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.freezeTime();
        return channel;
    }

    @Test
    void connectionsBeyondTheCapPerAddressAreRefusedAndCounted() {
        // EmbeddedChannels share one (absent) address: the per-address cap of 2 applies.
        assertThat(admission.admit(channel())).isTrue();
        assertThat(admission.admit(channel())).isTrue();
        assertThat(admission.admit(channel())).isFalse();

        assertThat(admission.pending()).isEqualTo(2);
        assertThat(metrics.errors(ErrorKind.CONNECTION_LIMIT).get()).isEqualTo(1);
    }

    @Test
    void authenticatingOrClosingReturnsThePlaceOnce() {
        EmbeddedChannel first = channel();
        EmbeddedChannel second = channel();
        admission.admit(first);
        admission.admit(second);

        HandshakeAdmission.authenticated(first);
        HandshakeAdmission.authenticated(first);
        assertThat(admission.pending()).isEqualTo(1);
        second.close();
        assertThat(admission.pending()).isZero();
        first.close();
        assertThat(admission.pending()).isZero();
        assertThat(admission.admit(channel())).isTrue();
    }

    @Test
    void assigningARoleAtTheHandshakeAuthenticates() {
        EmbeddedChannel channel = channel();
        admission.admit(channel);

        ConnectionCounter.assign(channel, RoleLabel.PENDING, metrics);
        assertThat(admission.pending()).isEqualTo(1);
        ConnectionCounter.assign(channel, RoleLabel.SOURCE_TASK, metrics);
        assertThat(admission.pending()).isZero();
    }

    @Test
    void aConnectionStillInItsHandshakeAtTheDeadlineIsClosedAndCounted() {
        EmbeddedChannel late = channel();
        EmbeddedChannel done = channel();
        admission.admit(late);
        admission.admit(done);
        HandshakeAdmission.authenticated(done);

        late.advanceTimeBy(4_999, TimeUnit.MILLISECONDS);
        late.runScheduledPendingTasks();
        assertThat(late.isOpen()).isTrue();
        late.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        late.runScheduledPendingTasks();
        done.advanceTimeBy(5, TimeUnit.SECONDS);
        done.runScheduledPendingTasks();

        assertThat(late.isOpen()).isFalse();
        assertThat(done.isOpen()).isTrue();
        assertThat(metrics.errors(ErrorKind.HANDSHAKE_TIMEOUT).get()).isEqualTo(1);
        assertThat(admission.pending()).isZero();
    }
}
