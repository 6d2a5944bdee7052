package io.jetstream.kafka.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.HelloFrame;
import io.jetstream.kafka.core.protocol.HelloOkFrame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.PingFrame;
import io.jetstream.kafka.core.protocol.SubscribeFrame;
import io.jetstream.kafka.core.protocol.SubscribeOkFrame;
import io.jetstream.kafka.core.protocol.codec.FrameCodec;
import io.jetstream.kafka.core.testing.LeakChecks;
import io.jetstream.kafka.relay.admin.DirectMemory;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.testing.TestBatches;
import io.jetstream.kafka.relay.testing.TestRelay;
import io.jetstream.kafka.relay.testing.TestSender;
import io.jetstream.kafka.relay.testing.TestSubscriber;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a holder of a stream's token can make a live relay do, over real loopback sockets, while the
 * stream's real tasks (test senders and subscribers) use it: a subscriber-token holder cannot take
 * a share silently, by another share count, nor keep it from a restarted task with an epoch from the
 * future; a sender-token holder cannot make held batches keep alive memory their budgets do not
 * count, nor grow the relay's metric series by reconnecting under new ids. Nothing leaks (PARANOID
 * leak detection).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RelayTokenHoldersIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final FrameCodec CODEC = new FrameCodec();
    private static final UnpooledByteBufAllocator HEAP = new UnpooledByteBufAllocator(false);
    private static final Logger log = LoggerFactory.getLogger(RelayTokenHoldersIT.class);
    private static final int HOLDERS = 8;
    /** What the relay charges a held frame beyond its bytes ({@code Frames.BOOKKEEPING_BYTES}). */
    private static final int BOOKKEEPING_BYTES = 512;

    private static EventLoopGroup clients;

    private final List<AutoCloseable> closeables = new ArrayList<>();

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
    void close() throws Exception {
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
    }

    private <T extends AutoCloseable> T keep(T closeable) {
        closeables.add(0, closeable);
        return closeable;
    }

    private TestRelay relay(Map<String, Object> props) throws IOException {
        return keep(TestRelay.start(props));
    }

    private TestSubscriber subscriber(TestRelay relay, String id, int share, int shares, long epoch) {
        TestSubscriber subscriber = keep(new TestSubscriber(id, relay.data(), share, shares, clients, epoch));
        await(id + " subscribed").atMost(WAIT).until(subscriber::isReady);
        return subscriber;
    }

    private TestSender sender(TestRelay relay) {
        TestSender sender = keep(new TestSender("source-0", relay.data(), clients));
        await("sender ready").atMost(WAIT).until(sender::isReady);
        return sender;
    }

    private static long errors(TestRelay relay, ErrorKind kind) {
        return (long) relay.metrics().errors(kind).get();
    }

    /** Sends one batch to each of {@code partitions} partitions and waits for every answer. */
    private static void sendAndAwaitAnswers(TestSender sender, int partitions) {
        int before = sender.outcomes.size();
        for (int p = 0; p < partitions; p++) {
            assertThat(sender.send("orders", p, 1, 10)).isNotNegative();
        }
        await(partitions + " answers").atMost(WAIT).until(() -> sender.outcomes.size() == before + partitions);
    }

    @Test
    void anEpochFromTheFutureIsRefusedSoItCannotLockRestartedTasksOutOfTheirShare() throws Exception {
        TestRelay relay = relay(TestRelay.egress("relay-b1"));
        long started = System.currentTimeMillis();
        TestSubscriber task = subscriber(relay, "sink-0", 0, 1, started);
        TestSender sender = sender(relay);

        long refusedBefore = errors(relay, ErrorKind.EPOCH_AHEAD);
        try (RawSubscriber intruder = new RawSubscriber(relay)) {
            Frame answer = intruder.subscribe(new SubscribeFrame(TestRelay.STREAM, "sink-0", 0, 1, Long.MAX_VALUE));
            assertThat(answer).as("SUBSCRIBE with epoch Long.MAX_VALUE").isInstanceOf(ErrorFrame.class);
            ErrorFrame error = (ErrorFrame) answer;
            assertThat(error.code()).isEqualTo(ErrorCode.NOT_AUTHORIZED);
            assertThat(error.message()).contains("epoch " + Long.MAX_VALUE, "ahead of", "subscribe.epoch.max.ahead.ms");
            assertThat(intruder.closedByRelay()).isTrue();
        }
        assertThat(errors(relay, ErrorKind.EPOCH_AHEAD)).isEqualTo(refusedBefore + 1);
        assertThat(task.client().isSuperseded()).as("the real task keeps its share").isFalse();
        sendAndAwaitAnswers(sender, 4);
        assertThat(sender.oks()).isEqualTo(4);
        assertThat(task.batches.get()).isEqualTo(4);

        // A restarted instance of the task (a later epoch, within the relay's clock) takes the share.
        TestSubscriber restarted = subscriber(relay, "sink-0", 0, 1, System.currentTimeMillis() + 1);
        sendAndAwaitAnswers(sender, 4);
        assertThat(sender.oks()).isEqualTo(8);
        assertThat(restarted.batches.get()).isEqualTo(4);
    }

    @Test
    void anotherShareCountNeverOwnsPartitionsSilentlyItIsRefusedOrSupersedesEveryHolderAndARestartTakesThemBack()
            throws Exception {
        TestRelay relay = relay(TestRelay.egress("relay-b1"));
        long started = System.currentTimeMillis() - 60_000;
        TestSubscriber task0 = subscriber(relay, "sink-0", 0, 2, started);
        TestSubscriber task1 = subscriber(relay, "sink-1", 1, 2, started);
        TestSender sender = sender(relay);
        long supersededBefore = errors(relay, ErrorKind.SUPERSEDED);

        // Share 0 of 1 with an epoch older than the tasks': refused, naming both counts.
        try (RawSubscriber older = new RawSubscriber(relay)) {
            Frame answer = older.subscribe(new SubscribeFrame(TestRelay.STREAM, "intruder", 0, 1, started - 1));
            assertThat(answer).as("SUBSCRIBE 0/1 beside subscriptions of 2 shares").isInstanceOf(ErrorFrame.class);
            assertThat(((ErrorFrame) answer).code()).isEqualTo(ErrorCode.SUPERSEDED);
            assertThat(((ErrorFrame) answer).message()).contains("1 share", "2 shares");
        }
        assertThat(errors(relay, ErrorKind.SUPERSEDED)).isEqualTo(supersededBefore + 1);
        assertThat(task0.client().isSuperseded() || task1.client().isSuperseded()).isFalse();

        // Share 0 of 1 with a later epoch: it takes every partition, and every holder is told so.
        RawSubscriber newer = keep(new RawSubscriber(relay));
        Frame answer = newer.subscribe(new SubscribeFrame(TestRelay.STREAM, "intruder", 0, 1, started + 1));
        assertThat(answer).isInstanceOf(SubscribeOkFrame.class);
        await("both tasks told SUPERSEDED").atMost(WAIT)
                .until(() -> task0.client().isSuperseded() && task1.client().isSuperseded());
        assertThat(errors(relay, ErrorKind.SUPERSEDED)).isEqualTo(supersededBefore + 3);

        // Restarted tasks (later epochs) take their shares back from it; it is told so too.
        long restartedAt = System.currentTimeMillis();
        TestSubscriber restarted0 = subscriber(relay, "sink-0", 0, 2, restartedAt);
        TestSubscriber restarted1 = subscriber(relay, "sink-1", 1, 2, restartedAt);
        Frame toldOff = newer.next();
        assertThat(toldOff).isInstanceOf(ErrorFrame.class);
        assertThat(((ErrorFrame) toldOff).code()).isEqualTo(ErrorCode.SUPERSEDED);
        assertThat(((ErrorFrame) toldOff).message()).contains("2 shares");

        sendAndAwaitAnswers(sender, 8);
        assertThat(sender.oks()).isEqualTo(8);
        assertThat(restarted0.batches.get() + restarted1.batches.get()).isEqualTo(8);
        assertThat(restarted0.batches.get()).isPositive();
        assertThat(restarted1.batches.get()).isPositive();
    }

    @Test
    void tinyBatchesArrivingBehindHugeBadFramesKeepAliveNoMoreMemoryThanTheyAreCharged() throws Exception {
        // The next hop never answers its HELLO: batches wait (parked) for its first connection attempt.
        ServerSocket silentHop = keep(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
        Map<String, Object> props = TestRelay.route(TestRelay.config("relay-a1"), "via-silent",
                List.of("127.0.0.1:" + silentHop.getLocalPort()));
        props.put("connect.timeout.ms", 120_000);
        props.put("heartbeat.interval.ms", 60_000); // a next hop silent for three intervals is taken for dead
        props.put("idle.timeout.ms", 300_000);
        TestRelay relay = relay(props);
        TestBatches batches = new TestBatches();
        byte[] hello = bytes(HelloFrame.of(PeerRole.SENDER, "holder", TestRelay.STREAM, TestRelay.TOKEN));
        // 16 records of 1 MB: just under frame.max.bytes (16 MiB); one flipped payload byte fails its CRC.
        byte[] huge = bytes(batches.batch(TestRelay.STREAM, 1, "holder", TestRelay.DESTINATION, "orders", 0, -1, 16,
                1_000_000, HEAP));
        huge[huge.length - 10] ^= 0x55;
        DirectMemory memory = DirectMemory.ofThisProcess();
        long before = memory.usedBytes();

        for (int i = 0; i < HOLDERS; i++) {
            byte[] tiny = bytes(batches.batch(TestRelay.STREAM, 100 + i, "holder", TestRelay.DESTINATION, "orders",
                    1, -1, 1, 10, HEAP));
            Socket socket = keep(new Socket(relay.data().getAddress(), relay.data().getPort()));
            socket.setSoTimeout(10_000);
            // One write: the tiny batch arrives with the last bytes of the huge frame, in its buffer.
            socket.getOutputStream().write(concat(hello, huge, tiny));
            DataInputStream in = new DataInputStream(socket.getInputStream());
            assertThat(nextAnswer(in)).satisfies(ack ->
                    assertThat(ack.reason()).isEqualTo(AckReason.MALFORMED_BATCH));
        }
        await("every tiny batch held by the relay").atMost(WAIT)
                .until(() -> relay.bufferedBytes() >= HOLDERS * (long) BOOKKEEPING_BYTES);
        long charged = relay.bufferedBytes();
        long grown = memory.usedBytes() - before;
        log.info("{} tiny batches held: charged {} bytes, direct memory grew by {} bytes", HOLDERS, charged, grown);
        assertThat(charged).isLessThan(HOLDERS * 4_096L);
        assertThat(grown).as("direct memory kept alive by %d tiny batches charged %d bytes", HOLDERS, charged)
                .isLessThan(HOLDERS * 16L * 1024 * 1024 / 4);
    }

    /**
     * A holder of the sender token reconnecting under a new node id each time: each id used to keep
     * its series forever. Now they go with the connection (retention 0 here), at most
     * {@code metrics.peers.max} connected peers have their own, the rest share {@code (other)}, and
     * the real task's counters go on through it all.
     */
    @Test
    void aTokenHolderReconnectingUnderNewIdsCannotGrowThePeerSeriesWithoutBound() throws Exception {
        Map<String, Object> props = TestRelay.egress("relay-b1");
        props.put("metrics.peers.max", 4);
        props.put("metrics.peer.retention.ms", 0);
        TestRelay relay = relay(props);
        sender(relay);
        String taskSeries = "jetstream_relay_peer_bytes_in_total{peer=\"source-0\"}";
        double taskBytes = scraped(relay, taskSeries);
        assertThat(taskBytes).as("HELLO and heartbeats counted").isPositive();

        for (int i = 0; i < 40; i++) {
            helloAs(relay, "churn-" + i).close();
        }
        await("every churned id's series gone with its connection").atMost(WAIT)
                .until(() -> peerLabels(relay).equals(Set.of("source-0")));

        double foldedBefore = scraped(relay, "jetstream_relay_peers_folded_total");
        List<Socket> held = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            held.add(helloAs(relay, "held-" + i));
        }
        assertThat(peerLabels(relay)).as("four peers of their own and the shared series").hasSize(5)
                .contains("source-0", "held-0", "held-1", "held-2", "(other)");
        assertThat(scraped(relay, "jetstream_relay_peers_folded_total") - foldedBefore).isEqualTo(3);
        assertThat(scraped(relay, "jetstream_relay_peer_series")).isEqualTo(4);

        assertThat(scraped(relay, taskSeries)).as("the connected task's counter never went back")
                .isGreaterThanOrEqualTo(taskBytes);
        await("the task's heartbeats still counted").atMost(WAIT).until(() -> scraped(relay, taskSeries) > taskBytes);
        for (Socket socket : held) {
            socket.close();
        }
        await("the held ids' series gone with their connections").atMost(WAIT)
                .until(() -> peerLabels(relay).equals(Set.of("source-0")));
    }

    /** A raw connection that completed its handshake as a sender named {@code nodeId}. */
    private Socket helloAs(TestRelay relay, String nodeId) throws IOException {
        Socket socket = keep(new Socket(relay.data().getAddress(), relay.data().getPort()));
        socket.setSoTimeout(10_000);
        socket.getOutputStream().write(bytes(HelloFrame.of(PeerRole.SENDER, nodeId, TestRelay.STREAM, TestRelay.TOKEN)));
        assertThat(RawSubscriber.read(new DataInputStream(socket.getInputStream()))).isInstanceOf(HelloOkFrame.class);
        return socket;
    }

    /** The {@code peer} labels with series in a scrape. */
    private static Set<String> peerLabels(TestRelay relay) {
        String prefix = "jetstream_relay_peer_bytes_in_total{peer=\"";
        return relay.metrics().scrape().lines().filter(l -> l.startsWith(prefix))
                .map(l -> l.substring(prefix.length(), l.indexOf('"', prefix.length()))).collect(Collectors.toSet());
    }

    /** The value of one series (name and labels as exposed) in a scrape; -1 when absent. */
    private static double scraped(TestRelay relay, String series) {
        return relay.metrics().scrape().lines().filter(l -> l.startsWith(series + " "))
                .mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1))).findFirst().orElse(-1);
    }

    /** The next ACK on a raw connection, skipping HELLO_OK and PINGs. */
    private static AckFrame nextAnswer(DataInputStream in) throws IOException {
        while (true) {
            Frame frame = RawSubscriber.read(in);
            if (frame instanceof AckFrame ack) {
                return ack;
            }
            assertThat(frame).isNotInstanceOf(ErrorFrame.class);
        }
    }

    private static byte[] bytes(Frame frame) {
        ByteBuf buf = HEAP.buffer();
        CODEC.encode(frame, buf);
        ReferenceCountUtil.release(frame);
        byte[] out = ByteBufUtil.getBytes(buf);
        buf.release();
        return out;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    /** A subscriber speaking raw frames over a blocking socket, holding the subscriber (shared) token. */
    private static final class RawSubscriber implements AutoCloseable {

        private final Socket socket;
        private final DataInputStream in;

        RawSubscriber(TestRelay relay) throws IOException {
            socket = new Socket(relay.data().getAddress(), relay.data().getPort());
            socket.setSoTimeout(10_000);
            in = new DataInputStream(socket.getInputStream());
        }

        /** HELLO, then {@code subscription}; returns the relay's answer to the SUBSCRIBE. */
        Frame subscribe(SubscribeFrame subscription) throws IOException {
            write(HelloFrame.of(PeerRole.SUBSCRIBER, subscription.subscriberId(), TestRelay.STREAM, TestRelay.TOKEN));
            assertThat(next()).isInstanceOf(HelloOkFrame.class);
            write(subscription);
            return next();
        }

        private void write(Frame frame) throws IOException {
            ByteBuf buf = HEAP.buffer();
            CODEC.encode(frame, buf);
            socket.getOutputStream().write(ByteBufUtil.getBytes(buf));
            buf.release();
        }

        /** The next frame but PINGs; fails after 10 s without one. */
        Frame next() throws IOException {
            return read(in);
        }

        /** The next frame but PINGs on {@code in}; fails after its socket's timeout without one. */
        static Frame read(DataInputStream in) throws IOException {
            while (true) {
                int length;
                try {
                    length = in.readInt();
                } catch (SocketTimeoutException e) {
                    throw new AssertionError("no frame from the relay within 10 s", e);
                }
                byte[] body = new byte[length];
                in.readFully(body);
                ByteBuf buf = Unpooled.buffer(4 + length).writeInt(length).writeBytes(body);
                Frame frame = CODEC.decode(buf);
                ReferenceCountUtil.release(frame);
                if (!(frame instanceof PingFrame)) {
                    return frame;
                }
            }
        }

        /** Whether the relay closed the connection (reads to its end, skipping PINGs). */
        boolean closedByRelay() throws IOException {
            InputStream raw = socket.getInputStream();
            byte[] chunk = new byte[1024];
            try {
                while (raw.read(chunk) >= 0) {
                    // PINGs until the close
                }
            } catch (SocketTimeoutException e) {
                return false;
            } catch (IOException reset) {
                // a reset is a close too
            }
            return true;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
