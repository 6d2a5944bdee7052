package io.jetstream.kafka.bench.wan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer.OrderAnnotation;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Builds a real kernel WAN (two hosts at A, one at B, 20 Mbit/s uplinks, 25 ms one way) and checks that it is what it
 * claims, with {@link WanProbe} processes run inside the hosts' namespaces: cross-site traffic pays the delay in each
 * direction and the uplink cap, same-site and root-namespace traffic pays neither, the counters see every byte, the
 * cap can change at run time, and close() leaves nothing behind. Validity, not performance: the bounds are wide enough
 * for a busy 2-core machine. Skipped where the machine cannot build namespaces (not root, no TUN, no gcc).
 *
 * <p>Prefix {@code jsit}, so it never collides with a network brought up by hand ({@code js}).
 */
@TestMethodOrder(OrderAnnotation.class)
class WanNetworkIT {

    private static final WanSpec SPEC = WanSpec.defaults().withPrefix("jsit").withSourceHosts(2)
            .withDestinationHosts(1).withUplinkBitsPerSecond(20_000_000);
    private static final long DELAY_MILLIS = SPEC.oneWayDelay().toMillis();
    private static final int PORT = 5201;
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    static Path workDir;

    private static WanNetwork network;
    private static final List<Process> servers = new ArrayList<>();

    @BeforeAll
    static void buildTheNetwork() throws Exception {
        assumeTrue(WanNetwork.unavailableReason().isEmpty(),
                () -> "no kernel WAN here: " + WanNetwork.unavailableReason().orElse(""));
        network = WanNetwork.create(SPEC, workDir.resolve("wan"));
        for (String host : List.of("a2", "b1")) {
            WanHost server = network.host(host);
            servers.add(startProbe(server, workDir.resolve("server-" + host + ".log"),
                    "serve", server.address(), Integer.toString(PORT)));
            // The root namespace reaches every host over the LAN: poll until the probe accepts connections.
            await("probe server on " + host).atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .until(() -> canConnect(server));
        }
    }

    @AfterAll
    static void removeTheNetwork() {
        servers.forEach(Process::destroyForcibly);
        if (network != null) {
            network.close();
        }
    }

    @Test
    @Order(1)
    void crossSiteRoundTripsPayTheDelayBothWays() throws Exception {
        Map<String, Long> rtt = probe("a1", "rtt", network.host("b1").address(), Integer.toString(PORT), "20");

        assertThat(rtt.get("min_us")).isGreaterThanOrEqualTo((2 * DELAY_MILLIS - 1) * 1_000);
        assertThat(rtt.get("p50_us")).isLessThan((2 * DELAY_MILLIS + 25) * 1_000);
    }

    @Test
    @Order(2)
    void sameSiteRoundTripsStayOnTheLan() throws Exception {
        Map<String, Long> rtt = probe("a1", "rtt", network.host("a2").address(), Integer.toString(PORT), "20");

        assertThat(rtt.get("p50_us")).isLessThan(10_000);
    }

    @Test
    @Order(3)
    void theRootNamespaceReachesHostsOfBothSitesDirectly() throws Exception {
        for (String host : List.of("a2", "b1")) {
            assertThat(rootRoundTripMicros(network.host(host))).as(host).isLessThan(10_000);
        }
    }

    @Test
    @Order(4)
    void eachDirectionPaysTheOneWayDelay() throws Exception {
        Map<String, Long> udp = probe("a1", "udp", network.host("b1").address(), Integer.toString(PORT), "2000",
                "1000");

        assertThat(udp.get("received")).isGreaterThan(udp.get("sent") * 9 / 10);
        for (String direction : List.of("forward", "back")) {
            assertThat(udp.get(direction + "_min_us")).as(direction).isGreaterThanOrEqualTo(DELAY_MILLIS * 1_000);
            assertThat(udp.get(direction + "_p50_us")).as(direction).isLessThan((DELAY_MILLIS + 10) * 1_000);
        }
    }

    @Test
    @Order(5)
    void crossSiteTransfersAreCappedAndCountedOnTheSendersUplink() throws Exception {
        long bytes = 5_000_000;
        long a1Before = network.uplinkTxBytes("a1");
        long b1Before = network.uplinkTxBytes("b1");

        Map<String, Long> sent = probe("a1", "send", network.host("b1").address(), Integer.toString(PORT),
                Long.toString(bytes));

        long bitsPerSecond = sent.get("bytes") * 8 * 1_000_000_000L / sent.get("receiver_nanos");
        assertThat(sent.get("bytes")).isEqualTo(bytes);
        assertThat(bitsPerSecond).isLessThan(SPEC.uplinkBitsPerSecond() * 13 / 10)
                .isGreaterThan(SPEC.uplinkBitsPerSecond() / 5);
        long a1Sent = network.uplinkTxBytes("a1") - a1Before;
        long b1Sent = network.uplinkTxBytes("b1") - b1Before;
        System.out.printf("Uplink bytes while a1 sent %d bytes to b1: a1 %d, b1 %d%n", bytes, a1Sent, b1Sent);
        assertThat(a1Sent).isGreaterThanOrEqualTo(bytes).isLessThan(bytes * 12 / 10);
        assertThat(b1Sent).as("b1 sends acknowledgements only").isLessThan(a1Sent / 10);
    }

    @Test
    @Order(6)
    void sameSiteTransfersAreNeitherCappedNorCounted() throws Exception {
        long bytes = 5_000_000;
        long a1Before = network.uplinkTxBytes("a1");

        Map<String, Long> sent = probe("a1", "send", network.host("a2").address(), Integer.toString(PORT),
                Long.toString(bytes));

        long bitsPerSecond = sent.get("bytes") * 8 * 1_000_000_000L / sent.get("receiver_nanos");
        assertThat(bitsPerSecond).isGreaterThan(SPEC.uplinkBitsPerSecond() * 13 / 10);
        assertThat(network.uplinkTxBytes("a1") - a1Before).isLessThan(16 * 1024);
    }

    @Test
    @Order(7)
    void uplinkCapChangesWhileRunning() throws Exception {
        long cap = 5_000_000;
        network.setUplinkRate("a1", cap);
        try {
            Map<String, Long> sent = probe("a1", "send", network.host("b1").address(), Integer.toString(PORT),
                    "1500000");

            long bitsPerSecond = sent.get("bytes") * 8 * 1_000_000_000L / sent.get("receiver_nanos");
            assertThat(network.uplinkRate("a1")).isEqualTo(cap);
            assertThat(bitsPerSecond).isLessThan(cap * 13 / 10).isGreaterThan(cap / 5);
        } finally {
            network.setUplinkRate("a1", SPEC.uplinkBitsPerSecond());
        }
    }

    @Test
    @Order(8)
    void anExtraDelayLengthensTheRoundTripsOfThatHostOnlyAndCanBeUndone() throws Exception {
        Duration extra = Duration.ofMillis(20);
        String b1 = network.host("b1").address();
        network.setExtraDelay("a1", extra);
        Map<String, Long> slow;
        Map<String, Long> other;
        try {
            assertThat(network.extraDelay("a1")).isEqualTo(extra);
            slow = probe("a1", "rtt", b1, Integer.toString(PORT), "20");
            other = probe("a2", "rtt", b1, Integer.toString(PORT), "20");
        } finally {
            network.setExtraDelay("a1", Duration.ZERO);
        }
        Map<String, Long> restored = probe("a1", "rtt", b1, Integer.toString(PORT), "20");

        long extraMicros = extra.toNanos() / 1_000;
        assertThat(slow.get("min_us")).isGreaterThanOrEqualTo((2 * DELAY_MILLIS - 1) * 1_000 + extraMicros);
        assertThat(slow.get("min_us") - other.get("min_us")).as("a1's round trips minus a2's")
                .isGreaterThanOrEqualTo(extraMicros - 1_000);
        assertThat(other.get("min_us")).isGreaterThanOrEqualTo((2 * DELAY_MILLIS - 1) * 1_000);
        assertThat(restored.get("min_us")).as("back to the base delay").isLessThan(slow.get("min_us"));
        assertThat(network.extraDelay("a1")).isZero();
        assertThatThrownBy(() -> network.setExtraDelay("a1", Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> network.setExtraDelay("c9", extra)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @Order(9)
    void theDelayLineRunsAndDropsNothing() throws Exception {
        long pid = network.delayLinePid();
        assertThat(pid).isPositive();
        assertThat(ProcessHandle.of(pid)).hasValueSatisfying(process -> assertThat(process.isAlive()).isTrue());

        // Every cross-site byte went through it: at least the 6.5 MB the transfers above sent from a1 to b1.
        DelayLineStats stats = await("delay line counters").atMost(Duration.ofSeconds(5)).ignoreExceptions()
                .until(() -> network.delayLineStats().filter(s -> s.bytes() >= 6_500_000).orElse(null), Objects::nonNull);
        assertThat(stats.dropped()).isZero();
        assertThat(stats.writeErrors()).isZero();
    }

    @Test
    @Order(10)
    void closeRemovesEverythingAndIsIdempotent() throws Exception {
        long delayLinePid = network.delayLinePid();
        servers.forEach(Process::destroyForcibly);

        network.close();
        network.close();

        CommandRunner runner = new CommandRunner();
        assertThat(Leftovers.parseNamespaces(runner.run(List.of("ip", "netns", "list"))))
                .noneMatch(name -> name.startsWith(SPEC.prefix() + "-"));
        assertThat(Leftovers.parseLinkNames(runner.run(List.of("ip", "-o", "link", "show"))))
                .noneMatch(name -> AddressPlan.ownsRootLink(SPEC.prefix(), name));
        assertThat(ProcessHandle.of(delayLinePid).filter(ProcessHandle::isAlive)).isEmpty();
        assertThatThrownBy(() -> network.uplinkTxBytes("a1")).isInstanceOf(IllegalStateException.class);
    }

    /** Runs {@code WanProbe args} on {@code host}, waits for it, and returns its RESULT line's numbers. */
    private static Map<String, Long> probe(String host, String... args) throws Exception {
        Path log = workDir.resolve("probe-" + host + "-" + args[0] + "-" + System.nanoTime() + ".log");
        Process process = startProbe(network.host(host), log, args);
        if (!process.waitFor(CLIENT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("WanProbe " + Arrays.toString(args) + " on " + host + " did not finish in "
                    + CLIENT_TIMEOUT + ": " + Files.readString(log));
        }
        String output = Files.readString(log);
        String result = output.lines().filter(line -> line.startsWith("RESULT ")).findFirst()
                .orElseThrow(() -> new AssertionError("WanProbe " + Arrays.toString(args) + " on " + host
                        + " exited with " + process.exitValue() + " and no result: " + output));
        Map<String, Long> values = new HashMap<>();
        for (String word : result.substring("RESULT ".length()).split(" ")) {
            String[] pair = word.split("=", 2);
            values.put(pair[0], Long.parseLong(pair[1]));
        }
        System.out.println("WanProbe " + String.join(" ", args) + " on " + host + ": " + result);
        return values;
    }

    private static Process startProbe(WanHost host, Path log, String... args) throws IOException {
        List<String> command = new ArrayList<>(host.commandPrefix());
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", probeClassPath(), WanProbe.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** The test classes directory alone: the probe needs nothing but the JDK. */
    private static String probeClassPath() {
        try {
            return Path.of(WanProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean canConnect(WanHost host) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host.address(), PORT), 1_000);
            return true;
        }
    }

    /** Median of 10 TCP round trips from this JVM (root namespace) to the host's probe. */
    private static long rootRoundTripMicros(WanHost host) throws IOException {
        try (Socket socket = new Socket()) {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host.address(), PORT), 5_000);
            OutputStream out = socket.getOutputStream();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            out.write('E');
            byte[] message = new byte[8];
            long[] micros = new long[10];
            for (int i = 0; i < micros.length; i++) {
                long started = System.nanoTime();
                out.write(message);
                out.flush();
                in.readFully(message);
                micros[i] = (System.nanoTime() - started) / 1_000;
            }
            Arrays.sort(micros);
            return micros[micros.length / 2];
        }
    }
}
