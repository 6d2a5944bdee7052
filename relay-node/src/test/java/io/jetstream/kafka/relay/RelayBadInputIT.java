package io.jetstream.kafka.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.HelloFrame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.PingFrame;
import io.jetstream.kafka.core.protocol.codec.FrameCodec;
import io.jetstream.kafka.core.testing.LeakChecks;
import io.jetstream.kafka.core.wire.ProtocolException;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hostile and broken input against one running relay over real sockets, while a well-behaved sender
 * and subscriber keep using it: every bad connection is answered or closed and counted, the good
 * traffic is untouched, nothing leaks (PARANOID leak detection; the detector fails the run).
 *
 * <p>Each bad client writes its bytes, half-closes, and reads until the relay closes: a relay
 * that hung on a case would fail the test by timeout. The 100,000-case codec fuzzing lives in core;
 * here a few hundred socket-level cases check the relay's handling around the codec.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RelayBadInputIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int RANDOM_CASES = 200;
    private static final int MUTATED_CASES = 200;
    private static final FrameCodec CODEC = new FrameCodec();
    private static final UnpooledByteBufAllocator HEAP = new UnpooledByteBufAllocator(false);

    private static EventLoopGroup clients;
    private static TestRelay relay;
    private static TestSender good;
    private static TestSubscriber subscriber;

    private final Random random = new Random(20_260_101L);
    private final TestBatches batches = new TestBatches();

    @BeforeAll
    static void start() throws IOException {
        clients = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        relay = TestRelay.start(TestRelay.egress("relay-under-attack"));
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

    private static byte[] hello(String token) {
        return bytes(HelloFrame.of(PeerRole.SENDER, "bad-client", TestRelay.STREAM, token));
    }

    private byte[] batch(long id) {
        return bytes(batches.batch(TestRelay.STREAM, id, "bad-client", TestRelay.DESTINATION, "fuzzed-topic", 0, -1, 3,
                40, HEAP));
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    /** Writes, half-closes, reads to EOF; returns what the relay answered. Fails if the relay keeps it open. */
    private static byte[] exchange(byte[] request) throws IOException {
        try (Socket socket = new Socket(relay.data().getAddress(), relay.data().getPort())) {
            socket.setSoTimeout(10_000);
            try {
                socket.getOutputStream().write(request);
                socket.shutdownOutput();
            } catch (IOException closedEarly) {
                // The relay may close before it read everything (an ERROR after the first bad frame).
            }
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            byte[] chunk = new byte[4096];
            try {
                for (int n = in.read(chunk); n >= 0; n = in.read(chunk)) {
                    answer.write(chunk, 0, n);
                }
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the relay kept a bad connection open for 10 s", e);
            } catch (IOException reset) {
                // Closed with unread input: a reset is a close too.
            }
            return answer.toByteArray();
        }
    }

    /** The frames of an answer, up to the first undecodable byte. */
    private static List<Frame> frames(byte[] answer) {
        List<Frame> frames = new ArrayList<>();
        ByteBuf buf = Unpooled.wrappedBuffer(answer);
        try {
            while (buf.isReadable()) {
                Frame frame = CODEC.decode(buf);
                if (!(frame instanceof PingFrame)) {
                    frames.add(frame);
                }
                io.netty.util.ReferenceCountUtil.release(frame);
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

    private static long errors(ErrorKind kind) {
        return (long) relay.metrics().errors(kind).get();
    }

    private static long totalErrors() {
        long total = 0;
        RelayMetrics metrics = relay.metrics();
        for (ErrorKind kind : ErrorKind.values()) {
            total += metrics.errors(kind).get();
        }
        return total;
    }

    @Test
    void everyKindOfBadInputIsRefusedCountedAndTheGoodClientIsServedMeanwhile() throws Exception {
        AtomicBoolean sending = new AtomicBoolean(true);
        CompletableFuture<Void> goodTraffic = CompletableFuture.runAsync(() -> {
            int i = 0;
            while (sending.get()) {
                if (good.isWritable() && good.unanswered() < 200) {
                    good.send("good", i++ % 4, 4, 100);
                } else {
                    LockSupport.parkNanos(500_000);
                }
            }
        });

        // A length prefix far above frame.max.bytes: refused before anything is allocated for it.
        long before = errors(ErrorKind.FRAME_TOO_LARGE);
        assertThat(errorIn(exchange(new byte[] {0x7F, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 3})))
                .isEqualTo(ErrorCode.FRAME_TOO_LARGE);
        assertThat(errors(ErrorKind.FRAME_TOO_LARGE)).isEqualTo(before + 1);

        // A version this relay does not speak: 1, whose TOPIC_METADATA had no generation.
        before = errors(ErrorKind.UNSUPPORTED_VERSION);
        assertThat(errorIn(exchange(bytes(new HelloFrame(1, PeerRole.SENDER, 0, "n", TestRelay.STREAM,
                TestRelay.TOKEN))))).isEqualTo(ErrorCode.UNSUPPORTED_VERSION);
        assertThat(errors(ErrorKind.UNSUPPORTED_VERSION)).isEqualTo(before + 1);

        // Unauthenticated: wrong token, then a batch it is never allowed to send.
        before = errors(ErrorKind.AUTHENTICATION_FAILED);
        byte[] answer = exchange(concat(hello("wrong-token-wrong-token"), batch(1)));
        assertThat(errorIn(answer)).isEqualTo(ErrorCode.AUTHENTICATION_FAILED);
        assertThat(frames(answer)).noneMatch(AckFrame.class::isInstance);
        assertThat(errors(ErrorKind.AUTHENTICATION_FAILED)).isEqualTo(before + 1);

        // Frames before HELLO.
        before = errors(ErrorKind.UNEXPECTED_FRAME);
        assertThat(errorIn(exchange(batch(2)))).isEqualTo(ErrorCode.UNEXPECTED_FRAME);
        assertThat(errorIn(exchange(bytes(new PingFrame(1, 2))))).isEqualTo(ErrorCode.UNEXPECTED_FRAME);
        assertThat(errors(ErrorKind.UNEXPECTED_FRAME)).isEqualTo(before + 2);

        // A payload that fails its CRC: NACK MALFORMED_BATCH, the connection stays usable.
        before = errors(ErrorKind.MALFORMED_BATCH);
        byte[] corrupt = batch(3);
        corrupt[corrupt.length - 3] ^= 0x40;
        answer = exchange(concat(hello(TestRelay.TOKEN), corrupt));
        assertThat(frames(answer)).filteredOn(AckFrame.class::isInstance).singleElement()
                .satisfies(f -> assertThat(((AckFrame) f).reason()).isEqualTo(AckReason.MALFORMED_BATCH));
        assertThat(errors(ErrorKind.MALFORMED_BATCH)).isEqualTo(before + 1);

        // Truncated frames: the peer hangs up in the middle of a frame.
        before = errors(ErrorKind.MALFORMED_FRAME);
        byte[] whole = batch(4);
        for (int cut = 1; cut < 20; cut++) {
            int length = 1 + random.nextInt(whole.length - 1);
            exchange(concat(hello(TestRelay.TOKEN), java.util.Arrays.copyOf(whole, length)));
        }
        // Counted when the relay's channel goes inactive, which may be just after the client saw the close.
        long truncatedBefore = before;
        await("19 truncations counted").atMost(WAIT)
                .until(() -> errors(ErrorKind.MALFORMED_FRAME) >= truncatedBefore + 19);
        assertThat(errors(ErrorKind.MALFORMED_FRAME)).as("truncations counted").isEqualTo(before + 19);

        // Random bytes.
        long totalBefore = totalErrors();
        for (int i = 0; i < RANDOM_CASES; i++) {
            byte[] garbage = new byte[1 + random.nextInt(300)];
            random.nextBytes(garbage);
            exchange(garbage);
        }
        long randomBefore = totalBefore;
        await("every random connection counted").atMost(WAIT).until(() -> totalErrors() - randomBefore >= RANDOM_CASES);

        // Mutated valid frames after a valid HELLO: refused and counted, or answered (a mutation in a
        // field nothing checks makes another valid batch), never a hang.
        totalBefore = totalErrors();
        int answeredWithoutError = 0;
        for (int i = 0; i < MUTATED_CASES; i++) {
            byte[] mutated = batch(100 + i);
            int flips = 1 + random.nextInt(4);
            for (int f = 0; f < flips; f++) {
                mutated[random.nextInt(mutated.length)] = (byte) random.nextInt(256);
            }
            byte[] reply = exchange(concat(hello(TestRelay.TOKEN), mutated));
            if (errorIn(reply) == null) {
                answeredWithoutError++;
            }
        }
        assertThat(totalErrors() - totalBefore).as("mutations counted").isPositive();
        assertThat(answeredWithoutError).as("some mutations left a valid frame").isLessThan(MUTATED_CASES);

        sending.set(false);
        goodTraffic.get(10, TimeUnit.SECONDS);
        await("every good batch answered").atMost(WAIT).until(() -> good.unanswered() == 0);
        assertThat(good.sent).hasSizeGreaterThan(10);
        assertThat(good.oks()).as("the good client never noticed").isEqualTo(good.sent.size());
        List<String> goodOrder = subscriber.orderViolations().stream().filter(v -> v.startsWith("good-")).toList();
        assertThat(goodOrder).isEmpty();
        await("the relay holds nothing").atMost(WAIT).until(() -> relay.bufferedBytes() == 0);
    }
}
