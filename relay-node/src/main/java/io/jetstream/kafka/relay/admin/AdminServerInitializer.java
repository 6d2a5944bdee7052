package io.jetstream.kafka.relay.admin;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pipeline of an admin (plain HTTP/1.1) connection:
 * {@code request-deadline -> http-codec -> aggregator -> request-read -> AdminHttpHandler}.
 *
 * <p>What one client can hold is bounded:
 * <ul>
 *   <li>at most {@code admin.connections.max} admin connections are open at once; one accepted
 *       beyond that is closed at once, before any read, counted as {@code admin_connection_limit};</li>
 *   <li>each request must be read completely within {@code admin.request.timeout.ms}, whatever
 *       trickles in ({@link AdminRequestDeadline}); a kept-alive connection idle that long is closed;</li>
 *   <li>requests are small: a 4 KiB request line, 8 KiB of headers and {@value #MAX_CONTENT_BYTES}
 *       bytes of body (the aggregator answers 413 beyond that).</li>
 * </ul>
 * Thread-safe: connections are accepted on several event loops.
 */
public final class AdminServerInitializer extends ChannelInitializer<SocketChannel> {

    private static final Logger log = LoggerFactory.getLogger(AdminServerInitializer.class);

    static final int MAX_CONTENT_BYTES = 8 * 1024;

    private final AdminHttpHandler handler;
    private final ChannelGroup channels;
    private final RelayMetrics metrics;
    private final int maxConnections;
    private final Duration requestTimeout;
    private final AtomicInteger open = new AtomicInteger();

    /**
     * @param channels       every admin connection joins it (closed at shutdown)
     * @param maxConnections most admin connections open at once ({@code admin.connections.max})
     * @param requestTimeout total time to read one request ({@code admin.request.timeout.ms})
     */
    public AdminServerInitializer(RelayHealth health, RelayMetrics metrics, ChannelGroup channels, int maxConnections,
                                  Duration requestTimeout) {
        this.handler = new AdminHttpHandler(health, metrics);
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.channels = Objects.requireNonNull(channels, "channels");
        this.maxConnections = maxConnections;
        this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        channels.add(ch);
        int now = open.incrementAndGet();
        metrics.adminConnections().inc();
        ch.closeFuture().addListener(f -> {
            open.decrementAndGet();
            metrics.adminConnections().dec();
        });
        if (now > maxConnections) {
            metrics.errors(ErrorKind.ADMIN_CONNECTION_LIMIT).inc();
            log.debug("Refusing admin connection {}: {} open, admin.connections.max is {}", ch, now - 1,
                    maxConnections);
            ch.close();
            return;
        }
        AdminRequestDeadline deadline = new AdminRequestDeadline(requestTimeout,
                metrics.errors(ErrorKind.ADMIN_REQUEST_TIMEOUT));
        ChannelPipeline pipeline = ch.pipeline();
        pipeline.addLast("request-deadline", deadline);
        pipeline.addLast("http-codec", new HttpServerCodec(new HttpDecoderConfig()
                .setMaxInitialLineLength(4096)
                .setMaxHeaderSize(8192)));
        pipeline.addLast("aggregator", new HttpObjectAggregator(MAX_CONTENT_BYTES));
        pipeline.addLast("request-read", deadline.requestRead());
        pipeline.addLast("admin", handler);
    }
}
