package io.jetstream.kafka.relay.server;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a stranger can hold on the data listener: connections that have not completed their
 * handshake (TLS, then an accepted HELLO) are limited in number and in time.
 *
 * <ul>
 *   <li>{@link #admit} is asked for every accepted connection before anything else is done with it.
 *       Beyond {@code handshake.pending.max} connections in their handshake, or
 *       {@code handshake.pending.per.address.max} from the connection's IP address, it is refused:
 *       the caller closes it at once (no TLS, no read), counted as {@code connection_limit}.</li>
 *   <li>An admitted connection that has not been {@linkplain #authenticated authenticated} within
 *       {@code handshake.timeout.ms} is closed, counted as {@code handshake_timeout}.</li>
 *   <li>Its place is returned when it authenticates or closes, whichever comes first.</li>
 * </ul>
 * Authenticated connections are not limited here. Thread-safe: accepts happen on several event
 * loops; the counts are under one lock, taken once per accept and once per handshake.
 */
public final class HandshakeAdmission {

    private static final Logger log = LoggerFactory.getLogger(HandshakeAdmission.class);
    private static final AttributeKey<Ticket> TICKET = AttributeKey.valueOf(HandshakeAdmission.class, "ticket");
    /** Key of connections without an IP address (in-process channels in tests). */
    private static final String NO_ADDRESS = "(no address)";

    private final int maxPending;
    private final int maxPendingPerAddress;
    private final Duration timeout;
    private final RelayMetrics metrics;
    private final Map<Object, Integer> pendingByAddress = new HashMap<>();
    private int pending;

    /** With the limits of {@code config}. */
    public HandshakeAdmission(RelayConfig config, RelayMetrics metrics) {
        this(config.handshakePendingMax(), config.handshakePendingPerAddressMax(), config.handshakeTimeout(), metrics);
    }

    HandshakeAdmission(int maxPending, int maxPendingPerAddress, Duration timeout, RelayMetrics metrics) {
        this.maxPending = maxPending;
        this.maxPendingPerAddress = Math.min(maxPendingPerAddress, maxPending);
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    /**
     * Takes a place for a just-accepted, registered connection and starts its handshake deadline.
     *
     * @return false if it must be refused (counted here; the caller closes it)
     */
    public boolean admit(Channel channel) {
        Object address = addressOf(channel.remoteAddress());
        synchronized (this) {
            int fromAddress = pendingByAddress.getOrDefault(address, 0);
            boolean full = pending >= maxPending;
            boolean fullForAddress = fromAddress >= maxPendingPerAddress;
            if (full || fullForAddress) {
                metrics.errors(ErrorKind.CONNECTION_LIMIT).inc();
                log.debug("Refusing {}: {} connections in handshake ({} from {}); limits {} and {} per address",
                        channel, pending, fromAddress, address, maxPending, maxPendingPerAddress);
                return false;
            }
            pending++;
            pendingByAddress.put(address, fromAddress + 1);
        }
        Ticket ticket = new Ticket(address);
        channel.attr(TICKET).set(ticket);
        ticket.deadline = channel.eventLoop().schedule(() -> expire(channel, ticket), timeout.toMillis(),
                TimeUnit.MILLISECONDS);
        channel.closeFuture().addListener(f -> ticket.release());
        return true;
    }

    /**
     * The handshake of {@code channel} succeeded: its place is returned and its deadline cancelled.
     * Does nothing for a connection that holds no place (outgoing, or already released). Call on
     * the channel's event loop.
     */
    public static void authenticated(Channel channel) {
        Ticket ticket = channel.attr(TICKET).getAndSet(null);
        if (ticket != null) {
            ticket.release();
        }
    }

    /** Connections in their handshake now. */
    public synchronized int pending() {
        return pending;
    }

    private void expire(Channel channel, Ticket ticket) {
        if (ticket.released || !channel.isActive()) {
            return;
        }
        metrics.errors(ErrorKind.HANDSHAKE_TIMEOUT).inc();
        log.info("Closing {}: no completed handshake within {} ms (handshake.timeout.ms)", channel,
                timeout.toMillis());
        channel.close();
    }

    private static Object addressOf(SocketAddress remote) {
        if (remote instanceof InetSocketAddress inet) {
            InetAddress address = inet.getAddress();
            return address != null ? address : inet.getHostString();
        }
        return NO_ADDRESS;
    }

    /** One admitted connection's place; released once. */
    private final class Ticket {
        private final Object address;
        private ScheduledFuture<?> deadline;
        private volatile boolean released;

        Ticket(Object address) {
            this.address = address;
        }

        void release() {
            ScheduledFuture<?> timer;
            synchronized (HandshakeAdmission.this) {
                if (released) {
                    return;
                }
                released = true;
                timer = deadline;
                pending--;
                pendingByAddress.computeIfPresent(address, (a, n) -> n == 1 ? null : n - 1);
            }
            if (timer != null) {
                timer.cancel(false);
            }
        }
    }
}
