package io.jetstream.kafka.relay.datapath;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.Shares;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.core.protocol.integrity.FrameSigner;
import io.jetstream.kafka.core.testing.LeakChecks;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.NackReason;
import io.jetstream.kafka.relay.metrics.RoleLabel;
import io.jetstream.kafka.relay.testing.TestRelay;
import io.jetstream.kafka.relay.testing.TestSender;
import io.jetstream.kafka.relay.testing.TestSubscriber;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One relay that is ingress and egress at once, with real connector stand-ins over loopback. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EgressRelayTest {

    private static final Duration WAIT = Duration.ofSeconds(15);
    private static EventLoopGroup clients;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private TestRelay relay;

    @BeforeAll
    static void startClients() {
        clients = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stopClients() {
        clients.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        LeakChecks.assertNoLeaks();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
        if (relay != null) {
            relay.close();
        }
    }

    private <T extends AutoCloseable> T keep(T closeable) {
        closeables.add(closeable);
        return closeable;
    }

    private TestSender sender(String id) {
        TestSender sender = keep(new TestSender(id, relay.data(), clients));
        await(id + " ready").atMost(WAIT).until(sender::isReady);
        return sender;
    }

    private TestSubscriber subscriber(String id, int share, int shares) {
        TestSubscriber subscriber = keep(new TestSubscriber(id, relay.data(), share, shares, clients));
        await(id + " ready").atMost(WAIT).until(subscriber::isReady);
        return subscriber;
    }

    @Test
    void deliversEachPartitionToTheShareOwningItInOrderAndAcksEveryBatch() throws Exception {
        relay = TestRelay.start(TestRelay.egress("relay-b1"));
        TestSubscriber share0 = subscriber("sink-0", 0, 2);
        TestSubscriber share1 = subscriber("sink-1", 1, 2);
        TestSender sender = sender("source-0");

        for (int i = 0; i < 400; i++) {
            assertThat(sender.send("orders", i % 8, 5, 100)).isNotNegative();
        }
        await("400 acks").atMost(WAIT).until(() -> sender.outcomes.size() == 400);

        assertThat(sender.oks()).isEqualTo(400);
        assertThat(share0.batches.get() + share1.batches.get()).isEqualTo(400);
        assertThat(share0.received.keySet()).allSatisfy(p -> assertThat(ownerOf(p, 2)).isZero());
        assertThat(share1.received.keySet()).allSatisfy(p -> assertThat(ownerOf(p, 2)).isEqualTo(1));
        assertThat(share0.orderViolations()).isEmpty();
        assertThat(share1.orderViolations()).isEmpty();
        BatchHeader delivered = share0.received.values().iterator().next().get(0);
        assertThat(delivered.routing().path()).containsExactly("relay-b1");
        assertThat(delivered.routing().isAtEgress()).isTrue();
        await("budget back to zero").atMost(WAIT).until(() -> relay.bufferedBytes() == 0);
        assertThat(relay.metrics().acks().get()).isEqualTo(400);
        assertThat(relay.metrics().connections(RoleLabel.SOURCE_TASK).get()).isEqualTo(1);
        assertThat(relay.metrics().connections(RoleLabel.SINK_TASK).get()).isEqualTo(2);
        assertThat(relay.metrics().peer("source-0").batchesIn().get()).isEqualTo(400);
        assertThat(relay.metrics().peer("source-0").bytesIn().get()).isGreaterThan(400 * 500);
        assertThat(relay.metrics().route(TestRelay.DESTINATION, "direct").batchesOut().get()).isEqualTo(400);
        assertThat(sender.extraAnswers).isEmpty();
    }

    /**
     * End-to-end integrity over a real two-relay route: the ingress forwards to its next hop over its
     * own client connection, the egress delivers; neither holds the key, and the sender's batch MACs
     * and the destination's ACK MACs arrive as they were made.
     */
    @Test
    void theConnectorsMacsCrossTwoRelaysUnchangedBothWays() throws Exception {
        relay = TestRelay.start(TestRelay.egress("relay-b1"));
        TestRelay ingress = keep(TestRelay.start(TestRelay.route(TestRelay.config("relay-a1"), "via-b1",
                List.of(relay.hop()))));
        FrameSigner key = FrameSigner.ofSecret("the-connectors-key-no-relay-holds-0123");
        TestSubscriber destination = subscriber("sink-0", 0, 1);
        destination.signer = key;
        TestSender source = keep(new TestSender("source-0", ingress.data(), clients));
        await("source-0 ready").atMost(WAIT).until(source::isReady);
        source.signer = key;

        for (int i = 0; i < 20; i++) {
            assertThat(source.send("orders", i % 4, 3, 50)).isNotNegative();
        }
        await("20 answers").atMost(WAIT).until(() -> source.outcomes.size() == 20);

        assertThat(source.oks()).isEqualTo(20);
        assertThat(destination.verdicts).hasSize(20).containsOnly(FrameSigner.Verdict.VALID);
        assertThat(destination.received.values().iterator().next().get(0).routing().path())
                .containsExactly("relay-a1", relay.hop());
        assertThat(source.outcomes.values()).allSatisfy(ack -> assertThat(key.verify(ack))
                .isEqualTo(FrameSigner.Verdict.VALID));
    }

    private static int ownerOf(String topicPartition, int shares) {
        int dash = topicPartition.lastIndexOf('-');
        return Shares.owner(topicPartition.substring(0, dash), Integer.parseInt(topicPartition.substring(dash + 1)),
                shares);
    }

    @Test
    void aLaterTaskInstanceTakesTheShareAndAnEarlierOneCannotTakeItBack() throws Exception {
        relay = TestRelay.start(TestRelay.egress("relay-b1"));
        TestSubscriber earlier = keep(new TestSubscriber("sink-0-a", relay.data(), 0, 1, clients, 100));
        await("the earlier instance ready").atMost(WAIT).until(earlier::isReady);
        earlier.autoAck = false;
        TestSender sender = sender("source-0");
        long stranded = sender.send("orders", 0, 1, 10);
        await("delivered to the earlier instance, not acknowledged").atMost(WAIT)
                .until(() -> earlier.batches.get() == 1);

        TestSubscriber later = keep(new TestSubscriber("sink-0-b", relay.data(), 0, 1, clients, 200));
        await("the later instance ready").atMost(WAIT).until(later::isReady);
        await("the earlier instance told to stop").atMost(WAIT).until(() -> earlier.client().isSuperseded());
        await("its unacknowledged batch failed back").atMost(WAIT).until(() -> sender.outcomes.containsKey(stranded));
        assertThat(sender.outcomes.get(stranded).isOk()).isFalse();
        assertThat(sender.outcomes.get(stranded).reason().retriable()).isTrue();

        // A left-over instance that (re)connects now is refused and stays away.
        TestSubscriber leftover = keep(new TestSubscriber("sink-0-c", relay.data(), 0, 1, clients, 150));
        await("the left-over refused").atMost(WAIT).until(() -> leftover.client().isSuperseded());
        for (int i = 0; i < 20; i++) {
            sender.send("orders", i % 4, 1, 10);
        }
        await("21 answers").atMost(WAIT).until(() -> sender.outcomes.size() == 21);
        assertThat(sender.oks()).isEqualTo(20);
        assertThat(later.batches.get()).isEqualTo(20);
        assertThat(earlier.batches.get()).isEqualTo(1);
        assertThat(leftover.batches.get()).isZero();
        assertThat(earlier.isReady()).isFalse();
        assertThat(leftover.isReady()).isFalse();
        assertThat(relay.metrics().errors(ErrorKind.SUPERSEDED).get()).isEqualTo(2);
    }

    @Test
    void partitionsNobodyOwnsAreNackedNoSubscriberAtOnce() throws Exception {
        relay = TestRelay.start(TestRelay.egress("relay-b1"));
        TestSubscriber share0 = subscriber("sink-0", 0, 2);
        TestSender sender = sender("source-0");

        for (int partition = 0; partition < 8; partition++) {
            sender.send("orders", partition, 1, 10);
        }
        await("8 answers").atMost(WAIT).until(() -> sender.outcomes.size() == 8);

        long owned = share0.batches.get();
        assertThat(sender.oks()).isEqualTo(owned);
        assertThat(sender.nacks(AckReason.NO_SUBSCRIBER)).isEqualTo(8 - owned).isPositive();
        assertThat(relay.metrics().nacks(NackReason.NO_SUBSCRIBER).get()).isEqualTo(8 - owned);
    }

    @Test
    void anIngressThatIsItsOwnEgressSendsReceiptsOnlyForBatchesAnOwnerTakes() throws Exception {
        relay = TestRelay.start(TestRelay.egress("relay-b1"));
        TestSubscriber share0 = subscriber("sink-0", 0, 2);
        share0.autoAck = false;
        TestSender sender = keep(new TestSender("source-0", relay.data(), clients, null, true));
        await("source-0 ready").atMost(WAIT).until(sender::isReady);

        for (int partition = 0; partition < 8; partition++) {
            sender.send("orders", partition, 1, 10);
        }
        long owned = 8 - ownersOf(1, 8);
        assertThat(owned).as("share 0 owns some partitions and not all").isBetween(1L, 7L);
        await("a receipt for every owned batch").atMost(WAIT).until(() -> sender.receipts.size() == owned);
        await("NO_SUBSCRIBER for the others").atMost(WAIT).until(() -> sender.outcomes.size() == 8 - owned);
        assertThat(sender.outcomes.values()).allSatisfy(a -> assertThat(a.reason()).isEqualTo(AckReason.NO_SUBSCRIBER));

        // a receipt leaves when the egress writes the batch, which can be before the subscriber reads it
        await("every owned batch at share 0").atMost(WAIT).until(() -> share0.batches.get() == owned);
        assertThat(share0.ackHeld()).isEqualTo((int) owned);
        await("every answer").atMost(WAIT).until(() -> sender.outcomes.size() == 8);
        assertThat(sender.oks()).isEqualTo(owned);
        assertThat(sender.receipts.values()).containsOnly(1);
        assertThat(sender.receiptsAfterAnswer).isEmpty();
        assertThat(sender.receipts.keySet()).allSatisfy(id -> assertThat(sender.outcomes.get(id).isOk()).isTrue());
    }

    /** How many of partitions 0..count-1 of "orders" share {@code share} of two owns. */
    private static long ownersOf(int share, int count) {
        long owned = 0;
        for (int partition = 0; partition < count; partition++) {
            if (Shares.owner("orders", partition, 2) == share) {
                owned++;
            }
        }
        return owned;
    }

    @Test
    void unknownDestinationIsNacked() throws Exception {
        relay = TestRelay.start(TestRelay.config("relay-x"));
        TestSender sender = sender("source-0");

        sender.send("orders", 0, 1, 10);
        await("an answer").atMost(WAIT).until(() -> sender.outcomes.size() == 1);

        assertThat(sender.nacks(AckReason.UNKNOWN_DESTINATION)).isEqualTo(1);
        assertThat(relay.metrics().errors(ErrorKind.UNKNOWN_DESTINATION).get()).isEqualTo(1);
    }

    @Test
    void topicMetadataReachesEverySubscriberAndTheFirstAckIsRelayed() throws Exception {
        relay = TestRelay.start(TestRelay.egress("relay-b1"));
        TestSubscriber share0 = subscriber("sink-0", 0, 2);
        TestSubscriber share1 = subscriber("sink-1", 1, 2);
        TestSender sender = sender("source-0");

        TopicMetadataFrame metadata = new TopicMetadataFrame(RoutingHeader.unrouted(TestRelay.STREAM, 99, "source-0",
                TestRelay.DESTINATION), "orders", 8, Map.of("cleanup.policy", "delete"));
        assertThat(sender.client().send(metadata)).isTrue();
        sender.sent.add(99L);

        await("both copies delivered").atMost(WAIT)
                .until(() -> share0.metadata.size() == 1 && share1.metadata.size() == 1);
        await("the ack").atMost(WAIT).until(() -> sender.outcomes.containsKey(99L));
        assertThat(sender.outcomes.get(99L).isOk()).isTrue();
        await("every copy answered").atMost(WAIT).until(() -> relay.bufferedBytes() == 0);
        assertThat(sender.extraAnswers).as("the second ACK is dropped").isEmpty();
        assertThat(relay.metrics().errors(ErrorKind.UNKNOWN_ACK).get()).as("silently").isZero();
    }

    @Test
    void drainingRelayNacksNewBatchesOverloadedAndWaitsForThoseInFlight() throws Exception {
        relay = TestRelay.start(TestRelay.egress("relay-b1"));
        TestSubscriber subscriber = subscriber("sink-0", 0, 1);
        subscriber.autoAck = false;
        TestSender sender = sender("source-0");
        long inFlight = sender.send("orders", 0, 1, 10);
        await("delivered, not acked").atMost(WAIT).until(() -> subscriber.batches.get() == 1);

        CompletableFuture<Boolean> drained = CompletableFuture.supplyAsync(
                () -> relay.server().shutdownGracefully(Duration.ofSeconds(10)));
        await("draining").atMost(WAIT).until(() -> relay.server().health().status().name().equals("DRAINING"));
        long refused = sender.send("orders", 0, 1, 10);
        await("the new batch answered").atMost(WAIT).until(() -> sender.outcomes.containsKey(refused));
        assertThat(sender.outcomes.get(refused).reason()).isEqualTo(AckReason.OVERLOADED);
        assertThat(relay.metrics().nacks(NackReason.DRAINING).get()).isEqualTo(1);
        assertThat(drained).as("still waiting for the batch in flight").isNotDone();

        assertThat(subscriber.ackHeld()).isEqualTo(1);

        assertThat(drained.get(10, TimeUnit.SECONDS)).as("drained").isTrue();
        // the relay has written the ACK when it finishes draining; the sender reads it a moment later
        await("the batch in flight answered").atMost(WAIT).until(() -> sender.outcomes.containsKey(inFlight));
        assertThat(sender.outcomes.get(inFlight).isOk()).isTrue();
    }
}
