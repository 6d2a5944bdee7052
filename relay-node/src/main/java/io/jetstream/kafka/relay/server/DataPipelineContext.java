package io.jetstream.kafka.relay.server;

import java.util.Objects;

import io.jetstream.kafka.relay.admin.RelayHealth;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.metrics.RelayMetrics;

/**
 * What {@link RelayServer} hands the data-path handlers: one instance per server, shared by all
 * channels, immutable and thread-safe.
 */
public final class DataPipelineContext {

    private final RelayConfig config;
    private final RelayMetrics metrics;
    private final BufferBudget relayBuffer;
    private final PeerConnector peerConnector;
    private final RelayHealth health;

    public DataPipelineContext(RelayConfig config, RelayMetrics metrics, BufferBudget relayBuffer,
                               PeerConnector peerConnector, RelayHealth health) {
        this.config = Objects.requireNonNull(config, "config");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.relayBuffer = Objects.requireNonNull(relayBuffer, "relayBuffer");
        this.peerConnector = Objects.requireNonNull(peerConnector, "peerConnector");
        this.health = Objects.requireNonNull(health, "health");
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
    public BufferBudget relayBuffer() {
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
}
