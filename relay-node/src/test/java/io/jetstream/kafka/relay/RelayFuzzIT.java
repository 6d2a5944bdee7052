package io.jetstream.kafka.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.HelloFrame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.codec.FrameCodec;
import io.jetstream.kafka.core.testing.LeakChecks;
import io.jetstream.kafka.relay.testing.TestBatches;
import io.jetstream.kafka.relay.testing.TestRelay;
import io.jetstream.kafka.relay.testing.TestSender;
import io.jetstream.kafka.relay.testing.TestSubscriber;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Frames by the thousand (a million with {@code -Pfuzz-long}) sent to a live relay over real
 * sockets by a peer that completed its handshake: valid batches, batches with bytes flipped,
 * truncated frames, random bodies behind plausible length prefixes, and connections left half-open.
 * The relay must refuse what is bad, close those connections, keep serving a good sender and
 * subscriber throughout, and end with its direct memory and heap where they were once warm: memory
 * taken for bad input is given back, nothing accumulates per frame.
 */
class RelayFuzzIT {

    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Frames to send; the fuzz-long profile of this module raises it to 1,000,000. */
    private static final int FRAMES = Integer.getInteger("jetstream.relay.fuzz.frames", 20_000);
    private static final int FRAMES_PER_CONNECTION = 25;
    /** Below the relay's per-address cap of pending handshakes (32), so the fuzzer's own connections pass. */
    private static final int HALF_OPEN = 20;
    private static final FrameCodec CODEC = new FrameCodec();
    private static final UnpooledByteBufAllocator HEAP = new UnpooledByteBufAllocator(false);

    private static EventLoopGroup clients;
    private static TestRelay relay;
    private static TestSender good;
    private static TestSubscriber subscriber;

    private final Random random = new Random(20_261_202L);
    private final TestBatches batches = new TestBatches();

    @BeforeAll
    static void start() throws IOException {
        clients = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        relay = TestRelay.start(TestRelay.egress("relay-under-fuzz"));
        subscriber = new TestSubscriber("sink-0", relay.data(), 0, 1, clients);
        good = new TestSender("good-source", relay.data(), clients);
        await("good clients ready").atMost(WAIT).until(() -> good.isReady() && subscriber.isReady());
    }

    @AfterAll
    static void stop() {
        good.close();
        subscriber.close();
        relay.close();
        clients.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        LeakChecks.assertNoLeaks();
    }

    private static byte[] bytes(Frame frame) {
        ByteBuf buf = HEAP.buffer();
        CODEC.encode(frame, buf);
        io.netty.util.ReferenceCountUtil.release(frame);
        byte[] out = ByteBufUtil.getBytes(buf);
        buf.release();
        return out;
    }

    private byte[] batch(long id) {
        return bytes(batches.batch(TestRelay.STREAM, id, "fuzzer", TestRelay.DESTINATION, "fuzzed-topic",
                random.nextInt(4), -1, 1 + random.nextInt(5), 20 + random.nextInt(400), HEAP));
    }

    /** One frame of the fuzzer's mix; most are bad, some valid or valid-looking. */
    private byte[] nextFrame(long id) {
        byte[] frame = batch(id);
        switch (random.nextInt(5)) {
            case 0 -> { // valid
            }
            case 1 -> { // bytes flipped anywhere, the length prefix included
                for (int f = 1 + random.nextInt(4); f > 0; f--) {
                    frame[random.nextInt(frame.length)] = (byte) random.nextInt(256);
                }
            }
            case 2 -> { // bytes flipped after the type byte: a frame of the right length with a bad body
                for (int f = 1 + random.nextInt(4); f > 0; f--) {
                    frame[5 + random.nextInt(frame.length - 5)] = (byte) random.nextInt(256);
                }
            }
            case 3 -> { // a random body behind a plausible length and type
                byte[] body = new byte[1 + random.nextInt(2_000)];
                random.nextBytes(body);
                frame = ByteBuffer.allocate(5 + body.length).putInt(1 + body.length)
                        .put((byte) (1 + random.nextInt(10))).put(body).array();
            }
            default -> { // truncated: the connection ends inside the frame
                frame = java.util.Arrays.copyOf(frame, 1 + random.nextInt(frame.length - 1));
            }
        }
        return frame;
    }

    /** HELLO, then frames until one is bad (the relay closes) or the connection's share is sent. */
    private int connectionOfFrames(long firstId) throws IOException {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(bytes(HelloFrame.of(PeerRole.SENDER, "fuzzer", TestRelay.STREAM, TestRelay.TOKEN)));
        int frames = 0;
        for (; frames < FRAMES_PER_CONNECTION; frames++) {
            request.writeBytes(nextFrame(firstId + frames));
        }
        try (Socket socket = new Socket(relay.data().getAddress(), relay.data().getPort())) {
            socket.setSoTimeout(15_000);
            try {
                socket.getOutputStream().write(request.toByteArray());
                socket.shutdownOutput();
            } catch (IOException closedEarly) {
                // the relay closed after a bad frame before reading the rest
            }
            InputStream in = socket.getInputStream();
            byte[] chunk = new byte[8192];
            try {
                while (in.read(chunk) >= 0) {
                    // answers are not checked here (RelayBadInputIT does): only that the relay ends it
                }
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the relay kept a fuzzed connection open for 15 s", e);
            } catch (IOException reset) {
                // a reset is a close too
            }
        }
        return frames;
    }

    private static long directMemoryInUse() {
        return ((PooledByteBufAllocator) io.jetstream.kafka.transport.FrameBuffers.ALLOCATOR).metric()
                .usedDirectMemory() + io.netty.util.internal.PlatformDependent.usedDirectMemory();
    }

    /** Heap in use after a collection, without what the test subscriber keeps of every batch it received. */
    private static long heapAfterGc() {
        subscriber.received.clear();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    @Test
    void aMillionFuzzedFramesLeaveTheRelayServingAndItsMemoryWhereItWas() throws Exception {
        // Half-open connections: HELLO's first bytes and then silence, held to the end.
        List<Socket> halfOpen = new ArrayList<>();
        for (int i = 0; i < HALF_OPEN; i++) {
            Socket socket = new Socket(relay.data().getAddress(), relay.data().getPort());
            OutputStream out = socket.getOutputStream();
            out.write(new byte[] {0, 0});
            out.flush();
            halfOpen.add(socket);
        }
        long sent = 0;
        long id = 1_000;
        long directWarm = -1;
        long heapWarm = -1;
        long goodSent = 0;
        while (sent < FRAMES) {
            sent += connectionOfFrames(id);
            id += FRAMES_PER_CONNECTION;
            if (directWarm < 0 && sent >= FRAMES / 10) {
                directWarm = directMemoryInUse();
                heapWarm = heapAfterGc();
            }
            if (good.send("good-topic", 0, 3, 100) >= 0) {
                goodSent++;
            }
        }
        for (Socket socket : halfOpen) {
            socket.close();
        }
        long finalGoodSent = goodSent;
        await("every good batch answered").atMost(WAIT).until(() -> good.unanswered() == 0);
        assertThat(goodSent).as("the good sender kept sending").isPositive();
        assertThat(good.oks()).as("every good batch acknowledged OK").isEqualTo(good.sent.size());
        await("the relay holds nothing").atMost(WAIT).until(() -> relay.bufferedBytes() == 0);
        long directEnd = directMemoryInUse();
        long heapEnd = heapAfterGc();
        System.out.printf("RelayFuzzIT: %d frames, %d good batches; direct memory %d -> %d bytes, heap %d -> %d"
                + " bytes%n", sent, finalGoodSent, directWarm, directEnd, heapWarm, heapEnd);
        assertThat(directEnd - directWarm).as("direct memory growth from warm to end").isLessThan(16L << 20);
        assertThat(heapEnd - heapWarm).as("heap growth from warm to end").isLessThan(32L << 20);
    }
}
