package io.jetstream.kafka.relay.server;

import java.util.Optional;

import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.relay.admin.RelayHealth;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.metrics.RoleLabel;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;

/**
 * TEST ONLY: a relay without sockets. Every {@link #connection()} is an {@link EmbeddedChannel}
 * whose pipeline is built exactly as the server builds accepted connections (transport handlers,
 * the data path under test, the catch-all), sharing one context: handler tests drive several
 * "connections" of one relay by hand.
 */
public final class EmbeddedRelay implements AutoCloseable {

    private final RelayConfig config;
    private final RelayMetrics metrics;
    private final ByteBudget budget;
    private final RelayHealth health;
    private final DataPipelineFactory dataPath;
    private final DataPipelineContext context;
    private final TransportPipeline transport;
    private final DefaultChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final HandshakeAdmission admission;

    public EmbeddedRelay(RelayConfig config, DataPipelineFactory dataPath) {
        this.config = config;
        this.metrics = new RelayMetrics(config.relayId());
        this.budget = new ByteBudget(config.bufferMaxBytes(), metrics.bufferedBytes(), metrics.inFlightBatches());
        this.health = new RelayHealth(config.relayId(), Clock.system());
        health.advanceTo(RelayHealth.Status.UP);
        this.dataPath = dataPath;
        LastResortHandler lastResort = new LastResortHandler(metrics);
        this.transport = new TransportPipeline(config, new ConnectionCounter(metrics, RoleLabel.PENDING), lastResort);
        TransportPipeline outbound = new TransportPipeline(config,
                new ConnectionCounter(metrics, RoleLabel.RELAY_OUT), lastResort);
        this.context = new DataPipelineContext(config, metrics, budget,
                new PeerConnector(config, Optional.empty(), metrics, channels, outbound, Clock.system()), health);
        this.admission = new HandshakeAdmission(config, metrics);
        dataPath.start(context);
    }

    /** A new accepted connection, active, with the relay's pipeline. */
    public EmbeddedChannel connection() {
        return new EmbeddedChannel(new RelayServerInitializer(Optional.empty(), transport, dataPath, context, channels,
                () -> true, admission));
    }

    public RelayMetrics metrics() {
        return metrics;
    }

    public ByteBudget budget() {
        return budget;
    }

    public RelayHealth health() {
        return health;
    }

    public RelayConfig config() {
        return config;
    }

    @Override
    public void close() {
        dataPath.close();
        metrics.close();
    }
}
