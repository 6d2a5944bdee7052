package io.jetstream.kafka.testkit.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/**
 * Control tests on loopback. The rate and delay figures are printed so they can be quoted; the assertions hold
 * only the bounds a loaded machine cannot break (never faster than the rate, never earlier than the delay), so that
 * no test depends on how busy the machine is.
 */
class LinkEmulatorTest {

    private static final long RATE = 3_000_000;
    private static final Duration DELAY = Duration.ofMillis(25);
    private static final Duration AWAIT = Duration.ofSeconds(20);

    @Test
    void neverForwardsFasterThanItsRateAndForwardsEveryByte() throws Exception {
        long total = 3 * RATE; // about three seconds
        try (CountingSink sink = new CountingSink(true);
             LinkEmulator link = new LinkEmulator(LinkSpec.of("rate", RATE, DELAY), sink.address())) {
            InetSocketAddress entry = link.start();

            try (Socket client = connect(entry)) {
                writeBytes(client.getOutputStream(), total);
                await().atMost(AWAIT).until(() -> sink.totalBytes() == total);
            }

            double measured = rate(sink.samples(0), RATE / 4);
            double errorPercent = 100 * (measured - RATE) / RATE;
            System.out.printf(Locale.ROOT, "link rate: configured %d B/s, measured %.0f B/s, error %+.2f %%%n",
                    RATE, measured, errorPercent);
            // Only the bound a loaded machine cannot break: never faster than the rate (precision is printed).
            assertThat(measured).isLessThanOrEqualTo(RATE * 1.05);
            assertThat(link.bytesForwarded(LinkDirection.CLIENT_TO_TARGET)).isEqualTo(total);
        }
    }

    @Test
    void connectionsShareTheRateOfTheLink() throws Exception {
        long perConnection = RATE;
        try (CountingSink sink = new CountingSink(true);
             LinkEmulator link = new LinkEmulator(LinkSpec.of("share", RATE, DELAY), sink.address())) {
            InetSocketAddress entry = link.start();
            List<CompletableFuture<Void>> writers = new ArrayList<>();
            List<Socket> clients = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Socket client = connect(entry);
                clients.add(client);
                // Wait for the sink to see this connection so sample index i belongs to client i.
                writeBytes(client.getOutputStream(), 1);
                int connections = i + 1;
                await().atMost(AWAIT).until(() -> sink.totalBytes() == connections);
            }
            for (Socket client : clients) {
                writers.add(CompletableFuture.runAsync(() -> writeQuietly(client, perConnection)));
            }
            CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            await().atMost(AWAIT).until(() -> sink.totalBytes() == 2 * (perConnection + 1));
            for (Socket client : clients) {
                client.close();
            }

            // Window in which both connections were sending: after both passed 256 KiB, before either finished.
            List<CountingSink.Sample> first = sink.samples(0);
            List<CountingSink.Sample> second = sink.samples(1);
            long from = Math.max(timeAt(first, 256 * 1024), timeAt(second, 256 * 1024));
            long to = Math.min(first.get(first.size() - 1).nanos(), second.get(second.size() - 1).nanos());
            long firstBytes = bytesAt(first, to) - bytesAt(first, from);
            long secondBytes = bytesAt(second, to) - bytesAt(second, from);
            double combined = (firstBytes + secondBytes) / ((to - from) / 1e9);
            double firstShare = (double) firstBytes / (firstBytes + secondBytes);
            System.out.printf(Locale.ROOT, "link shared by 2 connections: %.0f B/s (error %+.2f %%), shares %.3f/%.3f%n",
                    combined, 100 * (combined - RATE) / RATE, firstShare, 1 - firstShare);
            assertThat(combined).isLessThanOrEqualTo(RATE * 1.05);
            assertThat(firstShare).isBetween(0.4, 0.6);
        }
    }

    @Test
    void neverDeliversEarlierThanItsOneWayDelay() throws Exception {
        int roundTrips = 40;
        List<Long> outbound;
        List<Long> inbound = new ArrayList<>();
        try (FrameEchoServer echo = new FrameEchoServer();
             LinkEmulator link = new LinkEmulator(LinkSpec.of("delay", RATE, DELAY), echo.address())) {
            try (Socket client = connect(link.start())) {
                stampedRoundTrip(client); // the first trip also pays for connection set-up: not a delay sample
                for (int i = 0; i < roundTrips; i++) {
                    inbound.add(stampedRoundTrip(client).inboundNanos());
                }
            }
            outbound = echo.inboundDelaysNanos();
        }
        assertThat(outbound).hasSize(roundTrips + 1);
        outbound = outbound.subList(1, outbound.size());

        for (List<Long> delays : List.of(outbound, inbound)) {
            DelayFigures figures = DelayFigures.of(delays, DELAY);
            System.out.println("link one-way delay (configured 25 ms): " + figures);
            // How close to 25 ms is printed above; a loaded machine can only make a delay longer.
            assertThat(figures.minMillis()).isGreaterThanOrEqualTo(25.0);
        }
    }

    @Test
    void cutDropsConnectionsAndRefusesNewOnesUntilRestored() throws Exception {
        try (FrameEchoServer echo = new FrameEchoServer();
             LinkEmulator link = new LinkEmulator(LinkSpec.unlimited("cut"), echo.address())) {
            InetSocketAddress entry = link.start();
            Socket before = connect(entry);
            stampedRoundTrip(before);
            assertThat(link.currentConnections()).isEqualTo(1);

            link.cut();

            assertThat(link.isCut()).isTrue();
            assertThat(link.currentConnections()).isZero();
            assertThat(endsOrFails(before)).as("connection open before the cut is dropped").isTrue();
            assertThat(refusedOrDropped(entry)).as("connection made during the cut is refused or closed").isTrue();

            link.restore();

            try (Socket after = connect(entry)) {
                assertThat(stampedRoundTrip(after).inboundNanos()).isPositive();
            }
            LinkStats stats = link.stats();
            assertThat(stats.connectionsAccepted()).isEqualTo(2);
            assertThat(stats.connectionsRefused()).isEqualTo(1);
            before.close();
        }
    }

    @Test
    void rateAndDelayChangeAtRunTime() throws Exception {
        try (FrameEchoServer echo = new FrameEchoServer();
             LinkEmulator link = new LinkEmulator(LinkSpec.unlimited("controls"), echo.address());
             Socket client = connect(link.start())) {
            stampedRoundTrip(client); // the first trip also pays for connection set-up
            link.setDelay(Duration.ofMillis(30));
            assertThat(stampedRoundTrip(client).roundTripMillis()).isGreaterThanOrEqualTo(60.0);

            link.setDelay(Duration.ZERO);
            assertThat(stampedRoundTrip(client).roundTripMillis()).isLessThan(60.0);
            assertThat(link.spec()).isEqualTo(LinkSpec.unlimited("controls"));
        }
        try (CountingSink sink = new CountingSink(true);
             LinkEmulator link = new LinkEmulator(LinkSpec.unlimited("set-rate"), sink.address())) {
            link.setRate(2_000_000);
            try (Socket client = connect(link.start())) {
                writeBytes(client.getOutputStream(), 1_000_000);
                await().atMost(AWAIT).until(() -> sink.totalBytes() == 1_000_000);
            }
            assertThat(rate(sink.samples(0), 200_000)).isLessThanOrEqualTo(2_100_000.0);
            assertThat(link.spec().rateBytesPerSecond()).isEqualTo(2_000_000);
        }
    }

    @Test
    void aReceiverThatDoesNotReadStopsTheSenderWithBoundedBuffering() throws Exception {
        long attempted = 256L * 1024 * 1024;
        try (CountingSink stalled = new CountingSink(false);
             LinkEmulator link = new LinkEmulator(LinkSpec.of("backpressure", 50_000_000, Duration.ofMillis(5)),
                     stalled.address());
             Socket client = connect(link.start())) {
            AtomicLong written = new AtomicLong();
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> countWrites(client, attempted, written));
            long budget = link.inFlightBudgetBytes();
            long chunk = link.chunkBytes();

            await().atMost(AWAIT).until(() -> link.bufferedBytes(LinkDirection.CLIENT_TO_TARGET) >= budget - chunk);
            await().during(Duration.ofMillis(300)).atMost(AWAIT)
                    .until(() -> link.bufferedBytes(LinkDirection.CLIENT_TO_TARGET) <= budget + chunk);

            assertThat(writer).isNotDone();
            assertThat(written.get()).isLessThan(attempted / 4);
            client.close();
        }
    }

    @Test
    void closeIsFastIdempotentAndStopsEveryThread() throws Exception {
        try (FrameEchoServer echo = new FrameEchoServer()) {
            LinkEmulator link = new LinkEmulator(LinkSpec.of("closing", RATE, DELAY), echo.address());
            InetSocketAddress entry = link.start();
            List<Socket> clients = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                clients.add(connect(entry));
                stampedRoundTrip(clients.get(i));
            }

            long start = System.nanoTime();
            link.close();
            long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            link.close();

            assertThat(closeMillis).isLessThan(1_000);
            assertThat(liveThreadsNamed("closing-")).isEmpty();
            for (Socket client : clients) {
                assertThat(endsOrFails(client)).isTrue();
                client.close();
            }
            assertThatThrownBy(link::start).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void describesItself() throws Exception {
        LinkSpec spec = LinkSpec.of("a-b", 4_000_000, Duration.ofMillis(25));
        assertThat(spec).hasToString("a-b[rate=4.00 MB/s, delay=25 ms]");
        assertThat(LinkSpec.unlimited("x")).hasToString("x[rate=unlimited, delay=0 ms]");
        assertThatThrownBy(() -> LinkSpec.of("bad", -1, Duration.ZERO))
                .hasMessageContaining("rateBytesPerSecond must be >= 0");
        try (LinkEmulator link = new LinkEmulator(spec, new InetSocketAddress("127.0.0.1", 9))) {
            InetSocketAddress entry = link.start();
            assertThat(link.toString())
                    .isEqualTo("LinkEmulator[a-b[rate=4.00 MB/s, delay=25 ms] 127.0.0.1:" + entry.getPort()
                            + " -> 127.0.0.1:9]");
        }
    }

    // ---- helpers ----

    /** One round trip of a stamped frame: the way back measured from the server's stamp, and the whole trip. */
    record RoundTrip(long inboundNanos, double roundTripMillis) {
    }

    private static RoundTrip stampedRoundTrip(Socket client) throws IOException {
        byte[] frame = new byte[FrameEchoServer.FRAME_BYTES];
        long sent = System.nanoTime();
        ByteBuffer.wrap(frame).putLong(0, sent);
        client.getOutputStream().write(frame);
        new DataInputStream(client.getInputStream()).readFully(frame);
        long received = System.nanoTime();
        return new RoundTrip(received - ByteBuffer.wrap(frame).getLong(0), (received - sent) / 1e6);
    }

    private static Socket connect(InetSocketAddress address) throws IOException {
        Socket socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(address, 5_000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    private static void writeBytes(OutputStream out, long total) throws IOException {
        byte[] block = new byte[64 * 1024];
        for (long left = total; left > 0; left -= block.length) {
            out.write(block, 0, (int) Math.min(block.length, left));
        }
        out.flush();
    }

    private static void writeQuietly(Socket client, long total) {
        try {
            writeBytes(client.getOutputStream(), total);
        } catch (IOException e) {
            throw new IllegalStateException("writing " + total + " bytes failed", e);
        }
    }

    private static void countWrites(Socket client, long total, AtomicLong written) {
        byte[] block = new byte[16 * 1024];
        try {
            OutputStream out = client.getOutputStream();
            for (long left = total; left > 0; left -= block.length) {
                out.write(block);
                written.addAndGet(block.length);
            }
        } catch (IOException e) {
            // The test closed the socket: the write was blocked, which is what it checks.
        }
    }

    /** True when connecting fails, or the connection is closed or reset right after it was accepted. */
    private static boolean refusedOrDropped(InetSocketAddress address) throws IOException {
        Socket socket;
        try {
            socket = connect(address);
        } catch (SocketException e) {
            return true; // the reset overtook the handshake
        }
        try (socket) {
            return endsOrFails(socket);
        }
    }

    /** True when the peer closed or reset the connection within the socket timeout. */
    private static boolean endsOrFails(Socket socket) throws IOException {
        try {
            InputStream in = socket.getInputStream();
            return in.read() == -1;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true;
        }
    }

    /** Delivered rate from the first sample at or past {@code skipBytes} to the last sample. */
    private static double rate(List<CountingSink.Sample> samples, long skipBytes) {
        CountingSink.Sample from = samples.stream().filter(s -> s.totalBytes() >= skipBytes).findFirst().orElseThrow();
        CountingSink.Sample to = samples.get(samples.size() - 1);
        return (to.totalBytes() - from.totalBytes()) / ((to.nanos() - from.nanos()) / 1e9);
    }

    private static long timeAt(List<CountingSink.Sample> samples, long bytes) {
        return samples.stream().filter(s -> s.totalBytes() >= bytes).findFirst().orElseThrow().nanos();
    }

    private static long bytesAt(List<CountingSink.Sample> samples, long nanos) {
        long bytes = 0;
        for (CountingSink.Sample sample : samples) {
            if (sample.nanos() - nanos > 0) {
                break;
            }
            bytes = sample.totalBytes();
        }
        return bytes;
    }

    private static List<String> liveThreadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(name -> name.startsWith(prefix))
                .toList();
    }

    /** Summary of measured one-way delays against the configured one. */
    record DelayFigures(double minMillis, double medianMillis, double p90Millis, double maxMillis, double configured) {

        static DelayFigures of(List<Long> delaysNanos, Duration configured) {
            List<Double> sorted = delaysNanos.stream().map(n -> n / 1e6).sorted().toList();
            return new DelayFigures(sorted.get(0), sorted.get(sorted.size() / 2),
                    sorted.get((int) Math.ceil(sorted.size() * 0.9) - 1), sorted.get(sorted.size() - 1),
                    configured.toNanos() / 1e6);
        }

        double medianErrorMillis() {
            return medianMillis - configured;
        }

        double p90ErrorMillis() {
            return p90Millis - configured;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "min %.3f, median %.3f (error %+.3f), p90 %.3f (error %+.3f), max %.3f ms",
                    minMillis, medianMillis, medianErrorMillis(), p90Millis, p90ErrorMillis(), maxMillis);
        }
    }
}
