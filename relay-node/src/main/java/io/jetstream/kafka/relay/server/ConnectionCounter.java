package io.jetstream.kafka.relay.server;

import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.metrics.RoleLabel;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;

/**
 * Counts every data connection in {@code jetstream_relay_connections} under its {@link RoleLabel},
 * whatever the data-path handlers do: a connection counts as {@code pending} (or {@code relay_out}
 * for one this relay opened) from activation, moves to the label the handshake reveals through
 * {@link #assign}, and is uncounted when it closes.
 */
@ChannelHandler.Sharable
public final class ConnectionCounter extends ChannelInboundHandlerAdapter {

    private static final AttributeKey<RoleLabel> ROLE = AttributeKey.valueOf(ConnectionCounter.class, "role");

    private final RelayMetrics metrics;
    private final RoleLabel initialRole;

    ConnectionCounter(RelayMetrics metrics, RoleLabel initialRole) {
        this.metrics = metrics;
        this.initialRole = initialRole;
    }

    /**
     * Counts a connection under what its peer is, once the handshake has said so. Call on the
     * channel's event loop.
     */
    public static void assign(Channel channel, RoleLabel role, RelayMetrics metrics) {
        if (role != RoleLabel.PENDING) {
            // The handshake identified the peer: it no longer counts against the handshake limits.
            HandshakeAdmission.authenticated(channel);
        }
        RoleLabel previous = channel.attr(ROLE).getAndSet(role);
        if (previous == role) {
            return;
        }
        if (previous != null) {
            metrics.connections(previous).dec();
        }
        // A channel that is already closed keeps no count: channelInactive has run (or will run
        // and find the attribute cleared).
        if (channel.isActive()) {
            metrics.connections(role).inc();
        } else {
            channel.attr(ROLE).set(null);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        assign(ctx.channel(), initialRole, metrics);
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        RoleLabel role = ctx.channel().attr(ROLE).getAndSet(null);
        if (role != null) {
            metrics.connections(role).dec();
        }
        super.channelInactive(ctx);
    }
}
