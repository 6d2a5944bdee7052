package io.jetstream.kafka.relay.server;

import java.util.Objects;
import java.util.Optional;

import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.relay.admin.RelayHealth;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.netty.channel.EventLoopGroup;

/**
 * What {@link RelayServer} hands the data-path handlers: one instance per server, shared by all
 * channels, immutable and thread-safe.
 */
public final class DataPipelineContext {

    private final RelayConfig config;
    private final RelayMetrics metrics;
    private final ByteBudget relayBuffer;
    private final PeerConnector peerConnector;
    private final RelayHealth health;
    private final EventLoopGroup eventLoops;
    private final Clock clock;

    /** A context without event loops of its own (handler tests on an {@code EmbeddedChannel}). */
    public DataPipelineContext(RelayConfig config, RelayMetrics metrics, ByteBudget relayBuffer,
                               PeerConnector peerConnector, RelayHealth health) {
        this(config, metrics, relayBuffer, peerConnector, health, null, Clock.system());
    }

    /**
     * @param eventLoops the relay's worker loops, for connections and timers the data path opens
     *                   before any channel asks (null when there are none, as in handler tests)
     * @param clock      the relay's clock: ack latencies, route timing, heartbeats
     */
    public DataPipelineContext(RelayConfig config, RelayMetrics metrics, ByteBudget relayBuffer,
                               PeerConnector peerConnector, RelayHealth health, EventLoopGroup eventLoops,
                               Clock clock) {
        this.config = Objects.requireNonNull(config, "config");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.relayBuffer = Objects.requireNonNull(relayBuffer, "relayBuffer");
        this.peerConnector = Objects.requireNonNull(peerConnector, "peerConnector");
        this.health = Objects.requireNonNull(health, "health");
        this.eventLoops = eventLoops;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Streams and their tokens, routes per destination, frame and buffer limits, timeouts. */
    public RelayConfig config() {
        return config;
    }

    /** Resolve {@code metrics.peer(id)} / {@code metrics.route(d, r)} once per connection or route. */
    public RelayMetrics metrics() {
        return metrics;
    }

    /** The relay-wide budget of {@code buffer.max.bytes}; graceful shutdown waits for it to empty. */
    public ByteBudget relayBuffer() {
        return relayBuffer;
    }

    /** Opens connections to next-hop relays with the relay's TLS client settings. */
    public PeerConnector peerConnector() {
        return peerConnector;
    }

    /** Serving state; {@code health().status() == DRAINING} means take no new batches. */
    public RelayHealth health() {
        return health;
    }

    /** The relay's worker event loops, when it runs on real ones. */
    public Optional<EventLoopGroup> eventLoops() {
        return Optional.ofNullable(eventLoops);
    }

    /** The relay's one clock; every time decision of the data path reads it. */
    public Clock clock() {
        return clock;
    }
}
