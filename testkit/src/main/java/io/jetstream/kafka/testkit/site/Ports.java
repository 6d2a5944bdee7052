package io.jetstream.kafka.testkit.site;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Picks free loopback ports for child processes that need their ports before they start (a broker
 * must know the address it advertises). The port is released before it is used, so another process
 * could take it in between; on a test machine that race is rare, and a failed start names the port.
 */
final class Ports {

    private Ports() {
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("No free loopback port", e);
        }
    }
}
