package io.jetstream.kafka.transport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.HelloFrame;
import io.jetstream.kafka.core.protocol.HelloOkFrame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.PingFrame;
import io.jetstream.kafka.core.protocol.PongFrame;
import io.jetstream.kafka.core.protocol.SubscribeOkFrame;
import io.jetstream.kafka.core.wire.ProtocolException;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import org.apache.kafka.common.utils.ExponentialBackoff;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A long-lived connection to one relay, used by connector tasks (roles SENDER and SUBSCRIBER) and
 * by relays towards their next hops (role RELAY).
 *
 * <h2>Lifecycle</h2>
 * {@link #start()} connects; the client then keeps a connection open until {@link #close()}:
 * <ol>
 *   <li>TCP connect (bounded by {@code connectTimeout}), TLS handshake when configured;</li>
 *   <li>HELLO (current protocol version, role, node id, stream id, token, and the offer of MAC fields
 *       unless configured otherwise), then HELLO_OK (which takes the offer or not, {@link #macs()});
 *       for role SUBSCRIBER also SUBSCRIBE, then SUBSCRIBE_OK. The whole handshake is bounded by
 *       {@code connectTimeout}. Then the client is {@linkplain #isReady() ready};</li>
 *   <li>a PING every {@code heartbeatInterval} measures the round trip ({@link #rtt()}); PINGs from
 *       the relay are answered with PONG. A relay from which no byte arrived for three intervals is
 *       taken for dead: the connection is closed (not while {@linkplain #pauseReading() reading is
 *       paused}, when silence is expected);</li>
 *   <li>when the connection fails or closes (ERROR from the relay, handshake timeout, I/O error,
 *       bad input), the client waits ({@link PeerClientConfig#reconnectBackoffPolicy()}: doubling from
 *       {@code reconnectBackoff} to {@code reconnectBackoffMax}, with jitter; reset once a
 *       handshake succeeds) and connects again, forever, until {@link #close()} — except after
 *       {@code ERROR(SUPERSEDED)}: a newer instance of this subscriber holds its share, and this one
 *       stops for good ({@link #isSuperseded()}), so a left-over task instance cannot take the share
 *       back by reconnecting.</li>
 * </ol>
 *
 * <h2>Threading</h2>
 * The client runs every connection and timer on one event loop taken from the group given at
 * construction; the group is not shut down by {@link #close()}. {@link #send}, {@link #isReady},
 * {@link #isWritable}, {@link #rtt} and {@link #close} may be called from any thread. Listener
 * callbacks run on the event loop, one at a time, and must not block.
 *
 * <h2>Buffers</h2>
 * {@link #send} takes ownership of the frame in every case (written and released, or released at
 * once when not ready). Frames handed to {@link Listener#onFrame} belong to the listener.
 */
public final class PeerClient implements AutoCloseable {

    /** Receives what happens on the connection; called on the client's event loop. */
    public interface Listener {
        /** The handshake completed: {@link #send} now writes. */
        default void onReady(PeerClient client) {
        }

        /**
         * A frame from the relay after the handshake (ACK, BATCH, TOPIC_METADATA) or an ERROR
         * (after which the connection closes). The listener owns the frame and must release it
         * ({@code ReferenceCountUtil.release(frame)}).
         */
        void onFrame(PeerClient client, Frame frame);

        /**
         * A connection attempt failed, or an open connection closed; a reconnection is scheduled
         * unless the client is closed. Frames sent on the lost connection may or may not have
         * arrived: treat whatever they still await (acknowledgements) as failed.
         *
         * @param cause why, or null for a close without error (e.g. the relay closed cleanly)
         */
        default void onDisconnected(PeerClient client, Throwable cause) {
        }

        /** The connection's writability changed (see the water marks of {@link PeerClientConfig}). */
        default void onWritabilityChanged(PeerClient client, boolean writable) {
        }
    }

    private static final Logger log = LoggerFactory.getLogger(PeerClient.class);
    /** Heartbeats missed before the relay is taken for dead. */
    private static final int SILENT_INTERVALS = 3;
    /** Bytes of a BATCH frame beyond its payload that {@link #send} allows for (routing, topic, fields). */
    private static final int BATCH_HEADER_ALLOWANCE = 1024;

    private final PeerClientConfig config;
    private final EventLoop loop;
    private final Listener listener;
    private final ExponentialBackoff backoff;
    private final Clock clock;
    private final Bootstrap bootstrap;
    private final FrameEncoderHandler encoder;
    private final String peer;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The relay gave this subscription to a newer instance of the task: never reconnect. */
    private volatile boolean superseded;
    private final LongAdder bytesSent = new LongAdder();
    private final LongAdder bytesReceived = new LongAdder();

    // Written on the event loop, read from any thread.
    private volatile Channel channel;
    private volatile boolean ready;
    private volatile long smoothedRttNanos;
    private volatile String peerNodeId;
    private volatile int peerMaxFrameBytes;
    private volatile boolean macs;
    private volatile boolean readPaused;

    // Confined to the event loop.
    private int failures;
    private ScheduledFuture<?> reconnectTask;
    private String lastProblem;

    /**
     * @param config   where and how to connect
     * @param group    NIO event loops (e.g. {@code MultiThreadIoEventLoopGroup} with {@code NioIoHandler});
     *                 one of its loops runs this client
     * @param listener told about readiness, frames, disconnections and writability
     */
    public PeerClient(PeerClientConfig config, EventLoopGroup group, Listener listener) {
        this(config, group, listener, Clock.system());
    }

    /**
     * @param clock the clock of heartbeat silence and round-trip times (the reconnect waits and the
     *              handshake timeout are timers of the event loop)
     */
    public PeerClient(PeerClientConfig config, EventLoopGroup group, Listener listener, Clock clock) {
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.loop = Objects.requireNonNull(group, "group").next();
        this.listener = Objects.requireNonNull(listener, "listener");
        this.backoff = config.reconnectBackoffPolicy();
        this.encoder = new FrameEncoderHandler(config.maxFrameBytes());
        this.peer = config.role() + " connection to " + config.remote().getHostString() + ":" + config.remote().getPort();
        this.bootstrap = new Bootstrap()
                .group(loop)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
                        config.connectTimeout().toMillis()))
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.ALLOCATOR, FrameBuffers.ALLOCATOR)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(config.writeLowWaterMark(), config.writeHighWaterMark()))
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        initPipeline(ch);
                    }
                });
    }

    /** Starts connecting (idempotent). */
    public void start() {
        if (closed.get()) {
            throw new IllegalStateException(peer + " is closed");
        }
        if (started.compareAndSet(false, true)) {
            execute(this::connect);
        }
    }

    /** Connected, HELLO_OK received, and for a SUBSCRIBER also SUBSCRIBE_OK. */
    public boolean isReady() {
        return ready;
    }

    /** Whether the connection takes more writes without exceeding the high water mark. */
    public boolean isWritable() {
        Channel ch = channel;
        return ch != null && ch.isWritable();
    }

    /**
     * Writes and flushes a frame if the client is ready; the client releases it once written. If
     * not ready, releases the frame and returns false. A write that fails later (the connection
     * breaks) surfaces as {@link Listener#onDisconnected}.
     *
     * @throws IllegalArgumentException (frame released) if a BATCH payload cannot fit in a frame the
     *                                  relay accepts ({@link #peerMaxFrameBytes()})
     */
    public boolean send(Frame frame) {
        return send(frame, null);
    }

    /**
     * Like {@link #send(Frame)}, and runs {@code onWritten} once the write has finished (the frame
     * is in the socket, or the write failed): a relay returns the frame's bytes to its buffer budget
     * then. Not run when this returns false or throws.
     */
    public boolean send(Frame frame, Runnable onWritten) {
        Channel ch = channel;
        if (!ready || ch == null) {
            ReferenceCountUtil.release(frame);
            return false;
        }
        if (frame instanceof BatchFrame batch) {
            int limit = Math.min(config.maxFrameBytes(), peerMaxFrameBytes) - BATCH_HEADER_ALLOWANCE;
            int payload = batch.payload().readableBytes();
            if (payload > limit) {
                batch.release();
                throw new IllegalArgumentException("batch payload of " + payload + " bytes does not fit in a frame of "
                        + Math.min(config.maxFrameBytes(), peerMaxFrameBytes) + " bytes (" + peer + ")");
            }
        }
        if (frame instanceof BatchesFrame batches) {
            int limit = Math.min(config.maxFrameBytes(), peerMaxFrameBytes) - BATCH_HEADER_ALLOWANCE;
            int body = batches.body().readableBytes();
            if (body > limit) {
                batches.release();
                throw new IllegalArgumentException("the sections of " + batches.sectionCount() + " batches ("
                        + body + " bytes) do not fit in a frame of "
                        + Math.min(config.maxFrameBytes(), peerMaxFrameBytes) + " bytes (" + peer + ")");
            }
        }
        if (onWritten == null) {
            ch.writeAndFlush(frame, ch.voidPromise());
        } else {
            ch.writeAndFlush(frame).addListener(written -> onWritten.run());
        }
        return true;
    }

    /** Smoothed round-trip time from PING/PONG; {@link Duration#ZERO} until measured. */
    public Duration rtt() {
        return Duration.ofNanos(smoothedRttNanos);
    }

    public InetSocketAddress remote() {
        return config.remote();
    }

    public PeerClientConfig config() {
        return config;
    }

    /** The relay's node id from HELLO_OK, or null before the first handshake. */
    public String peerNodeId() {
        return peerNodeId;
    }

    /**
     * The largest BATCH payload {@link #send} accepts: the smaller of this client's and the relay's
     * frame limits (the relay's once known from HELLO_OK), less room for the batch header.
     */
    public int maxBatchPayloadBytes() {
        int peer = peerMaxFrameBytes;
        return (peer > 0 ? Math.min(config.maxFrameBytes(), peer) : config.maxFrameBytes()) - BATCH_HEADER_ALLOWANCE;
    }

    /**
     * Whether the last handshake agreed on the frame layouts with a {@code mac} field: end-to-end MACs
     * travel this connection both ways. False before the first handshake, when not offered
     * ({@link PeerClientConfig#macs()}), or when the relay does not know them (a relay built before
     * them): MACs are then dropped on this hop.
     */
    public boolean macs() {
        return macs;
    }

    /** The largest frame the relay accepts (from HELLO_OK), or 0 before the first handshake. */
    public int peerMaxFrameBytes() {
        return peerMaxFrameBytes;
    }

    /** Bytes written to the relay (all connections), frame headers included. */
    public long bytesSent() {
        return bytesSent.sum();
    }

    /** Bytes received from the relay (all connections). */
    public long bytesReceived() {
        return bytesReceived.sum();
    }

    /**
     * Stops reading from the relay (e.g. a subscriber whose destination is slow): TCP flow control
     * then makes the relay hold, and finally stop reading from its own upstream. Heartbeat silence
     * is not taken for a dead relay while paused. Kept across reconnections.
     */
    public void pauseReading() {
        setReadPaused(true);
    }

    /** Resumes reading after {@link #pauseReading()}. */
    public void resumeReading() {
        setReadPaused(false);
    }

    private void setReadPaused(boolean paused) {
        readPaused = paused;
        Channel ch = channel;
        if (ch != null) {
            ch.config().setAutoRead(!paused);
        }
    }

    /** Closes the connection and stops reconnecting; idempotent, does not block, does not stop the group. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        ready = false;
        Channel ch = channel;
        if (ch != null) {
            ch.close();
        }
        execute(() -> {
            if (reconnectTask != null) {
                reconnectTask.cancel(false);
            }
            Channel current = channel;
            if (current != null) {
                current.close();
            }
        });
    }

    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Whether the relay answered {@code ERROR(SUPERSEDED)}: a newer instance of this subscriber holds
     * its share, so this client stopped for good (as if closed).
     */
    public boolean isSuperseded() {
        return superseded;
    }

    @Override
    public String toString() {
        return "PeerClient[" + peer + ", ready=" + ready + "]";
    }

    private void execute(Runnable task) {
        try {
            loop.execute(task);
        } catch (RejectedExecutionException e) {
            // The group is shutting down: its channels are closed with it, nothing to schedule.
            log.debug("{}: event loop is shut down", peer);
        }
    }

    private void connect() {
        reconnectTask = null;
        if (closed.get()) {
            return;
        }
        ChannelFuture future = bootstrap.connect(config.remote());
        future.addListener(f -> {
            if (!f.isSuccess()) {
                connectionLost(f.cause(), false);
            }
        });
    }

    private void initPipeline(Channel ch) {
        Connection connection = new Connection();
        ch.config().setAutoRead(!readPaused);
        ChannelPipeline pipeline = ch.pipeline();
        if (config.sslContext() != null) {
            pipeline.addLast("tls", config.sslContext().newHandler(ch.alloc(), config.remote().getHostString(),
                    config.remote().getPort()));
        }
        pipeline.addLast("traffic", connection.traffic);
        pipeline.addLast("flush-consolidation", new FlushConsolidationHandler(256, true));
        pipeline.addLast("frame-decoder", new FrameDecoderHandler(config.maxFrameBytes(), connection, true));
        pipeline.addLast("frame-encoder", encoder);
        pipeline.addLast("peer-client", connection);
    }

    /** Called once per lost connection or failed attempt, on the event loop. */
    private void connectionLost(Throwable cause, boolean wasReady) {
        ready = false;
        macs = false;
        channel = null;
        String problem = cause == null ? "closed by the relay" : cause.toString();
        if (closed.get()) {
            log.debug("{} closed", peer);
        } else if (superseded) {
            log.warn("{}: {}; this instance stops receiving and does not reconnect", peer, problem);
        } else if (wasReady || !problem.equals(lastProblem)) {
            log.info("{} {}: {}; reconnecting", peer, wasReady ? "lost" : "failed", problem);
        } else {
            log.debug("{} failed again: {}", peer, problem);
        }
        lastProblem = problem;
        try {
            listener.onDisconnected(this, cause);
        } catch (RuntimeException e) {
            log.error("{}: listener failed in onDisconnected", peer, e);
        }
        if (closed.get() || superseded) {
            return;
        }
        long delayNanos = backoff.backoff(failures);
        failures++;
        reconnectTask = loop.schedule(this::connect, delayNanos, TimeUnit.NANOSECONDS);
    }

    private enum State { AWAIT_HELLO_OK, AWAIT_SUBSCRIBE_OK, READY }

    /** One connection's handshake, heartbeats and frame dispatch; lives on the event loop. */
    private final class Connection extends ChannelInboundHandlerAdapter implements TransportErrorListener {

        private final Traffic traffic = new Traffic();
        private State state = State.AWAIT_HELLO_OK;
        private long lastReadNanos = clock.nanoTime();
        private final PingTimer pings = new PingTimer(clock);
        private Throwable closeCause;
        private ScheduledFuture<?> handshakeTimeout;
        private ScheduledFuture<?> heartbeat;

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            if (closed.get()) {
                ctx.close();
                return;
            }
            channel = ctx.channel();
            lastReadNanos = clock.nanoTime();
            HelloFrame hello = HelloFrame.of(config.role(), config.nodeId(), config.streamId(), config.token());
            if (config.receipts()) {
                hello = hello.withReceipts();
            }
            if (config.macs()) {
                hello = hello.withMacs();
            }
            ctx.writeAndFlush(hello);
            handshakeTimeout = ctx.executor().schedule(() -> {
                if (state != State.READY) {
                    fail(ctx, new TimeoutException("handshake not completed within " + config.connectTimeout().toMillis()
                            + " ms (state " + state + ")"));
                }
            }, config.connectTimeout().toNanos(), TimeUnit.NANOSECONDS);
            long interval = config.heartbeatInterval().toNanos();
            heartbeat = ctx.executor().scheduleAtFixedRate(() -> heartbeat(ctx), interval, interval, TimeUnit.NANOSECONDS);
            super.channelActive(ctx);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof Frame frame)) {
                ReferenceCountUtil.release(msg);
                fail(ctx, new IOException("unexpected message " + msg.getClass().getName()));
                return;
            }
            if (frame instanceof PingFrame ping) {
                ctx.writeAndFlush(ping.pong());
            } else if (frame instanceof PongFrame pong) {
                recordRtt(pings.rttNanos(pong, clock.nanoTime()));
            } else if (frame instanceof ErrorFrame error) {
                closeCause = new PeerRejectedException(peer, error);
                if (error.code() == ErrorCode.SUPERSEDED) {
                    superseded = true;
                    ready = false;
                }
                deliver(frame);
                ctx.close();
            } else if (state == State.AWAIT_HELLO_OK && frame instanceof HelloOkFrame ok
                    && ok.maxFrameBytes() < config.minPeerMaxFrameBytes()) {
                // Never sized to, nor skipping records because of, a claim below the floor.
                fail(ctx, new IOException("relay " + ok.nodeId() + " announces a frame limit of " + ok.maxFrameBytes()
                        + " bytes, below the " + config.minPeerMaxFrameBytes() + " bytes this client accepts from a "
                        + "peer: not used (raise its frame.max.bytes)"));
            } else if (state == State.AWAIT_HELLO_OK && frame instanceof HelloOkFrame ok) {
                peerNodeId = ok.nodeId();
                peerMaxFrameBytes = ok.maxFrameBytes();
                useLayout(ctx, config.macs() && ok.macs());
                if (config.role() == PeerRole.SUBSCRIBER) {
                    state = State.AWAIT_SUBSCRIBE_OK;
                    ctx.writeAndFlush(config.subscription());
                } else {
                    becomeReady(ctx);
                }
            } else if (state == State.AWAIT_SUBSCRIBE_OK && frame instanceof SubscribeOkFrame ok) {
                if (ok.shareIndex() != config.subscription().shareIndex()
                        || ok.shareCount() != config.subscription().shareCount()) {
                    fail(ctx, new IOException("SUBSCRIBE_OK for share " + ok.shareIndex() + "/" + ok.shareCount()
                            + " answers SUBSCRIBE " + config.subscription()));
                } else {
                    becomeReady(ctx);
                }
            } else if (state == State.READY && isData(frame)) {
                deliver(frame);
            } else {
                ReferenceCountUtil.release(frame);
                fail(ctx, new IOException("unexpected " + frame.type() + " frame in state " + state));
            }
        }

        /**
         * The frame layouts the handshake agreed on, from the frame after HELLO_OK on: the decoder
         * passes frames on one at a time, so the next one is read with it.
         */
        private void useLayout(ChannelHandlerContext ctx, boolean withMacs) {
            macs = withMacs;
            if (withMacs) {
                ((FrameDecoderHandler) ctx.pipeline().get("frame-decoder")).macs(true);
                FrameEncoderHandler.useMacs(ctx.channel());
            }
        }

        private boolean isData(Frame frame) {
            return switch (frame.type()) {
                case ACK, BATCH, BATCHES, TOPIC_METADATA -> true;
                default -> false;
            };
        }

        private void deliver(Frame frame) {
            try {
                listener.onFrame(PeerClient.this, frame);
            } catch (RuntimeException e) {
                log.error("{}: listener failed in onFrame({})", peer, frame.type(), e);
            }
        }

        private void becomeReady(ChannelHandlerContext ctx) {
            state = State.READY;
            handshakeTimeout.cancel(false);
            failures = 0;
            lastProblem = null;
            ready = !closed.get();
            log.debug("{} ready (relay {})", peer, peerNodeId);
            try {
                listener.onReady(PeerClient.this);
            } catch (RuntimeException e) {
                log.error("{}: listener failed in onReady", peer, e);
            }
        }

        private void heartbeat(ChannelHandlerContext ctx) {
            long now = clock.nanoTime();
            long silentNanos = now - lastReadNanos;
            if (!readPaused && silentNanos > SILENT_INTERVALS * config.heartbeatInterval().toNanos()) {
                fail(ctx, new TimeoutException("nothing received for " + TimeUnit.NANOSECONDS.toMillis(silentNanos)
                        + " ms (" + SILENT_INTERVALS + " heartbeat intervals)"));
            } else if (state == State.READY) {
                pings.ping(ctx, now);
            }
        }

        private void recordRtt(long sampleNanos) {
            if (sampleNanos <= 0) {
                return;
            }
            long previous = smoothedRttNanos;
            // RFC 6298's smoothing (alpha 1/8): stable under jitter, follows real changes in a few samples.
            smoothedRttNanos = previous == 0 ? sampleNanos : previous + (sampleNanos - previous) / 8;
        }

        @Override
        public void onProtocolError(Channel ch, ProtocolException error) {
            if (closeCause == null) {
                closeCause = error;
            }
        }

        private void fail(ChannelHandlerContext ctx, Throwable cause) {
            if (closeCause == null) {
                closeCause = cause;
            }
            ctx.close();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            fail(ctx, cause);
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
            try {
                listener.onWritabilityChanged(PeerClient.this, ctx.channel().isWritable());
            } catch (RuntimeException e) {
                log.error("{}: listener failed in onWritabilityChanged", peer, e);
            }
            super.channelWritabilityChanged(ctx);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            if (handshakeTimeout != null) {
                handshakeTimeout.cancel(false);
            }
            if (heartbeat != null) {
                heartbeat.cancel(false);
            }
            boolean wasReady = state == State.READY;
            connectionLost(closeCause, wasReady);
            super.channelInactive(ctx);
        }

        /** Counts bytes both ways and notes when the relay was last heard from. */
        private final class Traffic extends ChannelDuplexHandler {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                lastReadNanos = clock.nanoTime();
                if (msg instanceof ByteBuf buf) {
                    bytesReceived.add(buf.readableBytes());
                }
                ctx.fireChannelRead(msg);
            }

            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                if (msg instanceof ByteBuf buf) {
                    bytesSent.add(buf.readableBytes());
                } else if (msg instanceof ByteBufHolder holder) {
                    bytesSent.add(holder.content().readableBytes());
                }
                ctx.write(msg, promise);
            }
        }
    }
}
