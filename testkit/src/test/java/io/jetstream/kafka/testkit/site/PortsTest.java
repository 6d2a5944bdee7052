package io.jetstream.kafka.testkit.site;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PortsTest {

    @Test
    void portsAreDistinctBindableAndOutsideTheEphemeralRange() throws IOException {
        String[] range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim()
                .split("\\s+");
        int low = Integer.parseInt(range[0]);
        int high = Integer.parseInt(range[1]);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            int port = Ports.freePort();
            assertThat(seen.add(port)).as("port %d handed out twice", port).isTrue();
            assertThat(port < low || port > high).as("port %d inside ephemeral %d-%d", port, low, high).isTrue();
        }
        int port = Ports.freePort();
        try (ServerSocket server = new ServerSocket()) {
            server.bind(new InetSocketAddress("127.0.0.1", port));
        }
    }

    @Test
    void aPortInUseIsSkipped() throws IOException {
        int first = Ports.freePort();
        // Hold the next few candidates: the allocator must step over them.
        Set<ServerSocket> held = new HashSet<>();
        try {
            for (int p = first + 1; p <= first + 3; p++) {
                ServerSocket socket = new ServerSocket();
                socket.bind(new InetSocketAddress(p));
                held.add(socket);
            }
            int next = Ports.freePort();
            assertThat(next < first + 1 || next > first + 3).as("port %d is held", next).isTrue();
            try (ServerSocket server = new ServerSocket()) {
                server.bind(new InetSocketAddress(next));
            }
        } finally {
            for (ServerSocket socket : held) {
                socket.close();
            }
        }
    }
}
