package io.jetstream.kafka.relay.datapath;

import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.config.StreamSpec;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.netty.channel.ChannelHandler;

/**
 * Makes the handler of an accepted connection's role, each with exactly the collaborators it uses:
 * {@link UpstreamHandler} for a SENDER or RELAY (budgets, router), {@link SubscriberHandler} for a
 * SUBSCRIBER (subscriptions, the ACK path). Thread-safe.
 */
final class RoleHandlers {

    private final RelayConfig config;
    private final RelayMetrics metrics;
    private final Drain drain;
    private final Router router;
    private final BufferBudgets budgets;
    private final Subscribers subscribers;
    private final AckPath acks;

    RoleHandlers(RelayConfig config, RelayMetrics metrics, Drain drain, Router router, BufferBudgets budgets,
                 Subscribers subscribers, AckPath acks) {
        this.config = config;
        this.metrics = metrics;
        this.drain = drain;
        this.router = router;
        this.budgets = budgets;
        this.subscribers = subscribers;
        this.acks = acks;
    }

    /** The handler for a peer the handshake accepted for {@code stream}. */
    ChannelHandler handlerFor(Session session, StreamSpec stream) {
        if (session.role() == PeerRole.SUBSCRIBER) {
            return new SubscriberHandler(session, metrics, config.idleTimeout(), drain, subscribers, acks,
                    config.relayId(), config.subscribeEpochMaxAhead());
        }
        return new UpstreamHandler(session, stream, config, metrics, drain, router, budgets);
    }
}
