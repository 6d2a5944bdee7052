package io.jetstream.kafka.bench.wan;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A tiny network probe that {@link WanNetworkIT} runs inside the hosts' namespaces ({@code ip netns exec NS java -cp
 * test-classes ...WanProbe ...}), since a JVM cannot put its own sockets into another namespace. JDK only, so its
 * class path is just the test classes directory. Clients print one {@code RESULT key=value ...} line.
 *
 * <ul>
 *   <li>{@code serve BIND PORT}: on TCP, per connection, a first byte {@code E} echoes 8-byte messages until EOF, a
 *       first byte {@code S} swallows everything until EOF and answers the byte count and the nanoseconds from its
 *       first byte to EOF; on UDP, echoes each datagram with its arrival time filled in.</li>
 *   <li>{@code rtt HOST PORT COUNT}: TCP round trips of 8 bytes (no Nagle), min/p50/max in microseconds.</li>
 *   <li>{@code send HOST PORT BYTES}: one TCP transfer; the receiver's byte count and duration.</li>
 *   <li>{@code udp HOST PORT PPS MILLIS}: timestamped datagrams; one-way delay of each direction from the shared
 *       monotonic clock (both ends run on one machine), so the delay line's jitter shows undiluted by round
 *       trips.</li>
 * </ul>
 */
public final class WanProbe {

    private static final int UDP_BYTES = 24; // sequence, sent at, arrived at (nanoTime)

    private WanProbe() {
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "serve" -> serve(new InetSocketAddress(args[1], Integer.parseInt(args[2])));
            case "rtt" -> rtt(new InetSocketAddress(args[1], Integer.parseInt(args[2])), Integer.parseInt(args[3]));
            case "send" -> send(new InetSocketAddress(args[1], Integer.parseInt(args[2])), Long.parseLong(args[3]));
            case "udp" -> udp(new InetSocketAddress(args[1], Integer.parseInt(args[2])), Integer.parseInt(args[3]),
                    Long.parseLong(args[4]));
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        }
    }

    private static void serve(InetSocketAddress address) throws IOException {
        DatagramChannel udp = DatagramChannel.open().bind(address);
        Thread udpEcho = new Thread(() -> udpEcho(udp), "udp-echo");
        udpEcho.setDaemon(true);
        udpEcho.start();
        try (ServerSocket server = new ServerSocket()) {
            server.setReuseAddress(true);
            server.bind(address);
            System.out.println("LISTENING " + address);
            while (true) {
                Socket socket = server.accept();
                Thread handler = new Thread(() -> handle(socket), "tcp-" + socket.getRemoteSocketAddress());
                handler.setDaemon(true);
                handler.start();
            }
        }
    }

    private static void handle(Socket socket) {
        try (socket) {
            socket.setTcpNoDelay(true);
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            int mode = in.read();
            if (mode == 'E') {
                byte[] message = new byte[8];
                DataInputStream data = new DataInputStream(in);
                while (true) {
                    data.readFully(message);
                    out.write(message);
                    out.flush();
                }
            } else if (mode == 'S') {
                byte[] buffer = new byte[256 * 1024];
                long total = 0;
                long first = 0;
                int n;
                while ((n = in.read(buffer)) > 0) {
                    if (total == 0) {
                        first = System.nanoTime();
                    }
                    total += n;
                }
                DataOutputStream reply = new DataOutputStream(out);
                reply.writeLong(total);
                reply.writeLong(System.nanoTime() - first);
                reply.flush();
            }
        } catch (IOException e) {
            // the client went away (an EOF ends every echo): nothing to report
        }
    }

    private static void udpEcho(DatagramChannel udp) {
        ByteBuffer buffer = ByteBuffer.allocate(UDP_BYTES);
        try {
            while (true) {
                buffer.clear();
                SocketAddress from = udp.receive(buffer);
                long arrived = System.nanoTime();
                if (buffer.position() == UDP_BYTES) {
                    buffer.putLong(16, arrived).flip();
                    udp.send(buffer, from);
                }
            }
        } catch (IOException e) {
            System.err.println("udp echo stopped: " + e);
        }
    }

    private static void rtt(InetSocketAddress server, int count) throws IOException {
        try (Socket socket = new Socket()) {
            socket.setTcpNoDelay(true);
            socket.connect(server, 10_000);
            OutputStream out = socket.getOutputStream();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            out.write('E');
            byte[] message = new byte[8];
            long[] micros = new long[count];
            for (int i = 0; i < count; i++) {
                long started = System.nanoTime();
                out.write(message);
                out.flush();
                in.readFully(message);
                micros[i] = (System.nanoTime() - started) / 1_000;
            }
            Arrays.sort(micros);
            System.out.printf(Locale.ROOT, "RESULT count=%d min_us=%d p50_us=%d max_us=%d%n",
                    count, micros[0], micros[count / 2], micros[count - 1]);
        }
    }

    private static void send(InetSocketAddress server, long bytes) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(server, 10_000);
            OutputStream out = socket.getOutputStream();
            out.write('S');
            byte[] chunk = new byte[64 * 1024];
            long started = System.nanoTime();
            for (long left = bytes; left > 0; left -= chunk.length) {
                out.write(chunk, 0, (int) Math.min(chunk.length, left));
            }
            socket.shutdownOutput();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            long received = in.readLong();
            long receiverNanos = in.readLong();
            System.out.printf(Locale.ROOT, "RESULT bytes=%d receiver_nanos=%d sender_nanos=%d%n",
                    received, receiverNanos, System.nanoTime() - started);
        }
    }

    private static void udp(InetSocketAddress server, int packetsPerSecond, long millis) throws Exception {
        int total = (int) (packetsPerSecond * millis / 1000);
        int perTick = Math.max(1, packetsPerSecond / 1000);
        long[] forward = new long[total];
        long[] back = new long[total];
        AtomicInteger received = new AtomicInteger(); // published after each pair of array writes
        Thread receiver;
        try (DatagramChannel channel = DatagramChannel.open()) {
            channel.connect(server);
            receiver = new Thread(() -> {
                ByteBuffer buffer = ByteBuffer.allocate(UDP_BYTES);
                try {
                    while (received.get() < total) {
                        buffer.clear();
                        channel.read(buffer);
                        long now = System.nanoTime();
                        int index = received.get();
                        forward[index] = buffer.getLong(16) - buffer.getLong(8);
                        back[index] = now - buffer.getLong(16);
                        received.incrementAndGet();
                    }
                } catch (IOException e) {
                    // the channel was closed: the sender stopped waiting for lost echoes
                }
            }, "udp-receiver");
            receiver.start();
            // Paced in 1 ms ticks: a whole tick's datagrams leave back to back, as a busy sender's would.
            ByteBuffer buffer = ByteBuffer.allocate(UDP_BYTES);
            long started = System.nanoTime();
            for (int sent = 0; sent < total; ) {
                long wait = started + TimeUnit.MILLISECONDS.toNanos(sent / perTick) - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                for (int i = 0; i < perTick && sent < total; i++, sent++) {
                    buffer.clear();
                    buffer.putLong(sent).putLong(System.nanoTime()).putLong(0).flip();
                    channel.write(buffer);
                }
            }
            receiver.join(2_000);
        }
        receiver.join();
        int count = received.get();
        long[] f = Arrays.copyOf(forward, count);
        long[] b = Arrays.copyOf(back, count);
        Arrays.sort(f);
        Arrays.sort(b);
        System.out.printf(Locale.ROOT, "RESULT sent=%d received=%d %s %s%n", total, count,
                percentiles("forward", f), percentiles("back", b));
    }

    private static String percentiles(String name, long[] sortedNanos) {
        if (sortedNanos.length == 0) {
            return name + "_count=0";
        }
        int n = sortedNanos.length;
        return String.format(Locale.ROOT, "%1$s_min_us=%2$d %1$s_p50_us=%3$d %1$s_p99_us=%4$d %1$s_p999_us=%5$d"
                        + " %1$s_max_us=%6$d", name, sortedNanos[0] / 1000, sortedNanos[n / 2] / 1000,
                sortedNanos[(int) (n * 0.99)] / 1000, sortedNanos[Math.min(n - 1, (int) (n * 0.999))] / 1000,
                sortedNanos[n - 1] / 1000);
    }
}
