package io.jetstream.kafka.relay.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.datapath.ProtocolDataPipelineFactory;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.server.RelayServer;

/** A real relay (server, data path, metrics) on loopback with free ports, plaintext, for tests. */
public final class TestRelay implements AutoCloseable {

    public static final String STREAM = "demo";
    public static final String TOKEN = "demo-token-0123456789";
    public static final String DESTINATION = "site-b";

    private final RelayServer server;
    private final RelayMetrics metrics;
    private final InetSocketAddress data;
    private final InetSocketAddress admin;

    private TestRelay(RelayServer server, RelayMetrics metrics, RelayServer.BoundAddresses bound) {
        this.server = server;
        this.metrics = metrics;
        this.data = bound.data();
        this.admin = bound.admin();
    }

    /** Base configuration: stream {@value #STREAM}; add routes with {@link #route}. */
    public static Map<String, Object> config(String relayId) {
        Map<String, Object> props = TestConfigs.plaintext(relayId);
        props.put("streams", STREAM);
        props.put("streams." + STREAM + ".token", TOKEN);
        props.put("heartbeat.interval.ms", 500);
        props.put("reconnect.backoff.ms", 20);
        props.put("reconnect.backoff.max.ms", 200);
        props.put("connect.timeout.ms", 2_000);
        props.put("shutdown.drain.timeout.ms", 2_000);
        return props;
    }

    /** Adds route {@code name} to destination {@value #DESTINATION} through {@code hops} ("local" = egress). */
    public static Map<String, Object> route(Map<String, Object> props, String name, List<String> hops) {
        String routes = "destinations." + DESTINATION + ".routes";
        props.put("destinations", DESTINATION);
        Object existing = props.get(routes);
        props.put(routes, existing == null ? name : existing + "," + name);
        props.put(routes + "." + name + ".hops", hops.isEmpty() ? "local" : String.join(",", hops));
        return props;
    }

    /** A relay that is its own egress for {@value #DESTINATION}. */
    public static Map<String, Object> egress(String relayId) {
        return route(config(relayId), "direct", List.of());
    }

    public static TestRelay start(Map<String, Object> props) throws IOException {
        Map<String, Object> copy = new LinkedHashMap<>(props);
        RelayMetrics metrics = new RelayMetrics(String.valueOf(copy.get(RelayConfig.RELAY_ID)));
        RelayServer server = new RelayServer(new RelayConfig(copy), metrics, new ProtocolDataPipelineFactory());
        return new TestRelay(server, metrics, server.start());
    }

    public RelayServer server() {
        return server;
    }

    public RelayMetrics metrics() {
        return metrics;
    }

    public InetSocketAddress data() {
        return data;
    }

    /** The admin HTTP listener ({@code /health}, {@code /metrics}). */
    public InetSocketAddress admin() {
        return admin;
    }

    /** {@code host:port} as written in another relay's route. */
    public String hop() {
        return "127.0.0.1:" + data.getPort();
    }

    /** Bytes the relay holds now (its budget's reservations). */
    public long bufferedBytes() {
        return server.relayBuffer().reservedBytes();
    }

    @Override
    public String toString() {
        return server.health().relayId();
    }

    @Override
    public void close() {
        server.shutdownNow();
        metrics.close();
    }
}
