package io.jetstream.kafka.relay.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.relay.admin.AdminServerInitializer;
import io.jetstream.kafka.relay.admin.DirectMemory;
import io.jetstream.kafka.relay.admin.RelayHealth;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.metrics.RoleLabel;
import io.jetstream.kafka.transport.BoundedReadAllocator;
import io.jetstream.kafka.transport.FrameBuffers;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay node's listeners and lifecycle: the data listener (TLS unless disabled; pipeline built by
 * {@link RelayServerInitializer} around the pluggable {@link DataPipelineFactory}) and the plain
 * HTTP admin listener ({@code /health}, {@code /metrics}), on one boss and one worker event-loop
 * group.
 *
 * <p>Lifecycle: {@link #start()} once; then {@link #shutdownGracefully(Duration)} (also
 * {@link #close()}, with {@code shutdown.drain.timeout.ms}) or {@link #shutdownNow()}. A graceful
 * shutdown
 * <ol>
 *   <li>stops accepting data connections and reports {@code DRAINING} on {@code /health} (503);</li>
 *   <li>fires {@link DrainStartedEvent} into every data connection;</li>
 *   <li>waits until the relay holds no batch ({@link ByteBudget#whenEmpty()}) or the grace
 *       period is over;</li>
 *   <li>closes every data connection (accepted and outgoing), then the admin listener, then the
 *       event loops, and logs how long it took and what, if anything, was abandoned.</li>
 * </ol>
 * Shutdown methods are idempotent and thread-safe: a second caller waits for the first to finish.
 * They block, so they must not be called from an event-loop thread.
 */
public final class RelayServer implements AutoCloseable {

    /** Where the listeners are bound (the real ports when port 0 was configured). */
    public record BoundAddresses(InetSocketAddress data, InetSocketAddress admin) {
    }

    private enum State { NEW, RUNNING, DRAINING, STOPPED }

    private static final Logger log = LoggerFactory.getLogger(RelayServer.class);
    /** Upper bound for closing connections and stopping event loops once the drain is over. */
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);
    /** Shortest period of the timer that looks at the TLS files (tls.reload.interval.ms may be 0). */
    private static final Duration MIN_TLS_CHECK_PERIOD = Duration.ofSeconds(1);

    private final RelayConfig config;
    private final RelayMetrics metrics;
    private final DataPipelineFactory dataPipeline;
    private final RelayHealth health;
    /** The relay's one clock, handed to its health and its data path. */
    private final Clock clock = Clock.system();
    private final ByteBudget relayBuffer;
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();
    private final Object lifecycleLock = new Object();

    // Written under lifecycleLock by start(); read after it by the shutdown path.
    private State state = State.NEW;
    private RelayEventLoops loops;
    private ChannelGroup dataChannels;
    private ChannelGroup adminChannels;
    private Channel dataListener;
    private Channel adminListener;
    private BoundAddresses boundAddresses;
    private volatile boolean accepting;

    /**
     * @param config       validated configuration
     * @param metrics      where the relay reports; owned by the caller, which closes it
     * @param dataPipeline adds the data-path handlers to each data connection
     */
    public RelayServer(RelayConfig config, RelayMetrics metrics, DataPipelineFactory dataPipeline) {
        this.config = Objects.requireNonNull(config, "config");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.dataPipeline = Objects.requireNonNull(dataPipeline, "dataPipeline");
        DirectMemory directMemory = DirectMemory.ofThisProcess();
        this.health = new RelayHealth(config.relayId(), clock, directMemory,
                config.healthDirectMemoryDegradedRatio());
        metrics.beforeScrape(() -> {
            metrics.directMemoryUsedBytes().set(directMemory.usedBytes());
            metrics.directMemoryMaxBytes().set(directMemory.maxBytes());
        });
        this.relayBuffer = new ByteBudget(config.bufferMaxBytes(), metrics.bufferedBytes(), metrics.inFlightBatches());
        metrics.bufferLimitBytes().set(config.bufferMaxBytes());
        metrics.limitPeers(config.metricsPeersMax(), config.metricsPeerRetention());
    }

    /**
     * Binds both listeners and starts serving. On failure everything opened so far is closed and
     * the server is stopped.
     *
     * @return the bound addresses
     * @throws IOException if a listener cannot bind (port in use, address not local)
     * @throws io.jetstream.kafka.relay.config.RelayConfigException if the TLS files cannot be used
     * @throws IllegalStateException if called twice
     */
    public BoundAddresses start() throws IOException {
        synchronized (lifecycleLock) {
            if (state != State.NEW) {
                throw new IllegalStateException("a RelayServer starts once; it is " + state);
            }
            long startNs = clock.nanoTime();
            try {
                // TLS first: bad files are a configuration error, found before any thread starts.
                Optional<RelayTls> tls = RelayTls.load(config, metrics, clock);
                Optional<SslContext> serverSsl = tls.map(RelayTls::server);
                Optional<SslContext> clientSsl = tls.map(RelayTls::client);
                loops = new RelayEventLoops(config.relayId(), config.ioThreads());
                tls.ifPresent(this::checkTlsFilesPeriodically);
                dataChannels = new DefaultChannelGroup("relay-data", GlobalEventExecutor.INSTANCE);
                adminChannels = new DefaultChannelGroup("relay-admin", GlobalEventExecutor.INSTANCE);

                LastResortHandler lastResort = new LastResortHandler(metrics);
                TransportPipeline inbound = new TransportPipeline(config,
                        new ConnectionCounter(metrics, RoleLabel.PENDING), lastResort);
                TransportPipeline outbound = new TransportPipeline(config,
                        new ConnectionCounter(metrics, RoleLabel.RELAY_OUT), lastResort);
                PeerConnector peerConnector = new PeerConnector(config, clientSsl, metrics, dataChannels, outbound,
                        clock);
                DataPipelineContext context = new DataPipelineContext(config, metrics, relayBuffer, peerConnector, health,
                        loops.workers(), clock);
                dataPipeline.start(context);

                accepting = true;
                dataListener = bind(dataBootstrap(serverSsl, inbound, context), config.listenerAddress(), "data");
                adminListener = bind(adminBootstrap(), config.adminAddress(), "admin");
                boundAddresses = new BoundAddresses((InetSocketAddress) dataListener.localAddress(),
                        (InetSocketAddress) adminListener.localAddress());
                state = State.RUNNING;
                health.advanceTo(RelayHealth.Status.UP);
                log.info("Relay {} serving data on {} ({}) and admin on http://{}{} in {} ms; data path: {}",
                        config.relayId(), boundAddresses.data(), serverSsl.isPresent() ? "TLS" : "PLAINTEXT",
                        hostPort(boundAddresses.admin()), "/health", elapsedMs(startNs), dataPipeline.description());
                return boundAddresses;
            } catch (IOException | RuntimeException | Error e) {
                log.info("Relay {} failed to start ({}); released what it had opened", config.relayId(), e.toString());
                accepting = false;
                state = State.STOPPED;
                health.advanceTo(RelayHealth.Status.DOWN);
                closeChannelsAndLoops();
                terminated.complete(null);
                throw e;
            }
        }
    }

    /**
     * Looks at the TLS files on a timer too, not only when a connection opens: a renewal, or a file
     * that cannot be used, shows in the log and the metrics without waiting for traffic.
     */
    private void checkTlsFilesPeriodically(RelayTls tls) {
        long periodMs = Math.max(config.tlsReloadInterval().toMillis(), MIN_TLS_CHECK_PERIOD.toMillis());
        loops.workers().next().scheduleAtFixedRate(() -> {
            try {
                tls.files().refresh();
            } catch (RuntimeException e) {
                log.warn("Relay {}: checking the TLS files failed", config.relayId(), e);
            }
        }, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    private ServerBootstrap dataBootstrap(Optional<SslContext> serverSsl, TransportPipeline inbound,
                                          DataPipelineContext context) {
        return new ServerBootstrap()
                .group(loops.boss(), loops.workers())
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                // Backpressure: nothing is read until a data-path handler asks (see DataPipelineFactory).
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        PeerConnector.waterMark(PeerConnector.dataHighWaterMark(config.bufferMaxBytesPerConnection())))
                // With AUTO_READ off, one read() request may take up to 4 full socket buffers (<= 256 KiB).
                .childOption(ChannelOption.RECVBUF_ALLOCATOR, BoundedReadAllocator.forBackpressuredReads())
                .childOption(ChannelOption.ALLOCATOR, FrameBuffers.ALLOCATOR)
                .childHandler(new RelayServerInitializer(serverSsl, inbound, dataPipeline, context, dataChannels,
                        () -> accepting, new HandshakeAdmission(config, metrics)));
    }

    private ServerBootstrap adminBootstrap() {
        return new ServerBootstrap()
                .group(loops.boss(), loops.workers())
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new AdminServerInitializer(health, metrics, adminChannels, config.adminConnectionsMax(),
                        config.adminRequestTimeout()));
    }

    private static Channel bind(ServerBootstrap bootstrap, SocketAddress address, String listener) throws IOException {
        // Uninterruptibly, like grpc's NettyServer: an interrupted bind would leave the port in an
        // unknown state for the caller.
        ChannelFuture future = bootstrap.bind(address).awaitUninterruptibly();
        if (!future.isSuccess()) {
            throw new IOException("Cannot bind the " + listener + " listener to " + address + ": "
                    + future.cause().getMessage(), future.cause());
        }
        return future.channel();
    }

    /** Graceful shutdown with {@code shutdown.drain.timeout.ms}. */
    @Override
    public void close() {
        shutdownGracefully(config.shutdownDrainTimeout());
    }

    /** Forceful shutdown: closes every connection without waiting for in-flight batches. */
    public void shutdownNow() {
        shutdownGracefully(Duration.ZERO);
    }

    /**
     * Drains, then stops (see the class comment). Idempotent: a call while another shutdown runs
     * waits for it, up to {@code gracePeriod} plus the close timeout.
     *
     * @param gracePeriod how long to wait for in-flight batches; zero for a forceful shutdown
     * @return whether the relay held no batch when its connections were closed
     * @throws IllegalStateException if called from one of the relay's event-loop threads
     */
    public boolean shutdownGracefully(Duration gracePeriod) {
        requireNotOnEventLoop();
        long startNs = clock.nanoTime();
        long deadlineNs = startNs + gracePeriod.toNanos();
        State previous;
        synchronized (lifecycleLock) {
            previous = state;
            state = switch (previous) {
                case NEW -> State.STOPPED;
                case RUNNING -> State.DRAINING;
                case DRAINING, STOPPED -> previous;
            };
        }
        if (previous == State.NEW) {
            health.advanceTo(RelayHealth.Status.DOWN);
            terminated.complete(null);
            return true;
        }
        if (previous != State.RUNNING) {
            // Another caller is stopping (or stopped) the server: wait for it, outside the lock.
            awaitTermination(gracePeriod.plus(CLOSE_TIMEOUT));
            return relayBuffer.isEmpty();
        }
        accepting = false;
        health.advanceTo(RelayHealth.Status.DRAINING);
        log.info("Relay {} draining: no new connections, up to {} ms for in-flight batches ({})",
                config.relayId(), gracePeriod.toMillis(), relayBuffer);
        dataListener.close().awaitUninterruptibly(CLOSE_TIMEOUT.toMillis());
        DrainStartedEvent drainStarted = new DrainStartedEvent(gracePeriod);
        for (Channel channel : dataChannels) {
            channel.pipeline().fireUserEventTriggered(drainStarted);
        }
        boolean drained = awaitDrained(deadlineNs);
        String abandoned = drained ? "no batch in flight"
                : relayBuffer + " still in flight were abandoned (their senders re-send them on other routes)";

        health.advanceTo(RelayHealth.Status.DOWN);
        closeChannelsAndLoops();
        synchronized (lifecycleLock) {
            state = State.STOPPED;
        }
        terminated.complete(null);
        log.info("Relay {} stopped in {} ms: {}", config.relayId(), elapsedMs(startNs), abandoned);
        return drained;
    }

    private boolean awaitDrained(long deadlineNs) {
        while (!relayBuffer.isEmpty()) {
            long remainingNs = deadlineNs - clock.nanoTime();
            if (remainingNs <= 0) {
                return false;
            }
            try {
                relayBuffer.whenEmpty().get(remainingNs, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                return false;
            } catch (InterruptedException e) {
                // Stop waiting, still close everything, and let the caller see the interrupt.
                log.info("Interrupted while draining relay {}; closing now", config.relayId());
                Thread.currentThread().interrupt();
                return false;
            } catch (ExecutionException e) {
                throw new IllegalStateException("drain signal failed", e);
            }
        }
        return true;
    }

    /** Closes the data path, connections, then listeners, then event loops; each step bounded, failures logged. */
    private void closeChannelsAndLoops() {
        long timeoutMs = CLOSE_TIMEOUT.toMillis();
        try {
            dataPipeline.close();
        } catch (RuntimeException e) {
            log.warn("Closing the data path of relay {} failed", config.relayId(), e);
        }
        for (ChannelGroup group : new ChannelGroup[] {dataChannels, adminChannels}) {
            if (group != null && !group.close().awaitUninterruptibly(timeoutMs)) {
                log.warn("Closing {} connections took over {} ms", group.name(), timeoutMs);
            }
        }
        for (Channel listener : new Channel[] {dataListener, adminListener}) {
            if (listener != null) {
                listener.close().awaitUninterruptibly(timeoutMs);
            }
        }
        if (loops != null) {
            loops.shutdown(CLOSE_TIMEOUT);
        }
    }

    private void requireNotOnEventLoop() {
        RelayEventLoops current;
        synchronized (lifecycleLock) {
            current = loops;
        }
        if (current != null && current.inEventLoop()) {
            throw new IllegalStateException("RelayServer shutdown blocks until the event loops stop;"
                    + " call it from another thread, not from " + Thread.currentThread().getName());
        }
    }

    /**
     * Waits until the server has stopped.
     *
     * @return false if it was still running at the end of {@code timeout}
     */
    public boolean awaitTermination(Duration timeout) {
        try {
            terminated.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            throw new IllegalStateException("termination signal failed", e);
        }
    }

    /** Blocks until the server has stopped (e.g. the main thread while a shutdown hook drains). */
    public void awaitTermination() throws InterruptedException {
        try {
            terminated.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("termination signal failed", e);
        }
    }

    /** Completes once the server has stopped (or failed to start). */
    public CompletableFuture<Void> terminationFuture() {
        return terminated.copy();
    }

    /** The bound addresses, once started. */
    public Optional<BoundAddresses> boundAddresses() {
        synchronized (lifecycleLock) {
            return Optional.ofNullable(boundAddresses);
        }
    }

    public RelayHealth health() {
        return health;
    }

    /** The relay-wide buffer budget that the data path reserves from. */
    public ByteBudget relayBuffer() {
        return relayBuffer;
    }

    private long elapsedMs(long startNs) {
        return TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - startNs);
    }

    private static String hostPort(InetSocketAddress address) {
        return address.getHostString() + ":" + address.getPort();
    }
}
