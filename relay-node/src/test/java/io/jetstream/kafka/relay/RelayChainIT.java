package io.jetstream.kafka.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.Shares;
import io.jetstream.kafka.core.testing.LeakChecks;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.RoleLabel;
import io.jetstream.kafka.relay.testing.TestPki;
import io.jetstream.kafka.relay.testing.TestRelay;
import io.jetstream.kafka.relay.testing.TestSender;
import io.jetstream.kafka.relay.testing.TestSubscriber;
import io.jetstream.kafka.transport.ClientTls;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.ssl.SslContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three relays in a chain over real loopback sockets, as configured for a deployment:
 * {@code relay-a1} (ingress, route {@code via-c1} = [c1, b1]) → {@code relay-c1} (intermediate,
 * no routes of its own) → {@code relay-b1} (egress), with a connector stand-in sending at a1 and
 * two subscribing at b1 (shares 0/2 and 1/2).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RelayChainIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 12;
    private static EventLoopGroup clients;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private TestRelay a1;
    private TestRelay c1;
    private TestRelay b1;

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
    }

    private <T extends AutoCloseable> T keep(T closeable) {
        closeables.add(closeable);
        return closeable;
    }

    /** Starts b1, c1, a1 (in that order, so each knows the next one's port) with extra settings for all three. */
    private void startChain(Map<String, Object> extra) throws IOException {
        Map<String, Object> egress = TestRelay.egress("relay-b1");
        egress.putAll(extra);
        b1 = keep(TestRelay.start(egress));
        Map<String, Object> intermediate = TestRelay.config("relay-c1");
        intermediate.put(RelayConfig.NEXT_HOPS_ALLOWED, b1.hop()); // no routes of its own: it names its next hop
        intermediate.putAll(extra);
        c1 = keep(TestRelay.start(intermediate));
        Map<String, Object> ingress = TestRelay.route(TestRelay.config("relay-a1"), "via-c1",
                List.of(c1.hop(), b1.hop()));
        ingress.putAll(extra);
        a1 = keep(TestRelay.start(ingress));
    }

    private TestSender sender() {
        TestSender sender = new TestSender("source-task-0", a1.data(), clients);
        closeables.add(0, sender);
        await("sender ready").atMost(WAIT).until(sender::isReady);
        return sender;
    }

    private TestSubscriber subscriber(String id, int share, int shares) {
        TestSubscriber subscriber = new TestSubscriber(id, b1.data(), share, shares, clients);
        closeables.add(0, subscriber);
        await(id + " ready").atMost(WAIT).until(subscriber::isReady);
        return subscriber;
    }

    @Test
    void theEgressReceiptReachesASenderThatAskedBeforeTheAnswerAndNoOtherSender() throws Exception {
        startChain(Map.of());
        TestSubscriber share0 = subscriber("sink-task-0", 0, 1);
        share0.autoAck = false; // the destination holds its answers: only receipts can come back
        TestSender asking = new TestSender("source-task-0", a1.data(), clients, null, true);
        closeables.add(0, asking);
        TestSender plain = new TestSender("source-task-1", a1.data(), clients, null, false);
        closeables.add(0, plain);
        await("senders ready").atMost(WAIT).until(() -> asking.isReady() && plain.isReady());

        int batches = 50;
        for (int i = 0; i < batches; i++) {
            assertThat(asking.send(TOPIC, i % PARTITIONS, 5, 100)).isNotNegative();
            assertThat(plain.send("payments", i % PARTITIONS, 5, 100)).isNotNegative();
        }
        await("a receipt for every batch of the asking sender").atMost(WAIT)
                .until(() -> asking.receipts.size() == batches);
        await("every batch at the subscriber").atMost(WAIT).until(() -> share0.batches.get() == 2 * batches);
        assertThat(asking.outcomes).as("no answer yet: the destination holds them").isEmpty();
        // the ingress's route scheduler (adaptive, the default) counts carried batches off the route
        await("the route's queue empty at the ingress while the answers are held").atMost(WAIT)
                .until(() -> a1.metrics().scrape().contains(
                        "jetstream_relay_route_inflight_bytes{destination=\"" + TestRelay.DESTINATION
                                + "\",route=\"via-c1\"} 0"));
        assertThat(a1.metrics().scrape()).as("what waits at the destination").doesNotContain(
                "jetstream_relay_route_awaiting_answer_bytes{destination=\"" + TestRelay.DESTINATION
                        + "\",route=\"via-c1\"} 0");

        assertThat(share0.ackHeld()).isEqualTo(2 * batches);
        await("every answer").atMost(WAIT)
                .until(() -> asking.outcomes.size() == batches && plain.outcomes.size() == batches);
        assertThat(asking.oks()).isEqualTo(batches);
        assertThat(plain.oks()).isEqualTo(batches);
        assertThat(asking.receipts.values()).as("one receipt per batch").containsOnly(1);
        assertThat(asking.receiptsAfterAnswer).isEmpty();
        assertThat(plain.receipts).as("a sender that did not ask gets none").isEmpty();
        assertThat(asking.extraAnswers).isEmpty();
        assertThat(a1.metrics().errors(ErrorKind.UNKNOWN_ACK).get()).isZero();
        assertThat(c1.metrics().errors(ErrorKind.UNKNOWN_ACK).get()).isZero();
        await("budgets back to zero").atMost(WAIT)
                .until(() -> a1.bufferedBytes() == 0 && c1.bufferedBytes() == 0 && b1.bufferedBytes() == 0);
    }

    @Test
    void batchesCrossTheChainInPartitionOrderAndEveryAckReachesTheOrigin() throws Exception {
        startChain(Map.of());
        TestSubscriber share0 = subscriber("sink-task-0", 0, 2);
        TestSubscriber share1 = subscriber("sink-task-1", 1, 2);
        TestSender sender = sender();

        int batches = 1_200;
        for (int i = 0; i < batches; i++) {
            while (!sender.isWritable()) {
                LockSupport.parkNanos(100_000);
            }
            assertThat(sender.send(TOPIC, i % PARTITIONS, 10, 200)).isNotNegative();
        }
        await("an answer for every batch").atMost(WAIT)
                .until(() -> sender.outcomes.size() == batches || !sender.disconnects.isEmpty());

        assertThat(sender.disconnects).as("the sender's connection stayed up").isEmpty();
        assertThat(sender.oks()).isEqualTo(batches);
        assertThat(sender.extraAnswers).isEmpty();
        assertThat(share0.batches.get() + share1.batches.get()).isEqualTo(batches);
        assertThat(share0.orderViolations()).isEmpty();
        assertThat(share1.orderViolations()).isEmpty();
        share0.received.forEach((partition, headers) ->
                assertThat(Shares.owner(TOPIC, headers.get(0).partition(), 2)).isZero());
        share1.received.forEach((partition, headers) ->
                assertThat(Shares.owner(TOPIC, headers.get(0).partition(), 2)).isEqualTo(1));
        BatchHeader header = share0.received.values().iterator().next().get(0);
        assertThat(header.routing().path()).containsExactly("relay-a1", c1.hop(), b1.hop());
        assertThat(header.routing().hopIndex()).isEqualTo(2);

        for (TestRelay relay : List.of(a1, c1, b1)) {
            await(relay + " holds nothing").atMost(WAIT).until(() -> relay.bufferedBytes() == 0);
            assertThat(relay.metrics().acks().get()).isEqualTo(batches);
        }
        assertThat(a1.metrics().route(TestRelay.DESTINATION, "via-c1").batchesOut().get()).isEqualTo(batches);
        assertThat(a1.metrics().connections(RoleLabel.RELAY_OUT).get()).isEqualTo(1);
        assertThat(c1.metrics().connections(RoleLabel.RELAY_IN).get()).isEqualTo(1);
        assertThat(c1.metrics().connections(RoleLabel.RELAY_OUT).get()).isEqualTo(1);
        assertThat(b1.metrics().connections(RoleLabel.SINK_TASK).get()).isEqualTo(2);
        assertThat(c1.metrics().scrape()).contains("route=\"relay-a1>" + c1.hop() + ">" + b1.hop() + "\"");
    }

    @Test
    void relaysAndTasksTalkMutualTlsAlongTheChain(@TempDir Path dir) throws Exception {
        TestPki pki = new TestPki(dir);
        Map<String, Object> b1Tls = tls(pki, "relay-b1");
        b1 = keep(TestRelay.start(withAll(TestRelay.egress("relay-b1"), b1Tls)));
        String b1Hop = "localhost:" + b1.data().getPort();
        a1 = keep(TestRelay.start(withAll(TestRelay.route(TestRelay.config("relay-a1"), "direct", List.of(b1Hop)),
                tls(pki, "relay-a1"))));
        TestPki.PemPair task = pki.relay("task", "task.test");
        SslContext clientTls = ClientTls.sslContext(Optional.of(pki.caFile()), Optional.of(task.cert()),
                Optional.of(task.key()));
        InetSocketAddress a1Address = InetSocketAddress.createUnresolved("localhost", a1.data().getPort());
        InetSocketAddress b1Address = InetSocketAddress.createUnresolved("localhost", b1.data().getPort());
        TestSubscriber subscriber = keep(new TestSubscriber("sink-task-0", b1Address, 0, 1, clients, clientTls));
        TestSender sender = keep(new TestSender("source-task-0", a1Address, clients, clientTls));
        await("clients ready over TLS").atMost(WAIT).until(() -> subscriber.isReady() && sender.isReady());

        for (int i = 0; i < 50; i++) {
            sender.send(TOPIC, i % 3, 5, 100);
        }
        await("50 acks").atMost(WAIT).until(() -> sender.oks() == 50);

        assertThat(subscriber.orderViolations()).isEmpty();
        assertThat(a1.metrics().connections(RoleLabel.RELAY_OUT).get()).as("a1 -> b1 over mutual TLS")
                .isEqualTo(1);
    }

    @Test
    void rolesBoundToCertificatesServeOnlyPeersWhoseCertificateCarriesThem(@TempDir Path dir) throws Exception {
        TestPki pki = new TestPki(dir);
        // b1: only sink-b's certificate may subscribe, only relay-a1's may forward
        Map<String, Object> b1Config = withAll(TestRelay.egress("relay-b1"), tls(pki, "relay-b1"));
        b1Config.put("streams." + TestRelay.STREAM + ".subscriber.identities", List.of("cn:sink-b"));
        b1Config.put("streams." + TestRelay.STREAM + ".relay.identities", List.of("cn:relay-a1"));
        b1 = keep(TestRelay.start(b1Config));
        // a1: only the source workload's SPIFFE id may send
        Map<String, Object> a1Config = withAll(TestRelay.route(TestRelay.config("relay-a1"), "direct",
                List.of("localhost:" + b1.data().getPort())), tls(pki, "relay-a1"));
        a1Config.put("streams." + TestRelay.STREAM + ".sender.identities",
                List.of("uri:spiffe://test/jetstream/source"));
        a1 = keep(TestRelay.start(a1Config));
        InetSocketAddress a1Address = InetSocketAddress.createUnresolved("localhost", a1.data().getPort());
        InetSocketAddress b1Address = InetSocketAddress.createUnresolved("localhost", b1.data().getPort());
        SslContext intruder = clientTls(pki, pki.peer("intruder", "uri:spiffe://test/jetstream/sink"));

        // The right token over a certificate the CA signed, but not one the role is bound to: refused.
        TestSubscriber strangerSubscriber = keep(new TestSubscriber("sink-task-0", b1Address, 0, 1, clients,
                intruder));
        TestSender strangerSender = keep(new TestSender("source-task-0", a1Address, clients, intruder));
        await("both intruders refused").atMost(WAIT)
                .until(() -> b1.metrics().errors(ErrorKind.AUTHENTICATION_FAILED).get() >= 1
                        && a1.metrics().errors(ErrorKind.AUTHENTICATION_FAILED).get() >= 1);
        assertThat(strangerSubscriber.isReady()).isFalse();
        assertThat(strangerSender.isReady()).isFalse();
        assertThat(b1.metrics().connections(RoleLabel.SINK_TASK).get()).isZero();
        assertThat(a1.metrics().connections(RoleLabel.SOURCE_TASK).get()).isZero();

        // The bound certificates are served, and a1 (cn:relay-a1) may forward to b1.
        TestSubscriber subscriber = keep(new TestSubscriber("sink-task-0", b1Address, 0, 1, clients,
                clientTls(pki, pki.peer("sink-b"))));
        TestSender sender = keep(new TestSender("source-task-0", a1Address, clients,
                clientTls(pki, pki.peer("source-a", "uri:spiffe://test/jetstream/source"))));
        await("bound peers ready").atMost(WAIT).until(() -> subscriber.isReady() && sender.isReady());
        for (int i = 0; i < 20; i++) {
            sender.send(TOPIC, i % 3, 5, 100);
        }
        await("20 acks").atMost(WAIT).until(() -> sender.oks() == 20);
        assertThat(subscriber.orderViolations()).isEmpty();
    }

    private static SslContext clientTls(TestPki pki, TestPki.PemPair pair) throws Exception {
        return ClientTls.sslContext(Optional.of(pki.caFile()), Optional.of(pair.cert()), Optional.of(pair.key()));
    }

    private static Map<String, Object> tls(TestPki pki, String relayId) throws Exception {
        TestPki.PemPair pair = pki.relay(relayId, "localhost");
        return Map.of("tls.enabled", true, "tls.cert.file", pair.cert().toString(), "tls.key.file",
                pair.key().toString(), "tls.ca.file", pki.caFile().toString(), "tls.client.auth", "required",
                "listener.host", "localhost");
    }

    private static Map<String, Object> withAll(Map<String, Object> props, Map<String, Object> extra) {
        props.putAll(extra);
        return props;
    }

    @Test
    void partitionsWithoutSubscriberAreNackedNoSubscriberAtTheOrigin() throws Exception {
        startChain(Map.of());
        TestSubscriber share0 = subscriber("sink-task-0", 0, 2);
        TestSender sender = sender();

        for (int partition = 0; partition < PARTITIONS; partition++) {
            sender.send(TOPIC, partition, 1, 10);
        }
        await("an answer for every batch").atMost(WAIT).until(() -> sender.outcomes.size() == PARTITIONS);

        long orphaned = java.util.stream.IntStream.range(0, PARTITIONS)
                .filter(p -> Shares.owner(TOPIC, p, 2) == 1).count();
        assertThat(sender.nacks(AckReason.NO_SUBSCRIBER)).isEqualTo(orphaned).isPositive();
        assertThat(sender.oks()).isEqualTo(PARTITIONS - orphaned).isEqualTo(share0.batches.get());
    }

    @Test
    void slowSubscriberKeepsEveryRelayWithinItsBufferBoundAndStallsTheSender() throws Exception {
        long relayBudget = 1_048_576;
        startChain(Map.of("buffer.max.bytes", relayBudget, "buffer.max.bytes.per.connection", 262_144,
                "frame.max.bytes", 65_536));
        TestSubscriber slow = subscriber("sink-task-0", 0, 1);
        TestSender sender = sender();
        slow.client().pauseReading();

        AtomicBoolean sampling = new AtomicBoolean(true);
        AtomicLong maxHeld = new AtomicLong();
        CompletableFuture<Void> sampler = CompletableFuture.runAsync(() -> {
            while (sampling.get()) {
                for (TestRelay relay : List.of(a1, c1, b1)) {
                    maxHeld.accumulateAndGet(relay.bufferedBytes(), Math::max);
                }
                LockSupport.parkNanos(200_000);
            }
        });

        // Send as long as the sender's connection takes more: it must stop taking, while the subscriber sleeps.
        long offered = 0;
        long stalledSince = -1;
        while (offered < 64L << 20) {
            if (sender.isWritable()) {
                sender.send(TOPIC, (int) (offered / 16_000) % PARTITIONS, 16, 1_000);
                offered += 16_000;
                stalledSince = -1;
            } else if (stalledSince < 0) {
                stalledSince = System.nanoTime();
            } else if (System.nanoTime() - stalledSince > TimeUnit.SECONDS.toNanos(1)) {
                break;
            } else {
                LockSupport.parkNanos(1_000_000);
            }
        }
        assertThat(offered).as("the sender was stalled long before 64 MiB").isLessThan(64L << 20);
        assertThat(sender.unanswered()).as("batches held somewhere on the path").isPositive();
        for (TestRelay relay : List.of(a1, c1, b1)) {
            assertThat(relay.bufferedBytes()).as(relay + " buffered").isLessThanOrEqualTo(relayBudget);
        }

        slow.client().resumeReading();
        await("every batch answered").atMost(WAIT).until(() -> sender.unanswered() == 0);
        sampling.set(false);
        sampler.get(5, TimeUnit.SECONDS);

        assertThat(maxHeld.get()).as("most bytes any relay held").isPositive().isLessThanOrEqualTo(relayBudget);
        assertThat(sender.oks()).as(() -> "answers other than OK: " + sender.outcomes.values().stream()
                .filter(a -> !a.isOk()).collect(java.util.stream.Collectors.groupingBy(a -> a.reason() + ": " + a.message(),
                        java.util.stream.Collectors.counting()))).isEqualTo(sender.sent.size());
        assertThat(slow.orderViolations()).isEmpty();
    }

    @Test
    void killingTheIntermediateNacksEveryUnacknowledgedBatchAtTheOrigin() throws Exception {
        startChain(Map.of("ack.timeout.ms", 3_000));
        subscriber("sink-task-0", 0, 2);
        subscriber("sink-task-1", 1, 2);
        TestSender sender = sender();

        AtomicBoolean sending = new AtomicBoolean(true);
        CompletableFuture<Void> traffic = CompletableFuture.runAsync(() -> {
            int i = 0;
            while (sending.get()) {
                if (sender.isWritable()) {
                    sender.send(TOPIC, i++ % PARTITIONS, 5, 500);
                } else {
                    LockSupport.parkNanos(200_000);
                }
            }
        });
        await("traffic flowing").atMost(WAIT).until(() -> sender.oks() > 300);

        c1.server().shutdownNow();
        long sentAtKill = sender.sent.size();
        await("more batches offered after the kill").atMost(WAIT).until(() -> sender.sent.size() > sentAtKill + 200);
        sending.set(false);
        traffic.get(10, TimeUnit.SECONDS);

        await("an answer for every batch").atMost(WAIT).until(() -> sender.unanswered() == 0);
        List<AckFrame> nacks = sender.outcomes.values().stream().filter(a -> !a.isOk()).toList();
        assertThat(nacks).as("batches caught by the kill").isNotEmpty();
        // shutdownNow() is a forceful close, but in the instant between reporting DRAINING and closing
        // its connections c1 still answers what reaches it with OVERLOADED ("go elsewhere"): retriable too.
        assertThat(nacks).allSatisfy(nack -> assertThat(nack.reason())
                .isIn(AckReason.NEXT_HOP_UNREACHABLE, AckReason.TIMEOUT, AckReason.OVERLOADED));
        assertThat(nacks).anySatisfy(nack -> assertThat(nack.reason()).isEqualTo(AckReason.NEXT_HOP_UNREACHABLE));
        assertThat(sender.extraAnswers).as("one answer per batch").isEmpty();
        await("a1 holds nothing").atMost(WAIT).until(() -> a1.bufferedBytes() == 0);
    }
}
