package io.jetstream.kafka.testkit.site;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Hands out listening ports for processes that must know their port before they start (a broker
 * advertises its address, a Connect worker its REST URL, a relay its listener).
 *
 * <p>The ports come from below the kernel's ephemeral range ({@code net.ipv4.ip_local_port_range}),
 * never from it: a port the kernel picked for {@code bind(0)} and that was released again is the very
 * port it hands to the next outgoing connection, and a process that connects to its cluster before it
 * binds its listener (a Connect worker looks up the cluster id before it starts its REST server) could
 * take its own port that way. Ports below the range are only ever taken by explicit binds. Each port is
 * handed out once per JVM, from a start that depends on the process id, so two test JVMs on one
 * machine rarely meet; each one is checked free on every local address before it is handed out.
 */
public final class Ports {

    private static final int FLOOR = 10_000;
    private static final Range RANGE = Range.below(ephemeralLow());
    private static final AtomicInteger NEXT = new AtomicInteger(
            (int) (ProcessHandle.current().pid() * 7919 % RANGE.size()));

    private Ports() {
    }

    /** A port free on every local address of this host now and never handed out before by this JVM. */
    public static int freePort() {
        for (int tries = 0; tries < RANGE.size(); tries++) {
            int port = RANGE.low + Math.floorMod(NEXT.getAndIncrement(), RANGE.size());
            if (bindable(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port in " + RANGE.low + "-" + (RANGE.low + RANGE.size() - 1));
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(port));
            return true;
        } catch (IOException taken) {
            return false;
        }
    }

    /** The low end of the kernel's ephemeral range, or Linux's default when it cannot be read. */
    private static int ephemeralLow() {
        try {
            // readString would trust the size /proc reports and may return a fragment: read lines instead.
            String[] range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim()
                    .split("\\s+");
            return Integer.parseInt(range[0]);
        } catch (IOException | RuntimeException unreadable) {
            return 32_768;
        }
    }

    private record Range(int low, int size) {
        static Range below(int ephemeralLow) {
            if (ephemeralLow - FLOOR >= 1_000) {
                return new Range(FLOOR, ephemeralLow - FLOOR);
            }
            // A host whose ephemeral range starts low: use the ports above it instead.
            return new Range(61_000, 4_000);
        }
    }
}
