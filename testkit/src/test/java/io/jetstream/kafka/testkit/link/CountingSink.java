package io.jetstream.kafka.testkit.link;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Test target that reads and discards, keeping per connection (in accept order) the arrival time of every read so a
 * test can compute the delivered rate over any window. With {@code reading=false} it accepts and never reads, to
 * exercise backpressure.
 */
final class CountingSink implements AutoCloseable {

    /** Cumulative bytes of one connection after a read, and when that read returned. */
    record Sample(long nanos, long totalBytes) {
    }

    private final boolean reading;
    private final ServerSocket server;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Map<Integer, List<Sample>> samples = new ConcurrentHashMap<>();
    private final AtomicLong totalBytes = new AtomicLong();

    CountingSink(boolean reading) throws IOException {
        this.reading = reading;
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "counting-sink-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    InetSocketAddress address() {
        return (InetSocketAddress) server.getLocalSocketAddress();
    }

    long totalBytes() {
        return totalBytes.get();
    }

    /** Samples of the {@code index}-th accepted connection (0-based), oldest first. */
    List<Sample> samples(int index) {
        List<Sample> connection = samples.get(index);
        if (connection == null) {
            return List.of();
        }
        synchronized (connection) {
            return List.copyOf(connection);
        }
    }

    private void acceptLoop() {
        int index = 0;
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                sockets.add(socket);
                List<Sample> connection = new ArrayList<>();
                samples.put(index++, connection);
                if (reading) {
                    Thread drain = new Thread(() -> drain(socket, connection), "counting-sink-read");
                    drain.setDaemon(true);
                    drain.start();
                }
            } catch (IOException e) {
                return;
            }
        }
    }

    private void drain(Socket socket, List<Sample> connection) {
        byte[] buffer = new byte[64 * 1024];
        long total = 0;
        try (socket) {
            InputStream in = socket.getInputStream();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                long now = System.nanoTime();
                total += n;
                totalBytes.addAndGet(n);
                synchronized (connection) {
                    connection.add(new Sample(now, total));
                }
            }
        } catch (IOException e) {
            // Reset by the link: nothing more to count.
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
