package io.jetstream.kafka.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.FrameType;
import io.jetstream.kafka.core.protocol.HelloFrame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.PingFrame;
import io.jetstream.kafka.core.protocol.codec.FrameCodec;
import io.jetstream.kafka.core.testing.LeakChecks;
import io.jetstream.kafka.core.wire.ProtocolException;
import io.jetstream.kafka.relay.admin.DirectMemory;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.NackReason;
import io.jetstream.kafka.relay.metrics.RoleLabel;
import io.jetstream.kafka.relay.testing.AdminClient;
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
 * What a stranger who can reach the data or admin port, and a peer that authenticated as a relay,
 * can make a live relay do, over real loopback sockets: strangers get a HELLO-sized frame limit, a
 * handshake deadline, a cap on connections per address, and one answer whatever stream, role or
 * token they try; at the admin port, a cap on connections and a total deadline per request; memory
 * follows the bytes that arrived, never a declared length; a relay peer cannot make the relay
 * connect to an address its configuration does not name. Every refusal is counted; nothing leaks
 * (PARANOID leak detection).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RelayStrangersIT {

    private static final Logger log = LoggerFactory.getLogger(RelayStrangersIT.class);
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final FrameCodec CODEC = new FrameCodec();
    private static final UnpooledByteBufAllocator HEAP = new UnpooledByteBufAllocator(false);
    /** The length prefix of the report: 16 MiB minus a little, the most frame.max.bytes allows by default. */
    private static final int HUGE_PREFIX = 16_777_152;
    private static final int STRANGERS = 120;

    private static EventLoopGroup clients;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final Random random = new Random(20_261_201L);

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

    private static byte[] bytes(Frame frame) {
        ByteBuf buf = HEAP.buffer();
        CODEC.encode(frame, buf);
        ReferenceCountUtil.release(frame);
        byte[] out = ByteBufUtil.getBytes(buf);
        buf.release();
        return out;
    }

    private static byte[] hello(PeerRole role, String token) {
        return bytes(HelloFrame.of(role, "stranger", TestRelay.STREAM, token));
    }

    /** A 16 MiB length prefix, a BATCH type byte and 20 KB of random bytes: the report's attack. */
    private byte[] hugeFrameStart() {
        byte[] body = new byte[20_000];
        random.nextBytes(body);
        ByteBuf buf = HEAP.buffer(5 + body.length);
        buf.writeInt(HUGE_PREFIX).writeByte(FrameType.BATCH.code()).writeBytes(body);
        byte[] out = ByteBufUtil.getBytes(buf);
        buf.release();
        return out;
    }

    private Socket connect(TestRelay relay) throws IOException {
        Socket socket = keep(new Socket(relay.data().getAddress(), relay.data().getPort()));
        socket.setSoTimeout(10_000);
        return socket;
    }

    /** Reads until the relay closes the connection; fails if it stays open for 10 s. */
    private static byte[] readToClose(Socket socket) throws IOException {
        ByteArrayOutputStream answer = new ByteArrayOutputStream();
        InputStream in = socket.getInputStream();
        byte[] chunk = new byte[4096];
        try {
            for (int n = in.read(chunk); n >= 0; n = in.read(chunk)) {
                answer.write(chunk, 0, n);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the relay kept the connection open for 10 s", e);
        } catch (IOException reset) {
            // closed with unread input: a reset is a close too
        }
        return answer.toByteArray();
    }

    private static void writeQuietly(Socket socket, byte[] bytes) {
        try {
            OutputStream out = socket.getOutputStream();
            out.write(bytes);
            out.flush();
        } catch (IOException closedEarly) {
            // the relay may close before it read everything
        }
    }

    private static List<Frame> frames(byte[] answer) {
        List<Frame> frames = new ArrayList<>();
        ByteBuf buf = Unpooled.wrappedBuffer(answer);
        try {
            while (buf.isReadable()) {
                Frame frame = CODEC.decode(buf);
                if (!(frame instanceof PingFrame)) {
                    frames.add(frame);
                }
                ReferenceCountUtil.release(frame);
            }
        } catch (ProtocolException truncatedAtClose) {
            // a reset can cut the last frame
        }
        return frames;
    }

    private static ErrorCode errorIn(byte[] answer) {
        return frames(answer).stream().filter(ErrorFrame.class::isInstance).map(f -> ((ErrorFrame) f).code())
                .findFirst().orElse(null);
    }

    private static long pending(TestRelay relay) {
        return (long) relay.metrics().connections(RoleLabel.PENDING).get();
    }

    private static AdminClient admin(TestRelay relay) {
        return new AdminClient(relay.server().boundAddresses().orElseThrow().admin());
    }

    @Test
    void strangersDeclaringHugeFramesAreClosedAtTheirPrefixCountedAndTheRelayStaysUp() throws Exception {
        Map<String, Object> props = TestRelay.egress("relay-b1");
        props.put(RelayConfig.HANDSHAKE_PENDING_MAX, 1_000);
        props.put(RelayConfig.HANDSHAKE_PENDING_PER_ADDRESS_MAX, 1_000);
        TestRelay relay = relay(props);
        TestSubscriber subscriber = keep(new TestSubscriber("sink-0", relay.data(), 0, 1, clients));
        TestSender good = keep(new TestSender("good-source", relay.data(), clients));
        await("good clients ready").atMost(WAIT).until(() -> good.isReady() && subscriber.isReady());
        long usedBefore = DirectMemory.ofThisProcess().usedBytes();
        long tooLargeBefore = (long) relay.metrics().errors(ErrorKind.FRAME_TOO_LARGE).get();

        List<Socket> strangers = new ArrayList<>();
        for (int i = 0; i < STRANGERS; i++) {
            Socket socket = connect(relay);
            writeQuietly(socket, hugeFrameStart());
            strangers.add(socket);
        }
        for (Socket socket : strangers) {
            assertThat(errorIn(readToClose(socket))).as("answered before the relay closes").isEqualTo(
                    ErrorCode.FRAME_TOO_LARGE);
        }

        await("every stranger counted").atMost(WAIT).until(() -> relay.metrics().errors(ErrorKind.FRAME_TOO_LARGE).get()
                == tooLargeBefore + STRANGERS);
        await("no stranger left connected").atMost(WAIT).until(() -> pending(relay) == 0);
        long grown = DirectMemory.ofThisProcess().usedBytes() - usedBefore;
        log.info("Direct memory before {} strangers: {} bytes; after: {} more", STRANGERS, usedBefore, grown);
        assertThat(grown).as("direct memory grown by %d bytes for %d strangers", grown, STRANGERS)
                .isLessThan(64L << 20);
        HttpResponse<String> health = admin(relay).get("/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"").contains("directMemoryUsedBytes");

        long id = good.send("orders", 0, 3, 100);
        await("the good sender is still served").atMost(WAIT).until(() -> good.outcomes.containsKey(id));
        assertThat(good.outcomes.get(id).isOk()).isTrue();
    }

    @Test
    void authenticatedPeersDeclaringHugeFramesHoldOnlyTheBytesTheySent() throws Exception {
        Map<String, Object> props = TestRelay.egress("relay-b1");
        props.put(RelayConfig.HANDSHAKE_PENDING_PER_ADDRESS_MAX, 256);
        TestRelay relay = relay(props);
        long usedBefore = DirectMemory.ofThisProcess().usedBytes();

        List<Socket> peers = new ArrayList<>();
        for (int i = 0; i < STRANGERS; i++) {
            Socket socket = connect(relay);
            writeQuietly(socket, hello(PeerRole.SENDER, TestRelay.TOKEN));
            writeQuietly(socket, hugeFrameStart());
            peers.add(socket);
        }
        await("every peer authenticated").atMost(WAIT)
                .until(() -> relay.metrics().connections(RoleLabel.SOURCE_TASK).get() == STRANGERS);
        // Each relay connection now holds the start of a 16 MiB frame: before the fix, each reserved
        // the whole frame as soon as its first bytes spanned two reads (120 x 16 MiB = 1.9 GiB).
        await("every partial frame received").atMost(WAIT).until(() -> relay.metrics().scrape().lines()
                .filter(l -> l.startsWith("jetstream_relay_peer_bytes_in_total{peer=\"stranger\"}"))
                .anyMatch(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)) >= STRANGERS * 20_005L));
        long grown = DirectMemory.ofThisProcess().usedBytes() - usedBefore;
        log.info("Direct memory before {} partial 16 MiB frames: {} bytes; after: {} more", STRANGERS, usedBefore,
                grown);
        assertThat(grown).as("direct memory grown by %d bytes for %d partial 16 MiB frames", grown, STRANGERS)
                .isLessThan(64L << 20);
        assertThat(admin(relay).get("/health").statusCode()).isEqualTo(200);

        for (Socket socket : peers) {
            socket.close();
        }
        await("every connection closed").atMost(WAIT)
                .until(() -> relay.metrics().connections(RoleLabel.SOURCE_TASK).get() == 0);
    }

    /**
     * A peer that sends PINGs and never reads: the relay answers while the connection is writable
     * and drops the PONGs it cannot write (counted as control_dropped), instead of queueing one per
     * PING without bound (8.4 MB of PINGs here, against a 64 KiB high-water mark).
     */
    @Test
    void aPeerThatPingsAndNeverReadsGetsNoUnboundedQueueOfPongs() throws Exception {
        Map<String, Object> props = TestRelay.egress("relay-b1");
        props.put(RelayConfig.BUFFER_MAX_BYTES_PER_CONNECTION, 64 * 1024);
        props.put(RelayConfig.FRAME_MAX_BYTES, 64 * 1024);
        TestRelay relay = relay(props);
        long usedBefore = DirectMemory.ofThisProcess().usedBytes();
        Socket peer = keep(new Socket());
        peer.setReceiveBufferSize(4096);
        peer.connect(relay.data());
        writeQuietly(peer, hello(PeerRole.SENDER, TestRelay.TOKEN));
        byte[] ping = bytes(new PingFrame(1, 1));
        byte[] pings = new byte[ping.length * 100_000];
        for (int i = 0; i < 100_000; i++) {
            System.arraycopy(ping, 0, pings, i * ping.length, ping.length);
        }
        for (int round = 0; round < 4; round++) {
            peer.getOutputStream().write(pings);
        }
        peer.getOutputStream().flush();
        await("PONGs the peer does not read are dropped and counted").atMost(WAIT)
                .until(() -> relay.metrics().errors(ErrorKind.CONTROL_DROPPED).get() > 0);
        long grown = DirectMemory.ofThisProcess().usedBytes() - usedBefore;
        assertThat(grown).as("direct memory grown by %d bytes", grown).isLessThan(16L << 20);
        assertThat(relay.metrics().connections(RoleLabel.SOURCE_TASK).get())
                .as("pinging is no offence: the peer stays connected").isEqualTo(1);
        assertThat(admin(relay).get("/health").statusCode()).isEqualTo(200);
    }

    @Test
    void aConnectionThatDoesNotCompleteItsHandshakeInTimeIsClosedAndCounted() throws Exception {
        Map<String, Object> props = TestRelay.egress("relay-b1");
        props.put(RelayConfig.HANDSHAKE_TIMEOUT_MS, 300);
        TestRelay relay = relay(props);

        Socket silent = connect(relay);
        Socket slow = connect(relay);
        byte[] hello = hello(PeerRole.SENDER, TestRelay.TOKEN);
        writeQuietly(slow, java.util.Arrays.copyOf(hello, hello.length - 3)); // never finishes its HELLO

        long started = System.nanoTime();
        readToClose(silent);
        readToClose(slow);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        assertThat(tookMs).as("closed by the handshake deadline, long before idle.timeout.ms (30 s)")
                .isLessThan(10_000);
        await("both counted").atMost(WAIT).until(() -> relay.metrics().errors(ErrorKind.HANDSHAKE_TIMEOUT).get() == 2);
        assertThat(relay.metrics().errors(ErrorKind.IDLE_TIMEOUT).get()).isZero();

        TestSender good = keep(new TestSender("good-source", relay.data(), clients));
        await("a peer that completes its handshake").atMost(WAIT).until(good::isReady);
        // A connection opened after the good one: once its deadline closed it, the good one's has passed.
        readToClose(connect(relay));
        await("the later one counted").atMost(WAIT)
                .until(() -> relay.metrics().errors(ErrorKind.HANDSHAKE_TIMEOUT).get() == 3);
        assertThat(good.isReady()).as("an authenticated connection outlives its handshake deadline").isTrue();
        assertThat(good.disconnects).isEmpty();
    }

    @Test
    void connectionsBeyondTheCapPerAddressAreRefusedAtOnceAndAuthenticatedOnesDoNotCount() throws Exception {
        Map<String, Object> props = TestRelay.egress("relay-b1");
        props.put(RelayConfig.HANDSHAKE_PENDING_PER_ADDRESS_MAX, 3);
        TestRelay relay = relay(props);
        TestSubscriber subscriber = keep(new TestSubscriber("sink-0", relay.data(), 0, 1, clients));
        TestSender good = keep(new TestSender("good-source", relay.data(), clients));
        await("authenticated clients ready").atMost(WAIT).until(() -> good.isReady() && subscriber.isReady());

        List<Socket> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(connect(relay));
        }
        await("three connections in their handshake").atMost(WAIT).until(() -> pending(relay) == 3);

        Socket refused = connect(relay);
        long started = System.nanoTime();
        byte[] answer = readToClose(refused);
        assertThat(answer).as("closed without a read or a TLS handshake").isEmpty();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(5_000);
        await("refusal counted").atMost(WAIT)
                .until(() -> relay.metrics().errors(ErrorKind.CONNECTION_LIMIT).get() == 1);
        assertThat(pending(relay)).isEqualTo(3);

        held.get(0).close();
        await("a place returned").atMost(WAIT).until(() -> pending(relay) == 2);
        Socket next = connect(relay);
        writeQuietly(next, hello(PeerRole.SENDER, TestRelay.TOKEN));
        await("admitted and authenticated").atMost(WAIT)
                .until(() -> relay.metrics().connections(RoleLabel.SOURCE_TASK).get() == 2);
        assertThat(relay.metrics().errors(ErrorKind.CONNECTION_LIMIT).get()).isEqualTo(1);
        assertThat(good.isReady()).as("authenticated peers are untouched").isTrue();
    }

    @Test
    void aRelayPeerNamingAnUnknownNextHopIsNackedAndNothingConnectsThere() throws Exception {
        try (ServerSocket trap = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            TestRelay b1 = relay(TestRelay.egress("relay-b1"));
            Map<String, Object> intermediate = TestRelay.config("relay-c1");
            intermediate.put(RelayConfig.NEXT_HOPS_ALLOWED, b1.hop());
            TestRelay c1 = relay(intermediate);
            String trapHop = "127.0.0.1:" + trap.getLocalPort();

            BatchFrame batch = new TestBatches().batch(TestRelay.STREAM, 7, "evil-relay", TestRelay.DESTINATION,
                    "orders", 0, -1, 2, 50, HEAP);
            BatchFrame routed = batch.withRouting(batch.header().routing()
                    .withPath(List.of("evil-relay", c1.hop(), trapHop)).advance());
            Socket peer = connect(c1);
            writeQuietly(peer, hello(PeerRole.RELAY, TestRelay.TOKEN));
            writeQuietly(peer, bytes(routed));

            AckFrame nack = awaitAck(peer);
            assertThat(nack.reason()).isEqualTo(AckReason.NEXT_HOP_UNREACHABLE);
            assertThat(nack.message()).contains(trapHop).contains("not allowed").contains("next.hops.allowed");
            assertThat(c1.metrics().nacks(NackReason.NEXT_HOP_NOT_ALLOWED).get()).isEqualTo(1);
            assertThat(c1.metrics().errors(ErrorKind.NEXT_HOP_NOT_ALLOWED).get()).isEqualTo(1);
            assertThat(c1.metrics().connections(RoleLabel.RELAY_OUT).get()).isZero();
            // A link would have started connecting before the answer was written: give a connection
            // attempt a second to arrive, bounded by the accept timeout.
            trap.setSoTimeout(1_000);
            try (Socket unexpected = trap.accept()) {
                throw new AssertionError("the relay connected to a next hop it does not know: " + unexpected);
            } catch (SocketTimeoutException expected) {
                // nothing came
            }
            assertThat(c1.metrics().scrape()).as("no link, so no peer series for it")
                    .doesNotContain("peer=\"" + trapHop + "\"");
        }
    }

    @Test
    void aRelayPeerNamingAnAllowedNextHopIsForwarded() throws Exception {
        TestRelay b1 = relay(TestRelay.egress("relay-b1"));
        TestSubscriber subscriber = keep(new TestSubscriber("sink-0", b1.data(), 0, 1, clients));
        await("subscriber ready").atMost(WAIT).until(subscriber::isReady);
        Map<String, Object> intermediate = TestRelay.config("relay-c1");
        intermediate.put(RelayConfig.NEXT_HOPS_ALLOWED, "LOCALHOST:1, " + b1.hop());
        TestRelay c1 = relay(intermediate);

        BatchFrame batch = new TestBatches().batch(TestRelay.STREAM, 8, "relay-a1", TestRelay.DESTINATION,
                "orders", 0, -1, 2, 50, HEAP);
        BatchFrame routed = batch.withRouting(batch.header().routing()
                .withPath(List.of("relay-a1", c1.hop(), b1.hop())).advance());
        Socket peer = connect(c1);
        writeQuietly(peer, hello(PeerRole.RELAY, TestRelay.TOKEN));
        writeQuietly(peer, bytes(routed));

        AckFrame ack = awaitAck(peer);
        assertThat(ack.isOk()).as("answer %s", ack).isTrue();
        assertThat(subscriber.batches.get()).isEqualTo(1);
        assertThat(c1.metrics().nacks(NackReason.NEXT_HOP_NOT_ALLOWED).get()).isZero();
    }

    /**
     * A stranger probing the handshake learns nothing: an unknown stream, the shared token for a role
     * that has its own, a wrong token for a role with or without its own, another role's token: the
     * answer is the same bytes every time. The relay counts the reasons apart.
     */
    @Test
    void unauthenticatedPeersGetOneAnswerWhateverStreamRoleOrTokenTheyTry() throws Exception {
        String senderToken = "sender-token-0123456789";
        Map<String, Object> props = TestRelay.egress("relay-b1");
        props.put("streams." + TestRelay.STREAM + ".sender.token", senderToken);
        TestRelay relay = relay(props);
        long unknownBefore = (long) relay.metrics().errors(ErrorKind.UNKNOWN_STREAM).get();
        long failedBefore = (long) relay.metrics().errors(ErrorKind.AUTHENTICATION_FAILED).get();
        Map<String, HelloFrame> attempts = new java.util.LinkedHashMap<>();
        attempts.put("an unknown stream", HelloFrame.of(PeerRole.SENDER, "prober", "no-such-stream", TestRelay.TOKEN));
        attempts.put("the shared token for a role with its own", HelloFrame.of(PeerRole.SENDER, "prober",
                TestRelay.STREAM, TestRelay.TOKEN));
        attempts.put("a wrong token for a role with its own", HelloFrame.of(PeerRole.SENDER, "prober",
                TestRelay.STREAM, "wrong-token-0123456789"));
        attempts.put("a wrong token for a role without", HelloFrame.of(PeerRole.RELAY, "prober", TestRelay.STREAM,
                "wrong-token-0123456789"));
        attempts.put("another role's own token", HelloFrame.of(PeerRole.SUBSCRIBER, "prober", TestRelay.STREAM,
                senderToken));

        Map<String, byte[]> answers = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, HelloFrame> attempt : attempts.entrySet()) {
            Socket socket = connect(relay);
            writeQuietly(socket, bytes(attempt.getValue()));
            answers.put(attempt.getKey(), readToClose(socket));
        }

        byte[] first = answers.values().iterator().next();
        assertThat(frames(first)).singleElement().isInstanceOfSatisfying(ErrorFrame.class, error -> {
            assertThat(error.code()).isEqualTo(ErrorCode.AUTHENTICATION_FAILED);
            assertThat(error.message()).doesNotContain(TestRelay.STREAM, "no-such-stream", "SENDER", "role", "relay-b1");
        });
        answers.forEach((what, answer) -> assertThat(answer).as("the answer to %s", what).isEqualTo(first));
        await("every refusal counted by its reason").atMost(WAIT).until(() ->
                relay.metrics().errors(ErrorKind.UNKNOWN_STREAM).get() == unknownBefore + 1
                        && relay.metrics().errors(ErrorKind.AUTHENTICATION_FAILED).get() == failedBefore + 4);
    }

    @Test
    void adminConnectionsBeyondTheCapAreClosedAtOnceAndCounted() throws Exception {
        Map<String, Object> props = TestRelay.egress("relay-b1");
        props.put("admin.connections.max", 3);
        TestRelay relay = relay(props);

        List<Socket> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(connectAdmin(relay));
        }
        await("three admin connections open").atMost(WAIT)
                .until(() -> scraped(relay, "jetstream_relay_admin_connections") == 3);

        long started = System.nanoTime();
        assertThat(readToClose(connectAdmin(relay))).as("closed without an answer").isEmpty();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(5_000);
        await("refusal counted").atMost(WAIT).until(() ->
                scraped(relay, "jetstream_relay_errors_total{kind=\"admin_connection_limit\"}") == 1);

        held.get(0).close();
        await("a place returned").atMost(WAIT).until(() -> scraped(relay, "jetstream_relay_admin_connections") == 2);
        assertThat(admin(relay).get("/health").statusCode()).isEqualTo(200);
    }

    /**
     * Slowloris: a request trickled a byte every 50 ms, which reset the old read timeout forever,
     * is closed at its total deadline; so is a connection that never sends a request. A kept-alive
     * connection idle after its answer is closed too, without counting as an error.
     */
    @Test
    void aSlowAdminRequestIsClosedAtItsDeadlineHoweverItTrickles() throws Exception {
        Map<String, Object> props = TestRelay.egress("relay-b1");
        props.put("admin.request.timeout.ms", 1_000);
        TestRelay relay = relay(props);
        java.util.concurrent.ScheduledExecutorService trickler =
                java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        AutoCloseable stopTrickling = trickler::shutdownNow;
        keep(stopTrickling);

        Socket slow = connectAdmin(relay);
        byte[] request = ("GET /health HTTP/1.1\r\nHost: relay\r\nX-Slow: " + "a".repeat(4_000))
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        java.util.concurrent.atomic.AtomicInteger sent = new java.util.concurrent.atomic.AtomicInteger();
        trickler.scheduleAtFixedRate(() -> {
            int next = sent.getAndIncrement();
            if (next < request.length) {
                writeQuietly(slow, new byte[] {request[next]});
            }
        }, 0, 50, TimeUnit.MILLISECONDS);
        Socket silent = connectAdmin(relay);

        long started = System.nanoTime();
        byte[] answer = readToClose(slow);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        readToClose(silent);

        assertThat(answer).as("no answer to a request never finished").isEmpty();
        assertThat(sent.get()).as("bytes trickled in before the close").isGreaterThan(5);
        assertThat(tookMs).as("closed at the 1 s deadline, not kept open by its trickle").isLessThan(5_000);
        await("both counted").atMost(WAIT).until(() ->
                scraped(relay, "jetstream_relay_errors_total{kind=\"admin_request_timeout\"}") == 2);

        Socket keptAlive = connectAdmin(relay);
        writeQuietly(keptAlive, "GET /health HTTP/1.1\r\nHost: relay\r\n\r\n"
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertThat(new String(readToClose(keptAlive), java.nio.charset.StandardCharsets.US_ASCII))
                .as("answered, then closed when idle").startsWith("HTTP/1.1 200");
        assertThat(scraped(relay, "jetstream_relay_errors_total{kind=\"admin_request_timeout\"}"))
                .as("an idle kept-alive connection is no error").isEqualTo(2);
        assertThat(admin(relay).get("/health").statusCode()).isEqualTo(200);
    }

    private Socket connectAdmin(TestRelay relay) throws IOException {
        Socket socket = keep(new Socket(relay.admin().getAddress(), relay.admin().getPort()));
        socket.setSoTimeout(10_000);
        return socket;
    }

    /** The value of one series (name and labels as exposed) in a scrape; -1 when absent. */
    private static double scraped(TestRelay relay, String series) {
        return relay.metrics().scrape().lines().filter(l -> l.startsWith(series + " "))
                .mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1))).findFirst().orElse(-1);
    }

    /** The first answer (not a receipt) on a raw connection. */
    private static AckFrame awaitAck(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        ByteBuf received = Unpooled.buffer();
        try {
            byte[] chunk = new byte[4096];
            while (true) {
                int n;
                try {
                    n = in.read(chunk);
                } catch (SocketTimeoutException e) {
                    throw new AssertionError("no answer within 10 s", e);
                }
                if (n < 0) {
                    throw new AssertionError("closed without an answer");
                }
                received.writeBytes(chunk, 0, n);
                while (true) {
                    Frame frame = CODEC.tryDecode(received);
                    if (frame == null) {
                        break;
                    }
                    ReferenceCountUtil.release(frame);
                    if (frame instanceof AckFrame ack && !ack.isReceipt()) {
                        return ack;
                    }
                }
            }
        } finally {
            received.release();
        }
    }
}
