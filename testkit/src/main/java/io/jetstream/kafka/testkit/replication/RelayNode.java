package io.jetstream.kafka.testkit.replication;

import io.jetstream.kafka.relay.RelayMain;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.server.RelayServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One relay running in the caller's JVM on fixed loopback ports, so it can be stopped and started
 * again at the same address (a relay restart). Real sockets: peers cannot tell it from a relay in a
 * container.
 */
public final class RelayNode implements AutoCloseable {

    private final String id;
    private final Map<String, String> config;
    private final InetSocketAddress dataAddress;
    private final InetSocketAddress adminAddress;
    private RelayServer server;
    private RelayMetrics metrics;

    RelayNode(String id, Map<String, String> config, InetSocketAddress dataAddress, InetSocketAddress adminAddress) {
        this.id = id;
        this.config = new LinkedHashMap<>(config);
        this.dataAddress = dataAddress;
        this.adminAddress = adminAddress;
    }

    public synchronized void start() throws IOException {
        if (server != null) {
            throw new IllegalStateException("relay " + id + " is already running");
        }
        RelayConfig relayConfig = new RelayConfig(config);
        metrics = new RelayMetrics(relayConfig.relayId());
        server = new RelayServer(relayConfig, metrics, RelayMain.dataPath());
        server.start();
    }

    /** Graceful stop: drains with a short deadline, then closes. */
    public synchronized void stop() {
        if (server == null) {
            return;
        }
        server.shutdownGracefully(Duration.ofSeconds(2));
        server.awaitTermination(Duration.ofSeconds(10));
        metrics.close();
        server = null;
    }

    /** Abrupt stop: connections are closed at once, nothing drains (a crashed relay). */
    public synchronized void kill() {
        if (server == null) {
            return;
        }
        server.shutdownNow();
        server.awaitTermination(Duration.ofSeconds(10));
        metrics.close();
        server = null;
    }

    /** The running relay's metrics, or null while stopped (a restart starts fresh counters). */
    public synchronized RelayMetrics metrics() {
        return metrics;
    }

    public synchronized boolean isRunning() {
        return server != null;
    }

    public String id() {
        return id;
    }

    /** host:port of the data listener. */
    public String dataEndpoint() {
        return dataAddress.getHostString() + ":" + dataAddress.getPort();
    }

    public InetSocketAddress dataAddress() {
        return dataAddress;
    }

    public InetSocketAddress adminAddress() {
        return adminAddress;
    }

    @Override
    public void close() {
        stop();
    }

    @Override
    public String toString() {
        return "relay " + id + " (data " + dataEndpoint() + ", admin " + adminAddress.getPort() + ")";
    }
}
