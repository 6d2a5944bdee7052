package io.jetstream.kafka.connect.common.config;

import java.net.InetSocketAddress;
import java.util.List;

/** Parses {@code host:port} endpoints ({@code [v6addr]:port} for IPv6) without resolving them. */
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
        String trimmed = endpoint.trim();
        int colon = trimmed.lastIndexOf(':');
        if (colon <= 0 || colon == trimmed.length() - 1) {
            throw new IllegalArgumentException("'" + endpoint + "' is not host:port");
        }
        String host = trimmed.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        } else if (host.contains(":")) {
            throw new IllegalArgumentException("'" + endpoint + "': write IPv6 hosts in brackets, as [::1]:7070");
        }
        int port;
        try {
            port = Integer.parseInt(trimmed.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + endpoint + "': port is not a number");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("'" + endpoint + "': port " + port + " is not in 1..65535");
        }
        return InetSocketAddress.createUnresolved(host, port);
    }

    public static List<InetSocketAddress> parseAll(List<String> endpoints) {
        return endpoints.stream().map(Endpoints::parse).toList();
    }
}
