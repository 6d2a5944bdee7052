package io.jetstream.kafka.testkit.link;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Test target that echoes fixed-size frames. Each frame starts with the sender's {@link System#nanoTime()}: the server
 * records {@code now - stamp} as the one-way delay towards it, then replaces the stamp with its own send time so the
 * client can measure the way back. Both ends share the JVM's clock, so no clock offset enters the figures.
 */
final class FrameEchoServer implements AutoCloseable {

    static final int FRAME_BYTES = 64;

    private final ServerSocket server;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final List<Long> inboundDelaysNanos = new ArrayList<>();

    FrameEchoServer() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "frame-echo-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    InetSocketAddress address() {
        return (InetSocketAddress) server.getLocalSocketAddress();
    }

    synchronized List<Long> inboundDelaysNanos() {
        return List.copyOf(inboundDelaysNanos);
    }

    private synchronized void recordInbound(long nanos) {
        inboundDelaysNanos.add(nanos);
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                socket.setTcpNoDelay(true);
                sockets.add(socket);
                Thread echo = new Thread(() -> echo(socket), "frame-echo");
                echo.setDaemon(true);
                echo.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void echo(Socket socket) {
        try (socket) {
            DataInputStream in = new DataInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            byte[] frame = new byte[FRAME_BYTES];
            while (true) {
                in.readFully(frame);
                ByteBuffer buffer = ByteBuffer.wrap(frame);
                recordInbound(System.nanoTime() - buffer.getLong(0));
                buffer.putLong(0, System.nanoTime());
                out.write(frame);
            }
        } catch (IOException e) {
            // Peer closed or reset: the test decides whether that was expected.
        } finally {
            sockets.remove(socket);
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
