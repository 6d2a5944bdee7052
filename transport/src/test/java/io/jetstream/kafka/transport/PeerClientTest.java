package io.jetstream.kafka.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.FrameMac;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.ProtocolVersion;
import io.jetstream.kafka.core.protocol.SubscribeFrame;
import io.jetstream.kafka.core.testing.LeakChecks;
import io.jetstream.kafka.transport.testing.FakeRelay;
import io.jetstream.kafka.transport.testing.FakeRelay.Mode;
import io.jetstream.kafka.transport.testing.TestFrames;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The client against a small fake relay over real loopback sockets. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PeerClientTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static EventLoopGroup group;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final Recorder recorder = new Recorder();

    @BeforeAll
    static void startLoops() {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stopLoops() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        LeakChecks.assertNoLeaks();
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
    }

    private FakeRelay relay(Mode mode) {
        FakeRelay relay = new FakeRelay(group, mode, null);
        closeables.add(relay);
        return relay;
    }

    private PeerClient client(PeerClientConfig config) {
        PeerClient client = new PeerClient(config, group, recorder);
        closeables.add(0, client);
        return client;
    }

    private static PeerClientConfig.Builder config(InetSocketAddress relay, PeerRole role) {
        return PeerClientConfig.builder(relay, role, "task-1", "demo", "secret-token-0123")
                .connectTimeout(Duration.ofSeconds(2))
                .heartbeatInterval(Duration.ofMillis(100))
                .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(200))
                .maxFrameBytes(1 << 20);
    }

    /** Records what the client reports; releases every frame it is handed. */
    static final class Recorder implements PeerClient.Listener {
        final AtomicInteger ready = new AtomicInteger();
        final List<Frame> frames = new CopyOnWriteArrayList<>();
        final List<Throwable> disconnects = new CopyOnWriteArrayList<>();

        @Override
        public void onReady(PeerClient client) {
            ready.incrementAndGet();
        }

        @Override
        public void onFrame(PeerClient client, Frame frame) {
            frames.add(frame);
            ReferenceCountUtil.release(frame);
        }

        @Override
        public void onDisconnected(PeerClient client, Throwable cause) {
            disconnects.add(cause == null ? new Exception("clean close") : cause);
        }

        long acks() {
            return frames.stream().filter(AckFrame.class::isInstance).count();
        }
    }

    @Test
    void macFieldsAreOfferedAndUsedOnlyWhenTheRelayTakesTheOffer() throws Exception {
        byte[] macBytes = new byte[FrameMac.LENGTH];
        java.util.Arrays.fill(macBytes, (byte) 7);
        FrameMac mac = FrameMac.of(macBytes);
        FrameMac[] acked = new FrameMac[2];
        for (boolean takes : new boolean[] {false, true}) {
            FakeRelay relay = relay(Mode.ACCEPT);
            relay.takesMacs = takes;
            PeerClient client = client(config(relay.start(0), PeerRole.SENDER).build());
            client.start();
            await("ready").atMost(WAIT).until(client::isReady);
            assertThat(relay.hellos).singleElement().satisfies(hello -> assertThat(hello.offersMacs()).isTrue());
            assertThat(client.macs()).as("relay takes MACs: %s", takes).isEqualTo(takes);

            BatchFrame batch = TestFrames.small(1, ByteBufAllocator.DEFAULT);
            assertThat(client.send(batch.withMac(mac))).isTrue();
            await("the ack").atMost(WAIT).until(() -> recorder.acks() == (takes ? 2 : 1));
            assertThat(relay.batchMacs).singleElement().isEqualTo(takes ? mac : FrameMac.NONE);
            acked[takes ? 1 : 0] = ((AckFrame) recorder.frames.stream().filter(AckFrame.class::isInstance)
                    .reduce((a, b) -> b).orElseThrow()).mac();
            client.close();
        }
        assertThat(acked[0]).as("dropped on a hop without the fields").isEqualTo(FrameMac.NONE);
        assertThat(acked[1]).as("carried back where both sides use them").isEqualTo(mac);
    }

    @Test
    void aClientThatDoesNotOfferMacsNeverGetsThemEvenFromARelayThatTakesThem() throws Exception {
        FakeRelay relay = relay(Mode.ACCEPT);
        relay.takesMacs = true;
        PeerClient client = client(config(relay.start(0), PeerRole.SENDER).macs(false).build());
        client.start();
        await("ready").atMost(WAIT).until(client::isReady);
        assertThat(relay.hellos).singleElement().satisfies(hello -> assertThat(hello.offersMacs()).isFalse());
        assertThat(client.macs()).isFalse();
        assertThat(client.send(TestFrames.small(1, ByteBufAllocator.DEFAULT))).isTrue();
        await("the ack").atMost(WAIT).until(() -> recorder.acks() == 1);
        assertThat(relay.batchIds).containsExactly(1L);
    }

    @Test
    void senderHandshakesSendsAndReceivesAcksAndMeasuresRtt() throws Exception {
        FakeRelay relay = relay(Mode.ACCEPT);
        PeerClient client = client(config(relay.start(0), PeerRole.SENDER).build());

        assertThat(client.send(TestFrames.small(1, ByteBufAllocator.DEFAULT))).as("not ready before start").isFalse();
        client.start();
        await("ready").atMost(WAIT).until(client::isReady);

        assertThat(relay.hellos).singleElement().satisfies(hello -> {
            assertThat(hello.version()).isEqualTo(ProtocolVersion.CURRENT);
            assertThat(hello.role()).isEqualTo(PeerRole.SENDER);
            assertThat(hello.nodeId()).isEqualTo("task-1");
            assertThat(hello.streamId()).isEqualTo("demo");
            assertThat(hello.authToken()).isEqualTo("secret-token-0123");
        });
        assertThat(client.peerNodeId()).isEqualTo("fake-relay");
        assertThat(client.peerMaxFrameBytes()).isEqualTo(1 << 20);
        assertThat(recorder.ready).hasValue(1);

        for (long id = 1; id <= 100; id++) {
            assertThat(client.send(TestFrames.small(id, ByteBufAllocator.DEFAULT))).isTrue();
        }
        await("100 acks").atMost(WAIT).until(() -> recorder.acks() == 100);
        assertThat(relay.batchIds).containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(1, 100).boxed()
                .toList());
        await("an RTT sample").atMost(WAIT).until(() -> client.rtt().compareTo(Duration.ZERO) > 0);
        assertThat(client.rtt()).isLessThan(Duration.ofSeconds(1));
        assertThat(client.bytesSent()).isPositive();
        assertThat(client.bytesReceived()).isPositive();
        assertThat(client.isWritable()).isTrue();
    }

    @Test
    void subscriberIsReadyOnlyAfterSubscribeOk() throws Exception {
        FakeRelay relay = relay(Mode.ACCEPT);
        SubscribeFrame share = new SubscribeFrame("demo", "sink-task-0", 0, 2);
        PeerClient client = client(config(relay.start(0), PeerRole.SUBSCRIBER).subscription(share).build());

        client.start();
        await("ready").atMost(WAIT).until(client::isReady);

        assertThat(relay.subscriptions).containsExactly(share);
        relay.broadcast(TestFrames.small(5, ByteBufAllocator.DEFAULT));
        await("the batch").atMost(WAIT).until(() -> recorder.frames.stream().anyMatch(BatchFrame.class::isInstance));
    }

    @Test
    void aSubscriberTakesFramesOfManyPartitions() throws Exception {
        FakeRelay relay = relay(Mode.ACCEPT);
        PeerClient client = client(config(relay.start(0), PeerRole.SUBSCRIBER)
                .subscription(new SubscribeFrame("demo", "sink-0", 0, 1)).build());
        client.start();
        await("ready").atMost(WAIT).until(client::isReady);
        BatchFrame first = TestFrames.small(1, ByteBufAllocator.DEFAULT);
        BatchFrame second = TestFrames.small(2, ByteBufAllocator.DEFAULT);
        BatchesFrame frame = BatchesFrame.of(first.header().routing(), 0, List.of(first, second),
                ByteBufAllocator.DEFAULT);
        first.release();
        second.release();

        relay.broadcast(frame);

        await("the frame").atMost(WAIT).until(() -> recorder.frames.stream().anyMatch(BatchesFrame.class::isInstance));
        assertThat(recorder.disconnects).isEmpty();
    }

    @Test
    void oversizedFrameOfManyPartitionsIsRefusedAndReleased() throws Exception {
        FakeRelay relay = relay(Mode.ACCEPT);
        PeerClient client = client(config(relay.start(0), PeerRole.SENDER).maxFrameBytes(4096).build());
        client.start();
        await("ready").atMost(WAIT).until(client::isReady);
        List<BatchFrame> sections = new java.util.ArrayList<>();
        for (int p = 0; p < 4; p++) {
            sections.add(TestFrames.batch("demo", 1, "o", "d", "t", p, -1, 4, 300, ByteBufAllocator.DEFAULT));
        }
        BatchesFrame big = BatchesFrame.of(sections.get(0).header().routing(), 0, sections, ByteBufAllocator.DEFAULT);
        sections.forEach(BatchFrame::release);

        assertThatThrownBy(() -> client.send(big)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("do not fit");
        assertThat(big.refCnt()).isZero();
        assertThat(client.isReady()).as("the connection stays up").isTrue();
    }

    @Test
    void reconnectsAfterTheRelayRestartsOnTheSamePort() throws Exception {
        FakeRelay relay = relay(Mode.ACCEPT);
        InetSocketAddress address = relay.start(0);
        PeerClient client = client(config(address, PeerRole.SENDER).build());
        client.start();
        await("ready").atMost(WAIT).until(client::isReady);

        relay.stop();
        await("not ready").atMost(WAIT).until(() -> !client.isReady());
        await("disconnect reported").atMost(WAIT).until(() -> !recorder.disconnects.isEmpty());
        BatchFrame frame = TestFrames.small(1, ByteBufAllocator.DEFAULT);
        assertThat(client.send(frame)).isFalse();
        assertThat(frame.refCnt()).as("released when not sent").isZero();

        relay.start(address.getPort());
        await("ready again").atMost(WAIT).until(client::isReady);
        assertThat(recorder.ready).hasValue(2);
        assertThat(client.send(TestFrames.small(2, ByteBufAllocator.DEFAULT))).isTrue();
        await("ack after reconnect").atMost(WAIT).until(() -> recorder.acks() == 1);
    }

    @Test
    void rejectedHandshakeIsReportedAndRetriedWithBackoff() throws Exception {
        FakeRelay relay = relay(Mode.REJECT);
        PeerClient client = client(config(relay.start(0), PeerRole.SENDER).build());

        client.start();
        await("three rejected attempts").atMost(WAIT).until(() -> relay.hellos.size() >= 3);

        assertThat(client.isReady()).isFalse();
        assertThat(recorder.ready).hasValue(0);
        assertThat(recorder.frames).first().isEqualTo(ErrorFrame.of(ErrorCode.AUTHENTICATION_FAILED, "bad token"));
        await("disconnects reported").atMost(WAIT).until(() -> recorder.disconnects.size() >= 2);
        assertThat(recorder.disconnects.get(0)).isInstanceOfSatisfying(PeerRejectedException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.AUTHENTICATION_FAILED));

        relay.mode(Mode.ACCEPT);
        await("accepted once the relay accepts").atMost(WAIT).until(client::isReady);
    }

    @Test
    void keepsReconnectingToARelayThatHangsUp() throws Exception {
        FakeRelay relay = relay(Mode.HANG_UP);
        PeerClient client = client(config(relay.start(0), PeerRole.SENDER)
                .reconnectBackoff(Duration.ofMillis(5), Duration.ofMillis(80)).build());

        client.start();
        // The waits themselves are PeerClientConfig.reconnectBackoffPolicy() (PeerClientConfigTest).
        await("12 attempts").atMost(WAIT).until(() -> relay.acceptedAtNanos.size() >= 12);
        assertThat(client.isReady()).isFalse();
        assertThat(recorder.ready).hasValue(0);
    }

    @Test
    void silentRelayIsTakenForDeadAfterThreeHeartbeats() throws Exception {
        FakeRelay relay = relay(Mode.SILENT_AFTER_HELLO);
        PeerClient client = client(config(relay.start(0), PeerRole.SENDER).build());

        client.start();
        await("ready").atMost(WAIT).until(client::isReady);
        await("declared dead").atMost(WAIT).until(() -> !recorder.disconnects.isEmpty());

        assertThat(recorder.disconnects.get(0)).isInstanceOf(TimeoutException.class)
                .hasMessageContaining("3 heartbeat intervals");
        await("reconnected").atMost(WAIT).until(() -> relay.hellos.size() >= 2);
    }

    @Test
    void handshakeThatNeverCompletesTimesOut() throws Exception {
        FakeRelay relay = relay(Mode.MUTE);
        PeerClient client = client(config(relay.start(0), PeerRole.SENDER).connectTimeout(Duration.ofMillis(150))
                .heartbeatInterval(Duration.ofSeconds(10)).build());

        client.start();
        await("handshake timeout").atMost(WAIT).until(() -> !recorder.disconnects.isEmpty());

        assertThat(recorder.disconnects.get(0)).isInstanceOf(TimeoutException.class).hasMessageContaining("handshake");
        assertThat(client.isReady()).isFalse();
    }

    @Test
    void pausedSubscriberIsNotTakenForDeadAndGetsEverythingOnResume() throws Exception {
        FakeRelay relay = relay(Mode.ACCEPT);
        PeerClient client = client(config(relay.start(0), PeerRole.SUBSCRIBER)
                .subscription(new SubscribeFrame("demo", "sink-0", 0, 1)).build());
        client.start();
        await("ready").atMost(WAIT).until(client::isReady);

        client.pauseReading();
        for (long id = 1; id <= 20; id++) {
            relay.broadcast(TestFrames.small(id, ByteBufAllocator.DEFAULT));
        }
        await("no disconnect while paused for six heartbeat intervals").during(Duration.ofMillis(600)).atMost(WAIT)
                .until(recorder.disconnects::isEmpty);

        client.resumeReading();
        await("all 20 batches").atMost(WAIT).until(() -> recorder.frames.size() == 20);
    }

    @Test
    void closeIsIdempotentAndStopsReconnecting() throws Exception {
        FakeRelay relay = relay(Mode.ACCEPT);
        PeerClient client = client(config(relay.start(0), PeerRole.SENDER).build());
        client.start();
        await("ready").atMost(WAIT).until(client::isReady);

        client.close();
        client.close();

        assertThat(client.isReady()).isFalse();
        await("connection closed").atMost(WAIT).until(() -> relay.openConnections() == 0);
        int attempts = relay.acceptedAtNanos.size();
        await("no attempt for longer than the longest backoff").during(Duration.ofMillis(500)).atMost(WAIT)
                .until(() -> relay.acceptedAtNanos.size() == attempts);
        assertThatThrownBy(client::start).isInstanceOf(IllegalStateException.class);
        BatchFrame frame = TestFrames.small(1, ByteBufAllocator.DEFAULT);
        assertThat(client.send(frame)).isFalse();
        assertThat(frame.refCnt()).isZero();
    }

    @Test
    void aRelayAnnouncingAFrameLimitBelowTheFloorIsNeverUsed() throws Exception {
        // A relay (or anyone posing as one) that claims it takes 4 KiB frames: a sender sizing records to
        // that claim would skip every record above it under errors.tolerance=all.
        FakeRelay relay = relay(Mode.ACCEPT);
        relay.announcedMaxFrameBytes = 4096;
        PeerClient client = client(config(relay.start(0), PeerRole.SENDER).minPeerMaxFrameBytes(1 << 20).build());
        client.start();
        await("refused twice (reconnects)").atMost(WAIT).until(() -> relay.hellos.size() >= 2
                && recorder.disconnects.size() >= 2);
        assertThat(recorder.ready).hasValue(0);
        assertThat(client.isReady()).isFalse();
        assertThat(client.peerMaxFrameBytes()).as("the claim is not taken").isZero();
        assertThat(recorder.disconnects.get(0)).hasMessageContaining("4096").hasMessageContaining("1048576");

        relay.announcedMaxFrameBytes = 1 << 20;
        await("ready once the relay announces enough").atMost(WAIT).until(client::isReady);
        assertThat(client.peerMaxFrameBytes()).isEqualTo(1 << 20);
    }

    @Test
    void theFloorLiesBetweenTheCodecsMinimumAndTheClientsOwnLimit() {
        assertThatThrownBy(() -> config(new InetSocketAddress("127.0.0.1", 1), PeerRole.SENDER)
                .minPeerMaxFrameBytes(512).build()).hasMessageContaining("minPeerMaxFrameBytes 512");
        assertThatThrownBy(() -> config(new InetSocketAddress("127.0.0.1", 1), PeerRole.SENDER)
                .minPeerMaxFrameBytes(2 << 20).build()).hasMessageContaining("maxFrameBytes");
        assertThat(config(new InetSocketAddress("127.0.0.1", 1), PeerRole.SENDER).build().minPeerMaxFrameBytes())
                .isEqualTo(1024);
    }

    @Test
    void oversizedBatchIsRefusedAndReleased() throws Exception {
        FakeRelay relay = relay(Mode.ACCEPT);
        PeerClient client = client(config(relay.start(0), PeerRole.SENDER).maxFrameBytes(4096).build());
        client.start();
        await("ready").atMost(WAIT).until(client::isReady);

        BatchFrame big = TestFrames.batch("demo", 1, "o", "d", "t", 0, -1, 8, 1000, ByteBufAllocator.DEFAULT);
        assertThatThrownBy(() -> client.send(big)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not fit");
        assertThat(big.refCnt()).isZero();
        assertThat(client.isReady()).as("the connection stays up").isTrue();
    }
}
