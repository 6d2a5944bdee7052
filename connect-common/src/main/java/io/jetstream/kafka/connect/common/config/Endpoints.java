package io.jetstream.kafka.connect.common.config;

import io.jetstream.kafka.transport.HostPort;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * Parses {@code host:port} endpoints ({@code [v6addr]:port} for IPv6) without resolving them, in the
 * grammar the relay's configuration uses too ({@link HostPort}).
 */
public final class Endpoints {

    private Endpoints() {
    }

    /**
     * @throws IllegalArgumentException naming the endpoint and what is wrong with it
     */
    public static InetSocketAddress parse(String endpoint) {
        if (endpoint == null || endpoint.isBlank()) {
            throw new IllegalArgumentException("empty endpoint: expected host:port");
        }
        return HostPort.parse(endpoint).unresolved();
    }

    public static List<InetSocketAddress> parseAll(List<String> endpoints) {
        return endpoints.stream().map(Endpoints::parse).toList();
    }
}
