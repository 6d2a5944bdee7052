package io.jetstream.kafka.testkit.link;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A user-space WAN link: a TCP proxy on 127.0.0.1 that forwards every accepted connection to one target and, in each
 * direction independently, caps the rate and adds a one-way propagation delay. Integration tests, the demo and the
 * benchmarks put one in front of each route, since {@code tc netem} is not available.
 *
 * <pre>{@code
 * try (LinkEmulator link = new LinkEmulator(LinkSpec.of("a-b", 4_000_000, Duration.ofMillis(25)), relayAddress)) {
 *     InetSocketAddress entry = link.start();    // connect here instead of relayAddress
 *     ...
 *     link.cut();                                // drop every connection, refuse new ones
 *     link.restore();
 * }
 * }</pre>
 *
 * <h2>Model and accuracy</h2>
 * Each direction is a bottleneck followed by a pipe, like a real path: bytes queue for the bottleneck, are serialized
 * at the link rate, then propagate for the one-way delay.
 * <ul>
 *   <li><b>Rate.</b> One {@link LinkPacer} per direction, shared by all connections, books each chunk on the wire in
 *       virtual time right after the previous booking (a FIFO transmitter). Because bookings chain from the previous
 *       finish time and not from when a reader thread happened to wake up, scheduler jitter does not accumulate: the
 *       long-run rate is exact while the link is busy, and a link that ran dry keeps at most 2 ms of credit. Chunks are
 *       about 1 ms of link time (1-64 KiB), so the rate is smooth at the millisecond scale and connections sharing
 *       the link interleave fairly.</li>
 *   <li><b>Delay.</b> A chunk is stamped with the time its transmission ends (never earlier than when it was read)
 *       and its writer waits, on an absolute deadline, until stamp + delay. Waiting on absolute deadlines means late
 *       wake-ups do not add up either; what remains is the wake-up latency of one park (typically 0.05-0.2 ms).
 *       Sockets use {@code TCP_NODELAY} so Nagle adds nothing.</li>
 *   <li><b>Delay does not cost throughput.</b> The reader keeps reading while earlier chunks wait out their delay,
 *       up to a per-connection, per-direction budget of {@code max(256 KiB, 1.25 * rate * delay + 64 KiB)} (4 MiB
 *       when the rate is unlimited). When the budget is full the reader stops reading its socket, so TCP pushes back
 *       on the sender: memory stays bounded and a slow receiver slows the sender, as on a real path.</li>
 * </ul>
 * Accuracy is measured by {@code LinkEmulatorTest} on loopback (a few MB/s, 25 ms delay): rate within 5 %, delay
 * within 2 ms.
 *
 * <h2>Threading and lifecycle</h2>
 * One accept thread per link and four threads per connection (a reader and a writer per direction), all daemon threads
 * named after the link. {@link #start()} once; {@link #cut()}, {@link #restore()}, {@link #setRate(long)},
 * {@link #setDelay(Duration)} and the counters may be called from any thread at any time. {@link #close()} is
 * idempotent, resets every connection, and joins the threads within a couple of seconds.
 */
public final class LinkEmulator implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LinkEmulator.class);

    private static final long MIN_BUDGET_BYTES = 256 * 1024;
    private static final long BUDGET_SLACK_BYTES = 64 * 1024;
    private static final long UNLIMITED_RATE_BUDGET_BYTES = 4 * 1024 * 1024;
    private static final long MAX_BUDGET_BYTES = 256L * 1024 * 1024;
    private static final int MIN_CHUNK_BYTES = 1024;
    private static final int MAX_CHUNK_BYTES = 64 * 1024;
    private static final int CONNECT_TIMEOUT_MILLIS = 5_000;
    private static final int ACCEPT_BACKLOG = 128;
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(3);

    private final String name;
    private final InetSocketAddress target;
    private final int listenPort;
    private final Map<LinkDirection, LinkPacer> pacers = new EnumMap<>(LinkDirection.class);
    private final Map<LinkDirection, LongAdder> forwarded = new EnumMap<>(LinkDirection.class);
    private final AtomicLong connectionIds = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final Set<LinkConnection> connections = ConcurrentHashMap.newKeySet();
    private final Set<Socket> connecting = ConcurrentHashMap.newKeySet();
    private final LinkThreads threads;
    /** Orders {@link #cut()} and {@link #close()} against connections being registered. */
    private final Object admission = new Object();
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile long delayNanos;
    private volatile boolean cut;
    private volatile ServerSocket server;

    /** A link listening on an ephemeral port of 127.0.0.1. */
    public LinkEmulator(LinkSpec spec, InetSocketAddress target) {
        this(spec, target, 0);
    }

    /** A link listening on the given port of 127.0.0.1 ({@code 0} = ephemeral). */
    public LinkEmulator(LinkSpec spec, InetSocketAddress target, int listenPort) {
        Objects.requireNonNull(spec, "spec");
        this.target = Objects.requireNonNull(target, "target");
        if (listenPort < 0 || listenPort > 65_535) {
            throw new IllegalArgumentException("link " + spec.name() + ": listenPort must be 0-65535, was " + listenPort);
        }
        this.name = spec.name();
        this.threads = new LinkThreads(name);
        this.listenPort = listenPort;
        this.delayNanos = spec.oneWayDelay().toNanos();
        for (LinkDirection direction : LinkDirection.values()) {
            pacers.put(direction, new LinkPacer(spec.rateBytesPerSecond()));
            forwarded.put(direction, new LongAdder());
        }
    }

    /**
     * Binds the listening socket and starts accepting.
     *
     * @return the address clients connect to instead of the target
     * @throws IOException           if the port cannot be bound
     * @throws IllegalStateException if already started or closed
     */
    public InetSocketAddress start() throws IOException {
        if (closed.get() || !started.compareAndSet(false, true)) {
            throw new IllegalStateException("link " + name + " was already started or closed");
        }
        ServerSocket socket = new ServerSocket();
        try {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), listenPort), ACCEPT_BACKLOG);
        } catch (IOException e) {
            socket.close();
            throw new IOException("link " + name + ": cannot listen on 127.0.0.1:" + listenPort, e);
        }
        server = socket;
        startThread(name + "-accept", this::acceptLoop);
        log.info("link {} listening on 127.0.0.1:{} -> {}", spec(), address().getPort(), target);
        return address();
    }

    /** The address clients connect to; null before {@link #start()}. */
    public InetSocketAddress address() {
        ServerSocket socket = server;
        return socket == null ? null : (InetSocketAddress) socket.getLocalSocketAddress();
    }

    public InetSocketAddress target() {
        return target;
    }

    public String name() {
        return name;
    }

    /** The link as it is now, with any rate or delay set at run time. */
    public LinkSpec spec() {
        return new LinkSpec(name, pacers.get(LinkDirection.CLIENT_TO_TARGET).rate(), Duration.ofNanos(delayNanos));
    }

    /** Drops every current connection (reset on both sides) and refuses new ones until {@link #restore()}. */
    public void cut() {
        List<LinkConnection> dropped;
        synchronized (admission) {
            cut = true;
            dropped = new ArrayList<>(connections);
        }
        dropped.forEach(LinkConnection::abort);
        log.info("link {} cut: reset {} connections", name, dropped.size());
    }

    /** Accepts and forwards connections again after {@link #cut()}. */
    public void restore() {
        cut = false;
        log.info("link {} restored", name);
    }

    public boolean isCut() {
        return cut;
    }

    /** Changes the rate cap of both directions (0 = unlimited); applies to the next bytes booked. */
    public void setRate(long rateBytesPerSecond) {
        if (rateBytesPerSecond < 0) {
            throw new IllegalArgumentException("link " + name + ": rate must be >= 0, was " + rateBytesPerSecond);
        }
        pacers.values().forEach(pacer -> pacer.setRate(rateBytesPerSecond));
        connections.forEach(LinkConnection::wakeUp);
        log.info("link {} rate set: {}", name, spec());
    }

    /** Changes the one-way delay of both directions; applies to bytes already in flight too. */
    public void setDelay(Duration oneWayDelay) {
        LinkSpec checked = spec().withDelay(oneWayDelay);
        delayNanos = checked.oneWayDelay().toNanos();
        connections.forEach(LinkConnection::wakeUp);
        log.info("link {} delay set: {}", name, checked);
    }

    /** Bytes written to the destination side of {@code direction} since start. */
    public long bytesForwarded(LinkDirection direction) {
        return forwarded.get(direction).sum();
    }

    public long connectionsAccepted() {
        return accepted.get();
    }

    public int currentConnections() {
        return connections.size();
    }

    public LinkStats stats() {
        return new LinkStats(bytesForwarded(LinkDirection.CLIENT_TO_TARGET),
                bytesForwarded(LinkDirection.TARGET_TO_CLIENT), accepted.get(), refused.get(), connections.size());
    }

    /** Stops accepting, resets every connection and joins every thread; idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        long startNanos = System.nanoTime();
        ServerSocket socket = server;
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException e) {
                log.debug("link {}: closing the listening socket failed: {}", name, e.toString());
            }
        }
        List<LinkConnection> dropped;
        synchronized (admission) {
            dropped = new ArrayList<>(connections);
        }
        dropped.forEach(LinkConnection::abort);
        connecting.forEach(pending -> LinkConnection.closeSocket(pending, true));
        boolean allJoined = threads.interruptAndJoin(startNanos + JOIN_TIMEOUT.toNanos());
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        if (allJoined) {
            log.info("link {} closed in {} ms", name, millis);
        } else {
            log.warn("link {} closed in {} ms, threads still running: {}", name, millis, threads);
        }
    }

    private void acceptLoop() {
        while (!closed.get()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (!closed.get()) {
                    log.warn("link {}: accept failed, link stops accepting", name, e);
                }
                return;
            }
            if (cut) {
                refused.incrementAndGet();
                LinkConnection.closeSocket(client, true);
                continue;
            }
            long id = connectionIds.incrementAndGet();
            startThread(name + "-c" + id + "-connect", () -> connect(id, client));
        }
    }

    /** Connects to the target outside the accept loop so an unreachable target does not stall other clients. */
    private void connect(long id, Socket client) {
        Socket upstream = new Socket();
        connecting.add(upstream);
        try {
            client.setTcpNoDelay(true);
            upstream.setTcpNoDelay(true);
            upstream.connect(target, CONNECT_TIMEOUT_MILLIS);
        } catch (IOException e) {
            refused.incrementAndGet();
            LinkConnection.closeSocket(client, true);
            LinkConnection.closeSocket(upstream, true);
            log.debug("link {}: connection {} refused, target {} unreachable: {}", name, id, target, e.toString());
            return;
        } finally {
            connecting.remove(upstream);
        }
        LinkConnection connection = new LinkConnection(this, id, client, upstream);
        boolean admitted;
        synchronized (admission) {
            admitted = !cut && !closed.get();
            if (admitted) {
                connections.add(connection);
                accepted.incrementAndGet();
            } else {
                refused.incrementAndGet();
            }
        }
        if (admitted) {
            connection.start();
            log.debug("link {}: connection {} open", name, connection);
        } else {
            connection.abort();
        }
    }

    // ---- collaborators of LinkConnection ----

    LinkPacer pacer(LinkDirection direction) {
        return pacers.get(direction);
    }

    long delayNanos() {
        return delayNanos;
    }

    /** Per connection and direction: enough for rate x delay in flight plus slack, so delay never costs rate. */
    long inFlightBudgetBytes() {
        long rate = pacers.get(LinkDirection.CLIENT_TO_TARGET).rate();
        if (rate == 0) {
            return UNLIMITED_RATE_BUDGET_BYTES;
        }
        double inFlight = 1.25 * rate * (delayNanos / 1e9) + BUDGET_SLACK_BYTES;
        return (long) Math.min(MAX_BUDGET_BYTES, Math.max(MIN_BUDGET_BYTES, inFlight));
    }

    /** About one millisecond of link time, so pacing is smooth and connections interleave. */
    int chunkBytes() {
        long rate = pacers.get(LinkDirection.CLIENT_TO_TARGET).rate();
        if (rate == 0) {
            return MAX_CHUNK_BYTES;
        }
        return (int) Math.min(MAX_CHUNK_BYTES, Math.max(MIN_CHUNK_BYTES, rate / 1000));
    }

    /** Bytes held in the delay lines of all connections in {@code direction}; for tests of the budget. */
    long bufferedBytes(LinkDirection direction) {
        return connections.stream().mapToLong(connection -> connection.bufferedBytes(direction)).sum();
    }

    void countForwarded(LinkDirection direction, int bytes) {
        forwarded.get(direction).add(bytes);
    }

    void connectionClosed(LinkConnection connection) {
        connections.remove(connection);
    }

    void startThread(String threadName, Runnable body) {
        threads.start(threadName, body);
    }

    /** For example {@code LinkEmulator[a-b[rate=4.00 MB/s, delay=25 ms] 127.0.0.1:40123 -> 127.0.0.1:9092]}. */
    @Override
    public String toString() {
        InetSocketAddress bound = address();
        String listening = bound == null ? "unbound" : bound.getAddress().getHostAddress() + ":" + bound.getPort();
        String state = closed.get() ? ", closed" : cut ? ", cut" : "";
        return "LinkEmulator[" + spec() + " " + listening + " -> " + target.getHostString() + ":" + target.getPort()
                + state + "]";
    }
}
