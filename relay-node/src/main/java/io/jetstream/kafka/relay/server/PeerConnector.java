package io.jetstream.kafka.relay.server;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.relay.config.HopAddress;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.transport.FrameBuffers;
import io.jetstream.kafka.transport.PeerClient;
import io.jetstream.kafka.transport.PeerClientConfig;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens connections from this relay to next-hop relays.
 *
 * <p>The data path uses {@link #newClient}: a {@link PeerClient} (role RELAY) with this relay's
 * timeouts, frame limit, water marks and client TLS, which handshakes, heartbeats and reconnects
 * by itself. {@link #connect} opens a raw channel with the same transport as accepted connections
 * (see {@link TransportPipeline}) for callers that bring their own handlers. Both verify the next
 * hop's host name and present this relay's certificate.
 *
 * <p>Connect on the event loop of the inbound channel whose batches will travel over the new
 * connection (as Netty's proxy example does): both channels then live on one thread and hand
 * batches to each other without locks or volatile fields. Reconnecting is the caller's job: on
 * failure or close, schedule the next attempt on the event loop after the waits a
 * {@link PeerClient} uses ({@link PeerClientConfig#reconnectBackoffPolicy()}).
 */
public final class PeerConnector {

    private static final Logger log = LoggerFactory.getLogger(PeerConnector.class);

    private final RelayConfig config;
    private final Optional<SslContext> clientSsl;
    private final RelayMetrics metrics;
    private final ChannelGroup channels;
    private final TransportPipeline transport;
    private final Clock clock;

    PeerConnector(RelayConfig config, Optional<SslContext> clientSsl, RelayMetrics metrics, ChannelGroup channels,
                  TransportPipeline transport, Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.config = Objects.requireNonNull(config, "config");
        this.clientSsl = Objects.requireNonNull(clientSsl, "clientSsl");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.channels = Objects.requireNonNull(channels, "channels");
        this.transport = Objects.requireNonNull(transport, "transport");
    }

    /**
     * Connects to a next hop. The channel starts with {@code AUTO_READ} off, counts as a
     * {@code relay_out} connection, and is closed by the relay's shutdown like accepted ones.
     *
     * @param hop         the next relay's data address (resolved when connecting)
     * @param eventLoop   the loop to run the new channel on
     * @param addHandlers adds the data-path handlers for this direction (called on {@code eventLoop})
     * @return completes when connected (TCP; the TLS handshake follows in the pipeline), or fails
     *         with the reason; failures are also counted as {@code connect_failed}
     */
    public ChannelFuture connect(HopAddress hop, EventLoop eventLoop, Consumer<Channel> addHandlers) {
        long highWaterMark = dataHighWaterMark(config.bufferMaxBytesPerConnection());
        Bootstrap bootstrap = new Bootstrap()
                .group(eventLoop)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) config.connectTimeout().toMillis())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.ALLOCATOR, FrameBuffers.ALLOCATOR)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark(highWaterMark))
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        channels.add(ch);
                        transport.addHead(ch, clientSsl.map(ssl -> ssl.newHandler(ch.alloc(), hop.host(), hop.port()))
                                .orElse(null));
                        addHandlers.accept(ch);
                        transport.addTail(ch);
                    }
                });
        ChannelFuture future = bootstrap.connect(hop.toUnresolvedAddress());
        future.addListener(f -> {
            if (!f.isSuccess()) {
                metrics.errors(ErrorKind.CONNECT_FAILED).inc();
                log.info("Cannot connect to next-hop relay {}: {}", hop, f.cause().toString());
            }
        });
        return future;
    }

    /**
     * A client for one next hop and one stream, not started. It announces this relay's id and
     * the stream's token; reconnects with {@code reconnect.backoff.ms} to
     * {@code reconnect.backoff.max.ms}; heartbeats every {@code heartbeat.interval.ms}.
     *
     * @param hop      the next relay's data address (resolved at each connection attempt)
     * @param streamId the stream the connection carries
     * @param token    the stream's secret
     * @param group    the loops to run on (the client keeps to one of them)
     * @param listener the data path's callbacks
     */
    public PeerClient newClient(HopAddress hop, String streamId, String token, EventLoopGroup group,
                                PeerClient.Listener listener) {
        WriteBufferWaterMark marks = waterMark(dataHighWaterMark(config.bufferMaxBytesPerConnection()));
        PeerClientConfig clientConfig = PeerClientConfig.builder(hop.toUnresolvedAddress(), PeerRole.RELAY,
                        config.relayId(), streamId, token)
                .sslContext(clientSsl.orElse(null))
                .connectTimeout(config.connectTimeout())
                .heartbeatInterval(config.heartbeatInterval())
                .reconnectBackoff(config.reconnectBackoff(), config.reconnectBackoffMax())
                .maxFrameBytes(config.frameMaxBytes())
                .writeWaterMarks(marks.low(), marks.high())
                .receipts(true) // passed on to senders that ask, and timing the routes at the ingress
                .build();
        return new PeerClient(clientConfig, group, listener, clock);
    }

    /** Most bytes queued in a data connection's outbound buffer before it stops taking more: 2 MiB. */
    static final long DATA_HIGH_WATER_MARK_CAP = 2L << 20;

    /**
     * The high water mark of a connection the relay writes batches to: the per-connection buffer,
     * capped at {@link #DATA_HIGH_WATER_MARK_CAP}. What waits here waits in front of every later
     * frame on the connection, heartbeats and answers included, and the kernel's socket buffer
     * already holds a bandwidth-delay product, so a deeper queue adds latency without throughput.
     */
    public static long dataHighWaterMark(long perConnectionBytes) {
        return Math.min(perConnectionBytes, DATA_HIGH_WATER_MARK_CAP);
    }

    /** High mark as given, low mark half of it: writability flips back once half has drained. */
    static WriteBufferWaterMark waterMark(long highBytes) {
        int high = (int) Math.min(Integer.MAX_VALUE, highBytes);
        return new WriteBufferWaterMark(high / 2, high);
    }
}
