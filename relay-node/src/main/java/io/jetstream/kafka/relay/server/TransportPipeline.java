package io.jetstream.kafka.relay.server;

import java.util.concurrent.TimeUnit;

import io.jetstream.kafka.relay.config.RelayConfig;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateHandler;

/**
 * The transport handlers every data connection gets, accepted or opened, before and after the
 * data-path handlers:
 *
 * <pre>
 *  head -> [tls] -> idle -> flush-consolidation -> connection-role -> (data path ...) -> unhandled
 * </pre>
 *
 * Flush consolidation sits after TLS so that the data path's many small flushes are merged before
 * encryption (fewer, fuller TLS records and syscalls); it still sees every read-complete event,
 * which is when it flushes while a read is in progress.
 */
final class TransportPipeline {

    static final String TLS = "tls";
    static final String IDLE = "idle";
    static final String FLUSH_CONSOLIDATION = "flush-consolidation";
    static final String CONNECTION_ROLE = "connection-role";
    static final String UNHANDLED = "unhandled";

    /** Flush at least every this many consolidated flushes, so large bursts do not wait for read-complete. */
    private static final int EXPLICIT_FLUSH_AFTER_FLUSHES = 256;

    private final long readerIdleMs;
    private final long writerIdleMs;
    private final ChannelHandler connectionRoles;
    private final ChannelHandler lastResort;

    TransportPipeline(RelayConfig config, ChannelHandler connectionRoles, ChannelHandler lastResort) {
        this.readerIdleMs = config.idleTimeout().toMillis();
        this.writerIdleMs = config.heartbeatInterval().toMillis();
        this.connectionRoles = connectionRoles;
        this.lastResort = lastResort;
    }

    /** Adds the handlers that precede the data path; {@code tls} may be null (plaintext). */
    void addHead(Channel channel, SslHandler tls) {
        ChannelPipeline pipeline = channel.pipeline();
        if (tls != null) {
            pipeline.addLast(TLS, tls);
        }
        pipeline.addLast(IDLE, new IdleStateHandler(readerIdleMs, writerIdleMs, 0, TimeUnit.MILLISECONDS));
        pipeline.addLast(FLUSH_CONSOLIDATION, new FlushConsolidationHandler(EXPLICIT_FLUSH_AFTER_FLUSHES, true));
        pipeline.addLast(CONNECTION_ROLE, connectionRoles);
    }

    /** Adds the catch-all after the data path. */
    void addTail(Channel channel) {
        channel.pipeline().addLast(UNHANDLED, lastResort);
    }
}
