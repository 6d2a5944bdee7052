package io.jetstream.kafka.testkit.link;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One proxied TCP connection: a client socket, its target socket and, per direction, a reader thread and a writer
 * thread joined by a {@link DelayLine}.
 *
 * <p>Per direction the reader reads a chunk of at most {@link LinkEmulator#chunkBytes()} bytes, waits for room in the
 * delay line (backpressure), books the chunk on the direction's shared {@link LinkPacer}, waits until its transmission
 * starts, and hands it to the delay line stamped with the time its transmission ends. The writer writes each chunk
 * once its stamp plus the one-way delay has passed.
 *
 * <p>End of stream is propagated as a half-close after the same delay; when both directions have ended the sockets are
 * closed normally. Any I/O error, {@link #abort()} or the link's {@code cut()} closes both sockets with a reset (linger
 * 0) and drops the bytes in flight. Closing is idempotent and deregisters the connection exactly once.
 */
final class LinkConnection {

    private static final Logger log = LoggerFactory.getLogger(LinkConnection.class);

    private final LinkEmulator link;
    private final String name;
    private final Socket client;
    private final Socket target;
    private final Map<LinkDirection, DelayLine> lines = new EnumMap<>(LinkDirection.class);
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicInteger openDirections = new AtomicInteger(LinkDirection.values().length);

    LinkConnection(LinkEmulator link, long id, Socket client, Socket target) {
        this.link = link;
        this.name = link.name() + "-c" + id;
        this.client = client;
        this.target = target;
        for (LinkDirection direction : LinkDirection.values()) {
            lines.put(direction, new DelayLine(link::inFlightBudgetBytes, link::delayNanos));
        }
    }

    /** Starts the four pump threads. */
    void start() {
        for (LinkDirection direction : LinkDirection.values()) {
            boolean outbound = direction == LinkDirection.CLIENT_TO_TARGET;
            Socket from = outbound ? client : target;
            Socket to = outbound ? target : client;
            String prefix = name + "-" + direction.shortName();
            link.startThread(prefix + "-read", () -> readLoop(direction, from));
            link.startThread(prefix + "-write", () -> writeLoop(direction, to));
        }
    }

    private void readLoop(LinkDirection direction, Socket from) {
        DelayLine line = lines.get(direction);
        LinkPacer pacer = link.pacer(direction);
        try {
            InputStream in = from.getInputStream();
            while (!closed.get()) {
                byte[] buffer = new byte[link.chunkBytes()];
                int length = in.read(buffer);
                long readAtNanos = System.nanoTime();
                if (length < 0) {
                    line.putEnd(readAtNanos);
                    return;
                }
                if (!line.awaitSpace(length)) {
                    return;
                }
                LinkPacer.Slot slot = pacer.reserve(length, System.nanoTime());
                if (!parkUntil(slot.startNanos())) {
                    return;
                }
                // A chunk that used up credit may "end" before it was read: never deliver earlier than read + delay.
                long readyAtNanos = slot.endNanos() - readAtNanos > 0 ? slot.endNanos() : readAtNanos;
                byte[] data = length < buffer.length / 2 ? Arrays.copyOf(buffer, length) : buffer;
                line.put(data, length, readyAtNanos);
            }
        } catch (IOException e) {
            failed(direction, "read", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abort();
        }
    }

    private void writeLoop(LinkDirection direction, Socket to) {
        DelayLine line = lines.get(direction);
        try {
            OutputStream out = to.getOutputStream();
            while (true) {
                DelayLine.Chunk chunk = line.take();
                if (chunk == null) {
                    return;
                }
                if (chunk.isEnd()) {
                    to.shutdownOutput();
                    directionEnded();
                    return;
                }
                out.write(chunk.data(), 0, chunk.length());
                line.release(chunk);
                link.countForwarded(direction, chunk.length());
            }
        } catch (IOException e) {
            failed(direction, "write", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abort();
        }
    }

    /** Waits until {@code deadlineNanos}; false if the connection closed meanwhile. */
    private boolean parkUntil(long deadlineNanos) throws InterruptedException {
        long remaining;
        while (!closed.get() && (remaining = deadlineNanos - System.nanoTime()) > 0) {
            LockSupport.parkNanos(this, remaining);
            if (Thread.interrupted()) {
                throw new InterruptedException("link " + name + " closing");
            }
        }
        return !closed.get();
    }

    private void failed(LinkDirection direction, String operation, IOException e) {
        if (!closed.get()) {
            log.debug("link connection {}: {} {} failed, resetting both sides: {}", name, direction, operation,
                    e.toString());
            abort();
        }
    }

    private void directionEnded() {
        if (openDirections.decrementAndGet() == 0) {
            close(false);
        }
    }

    /** Drops the connection: resets both sockets and discards the bytes in flight. Idempotent. */
    void abort() {
        close(true);
    }

    private void close(boolean reset) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        lines.values().forEach(DelayLine::close);
        closeSocket(client, reset);
        closeSocket(target, reset);
        link.connectionClosed(this);
        log.debug("link connection {} {}", name, reset ? "reset" : "closed");
    }

    static void closeSocket(Socket socket, boolean reset) {
        try {
            if (reset && !socket.isClosed()) {
                socket.setSoLinger(true, 0);
            }
        } catch (IOException ignored) {
            // Already broken: a plain close is all that is left.
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closing is best effort; the socket is unusable either way.
        }
    }

    long bufferedBytes(LinkDirection direction) {
        return lines.get(direction).bufferedBytes();
    }

    void wakeUp() {
        lines.values().forEach(DelayLine::wakeUp);
    }

    @Override
    public String toString() {
        return name;
    }
}
