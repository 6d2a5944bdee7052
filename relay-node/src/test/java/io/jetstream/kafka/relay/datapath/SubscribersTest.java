package io.jetstream.kafka.relay.datapath;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.SubscribeFrame;
import io.jetstream.kafka.relay.datapath.Subscribers.Outcome;
import io.jetstream.kafka.relay.datapath.Subscribers.Registration;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SubscribersTest {

    private static final String STREAM = "orders";
    private static final long NOW = 1_800_000_000_000L;

    private final RelayMetrics metrics = new RelayMetrics("relay-b1");
    private final Subscribers subscribers = new Subscribers(Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC),
            Duration.ofSeconds(10));

    @AfterEach
    void close() {
        metrics.close();
    }

    private SubscriberLink link(String id, int share, int shares, long epoch) {
        return new SubscriberLink(new EmbeddedChannel(), new Session(id, PeerRole.SUBSCRIBER, STREAM,
                metrics.peer(id), false), new SubscribeFrame(STREAM, id, share, shares, epoch));
    }

    private int owners(String topic, int partitions) {
        int owned = 0;
        for (int p = 0; p < partitions; p++) {
            if (subscribers.owner(STREAM, topic, p) != null) {
                owned++;
            }
        }
        return owned;
    }

    @Test
    void anEpochUpToTheToleranceAheadOfTheRelaysClockIsTakenOneMillisecondMoreIsNot() {
        assertThat(subscribers.register(STREAM, link("sink-0", 0, 1, NOW + 10_000)).outcome())
                .isEqualTo(Outcome.REGISTERED);
        Registration refused = subscribers.register(STREAM, link("sink-0", 0, 1, NOW + 10_001));
        assertThat(refused.outcome()).isEqualTo(Outcome.EPOCH_AHEAD);
        assertThat(refused.aheadMillis()).isEqualTo(10_001);
        assertThat(subscribers.register(STREAM, link("sink-x", 0, 1, Long.MAX_VALUE)).outcome())
                .isEqualTo(Outcome.EPOCH_AHEAD);
        assertThat(subscribers.all(STREAM)).hasSize(1);
    }

    @Test
    void aNewerSplitReplacesEverySubscriptionOfTheOldOneAndAnOlderSplitIsRefused() {
        SubscriberLink old0 = link("sink-0", 0, 2, NOW - 5_000);
        SubscriberLink old1 = link("sink-1", 1, 2, NOW - 5_000);
        subscribers.register(STREAM, old0);
        subscribers.register(STREAM, old1);

        Registration older = subscribers.register(STREAM, link("sink-9", 0, 3, NOW - 6_000));
        assertThat(older.outcome()).isEqualTo(Outcome.HELD);
        assertThat(subscribers.all(STREAM)).containsExactly(old0, old1);

        SubscriberLink new0 = link("sink-0", 0, 3, NOW);
        Registration rescale = subscribers.register(STREAM, new0);
        assertThat(rescale.outcome()).isEqualTo(Outcome.REGISTERED);
        assertThat(rescale.replaced()).containsExactlyInAnyOrder(old0, old1);
        assertThat(subscribers.register(STREAM, link("sink-1", 1, 3, NOW)).outcome()).isEqualTo(Outcome.REGISTERED);
        assertThat(subscribers.all(STREAM)).hasSize(2)
                .allSatisfy(l -> assertThat(l.subscription().shareCount()).isEqualTo(3));
        // exactly one owner per partition: shares 0 and 1 of 3 own two thirds of them, nobody owns two
        assertThat(owners("t", 300)).isEqualTo(200);

        // a left-over of the old split reconnecting cannot take anything back
        assertThat(subscribers.register(STREAM, link("sink-1", 1, 2, NOW - 5_000)).outcome())
                .isEqualTo(Outcome.HELD);
    }

    @Test
    void ofTwoSubscriptionsOfOneShareTheNewerHoldsItAtEqualEpochsTheLater() {
        SubscriberLink first = link("sink-0", 0, 2, NOW - 100);
        subscribers.register(STREAM, first);
        SubscriberLink other = link("sink-1", 1, 2, NOW - 200);
        subscribers.register(STREAM, other);
        SubscriberLink same = link("sink-0", 0, 2, NOW - 100);
        assertThat(subscribers.register(STREAM, same).replaced()).containsExactly(first);
        assertThat(subscribers.register(STREAM, link("sink-0", 0, 2, NOW - 101)).holder()).isSameAs(same);
        assertThat(subscribers.all(STREAM)).containsExactlyInAnyOrder(same, other);
    }
}
