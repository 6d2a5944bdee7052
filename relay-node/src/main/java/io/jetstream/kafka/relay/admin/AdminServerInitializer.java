package io.jetstream.kafka.relay.admin;

import java.util.Objects;

import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.ReadTimeoutHandler;

/**
 * Pipeline of an admin (plain HTTP/1.1) connection:
 * {@code read-timeout -> http-codec -> aggregator -> AdminHttpHandler}.
 *
 * <p>Requests are small and bounded: a 4 KiB request line, 8 KiB of headers and
 * {@value #MAX_CONTENT_BYTES} bytes of body (the aggregator answers 413 beyond that); a connection
 * that sends nothing for {@value #READ_TIMEOUT_SECONDS} s is closed, so idle or slow clients cannot
 * pile up.
 */
public final class AdminServerInitializer extends ChannelInitializer<SocketChannel> {

    static final int MAX_CONTENT_BYTES = 8 * 1024;
    static final int READ_TIMEOUT_SECONDS = 30;

    private final AdminHttpHandler handler;
    private final ChannelGroup channels;

    public AdminServerInitializer(RelayHealth health, RelayMetrics metrics, ChannelGroup channels) {
        this.handler = new AdminHttpHandler(health, metrics);
        this.channels = Objects.requireNonNull(channels, "channels");
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        channels.add(ch);
        ChannelPipeline pipeline = ch.pipeline();
        pipeline.addLast("read-timeout", new ReadTimeoutHandler(READ_TIMEOUT_SECONDS));
        pipeline.addLast("http-codec", new HttpServerCodec(new HttpDecoderConfig()
                .setMaxInitialLineLength(4096)
                .setMaxHeaderSize(8192)));
        pipeline.addLast("aggregator", new HttpObjectAggregator(MAX_CONTENT_BYTES));
        pipeline.addLast("admin", handler);
    }
}
