package io.jetstream.kafka.relay.server;

import io.jetstream.kafka.relay.metrics.ConnectionRole;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;

/**
 * Keeps {@code jetstream_relay_connections{role}} right for every data connection, whatever the
 * data-path handlers do: a connection counts as {@code pending} (or {@code relay_out} for one this
 * relay opened) from activation, moves to the role the handshake reveals through
 * {@link #assign}, and is uncounted when it closes.
 */
@ChannelHandler.Sharable
public final class ConnectionRoles extends ChannelInboundHandlerAdapter {

    private static final AttributeKey<ConnectionRole> ROLE = AttributeKey.valueOf(ConnectionRoles.class, "role");

    private final RelayMetrics metrics;
    private final ConnectionRole initialRole;

    ConnectionRoles(RelayMetrics metrics, ConnectionRole initialRole) {
        this.metrics = metrics;
        this.initialRole = initialRole;
    }

    /**
     * Records what the peer of a connection is, once the handshake has said so. Call on the
     * channel's event loop.
     */
    public static void assign(Channel channel, ConnectionRole role, RelayMetrics metrics) {
        if (role != ConnectionRole.PENDING) {
            // The handshake identified the peer: it no longer counts against the handshake limits.
            HandshakeAdmission.authenticated(channel);
        }
        ConnectionRole previous = channel.attr(ROLE).getAndSet(role);
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

    /** The role last assigned to a connection, or null. */
    public static ConnectionRole roleOf(Channel channel) {
        return channel.attr(ROLE).get();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        assign(ctx.channel(), initialRole, metrics);
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        ConnectionRole role = ctx.channel().attr(ROLE).getAndSet(null);
        if (role != null) {
            metrics.connections(role).dec();
        }
        super.channelInactive(ctx);
    }
}
