package io.jetstream.kafka.transport;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * A peer's address written {@code host:port} (IPv6 literals in brackets: {@code [::1]:7070}): the
 * one grammar of relay addresses, for the relay's configuration and routing headers and for the
 * connectors' {@code relays} lists alike. Parsing resolves nothing.
 *
 * @param host host name or IP literal, without brackets
 * @param port 1-65535
 */
public record HostPort(String host, int port) {

    public HostPort {
        check(host, port);
    }

    /**
     * Checks the parts of an address: a host that is not blank, a port in 1-65535.
     *
     * @throws IllegalArgumentException naming the part
     */
    public static void check(String host, int port) {
        Objects.requireNonNull(host, "host");
        if (host.isBlank()) {
            throw new IllegalArgumentException("host must not be blank");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be between 1 and 65535, was " + port);
        }
    }

    /**
     * Parses {@code host:port}.
     *
     * @throws IllegalArgumentException naming the text and the rule it breaks
     */
    public static HostPort parse(String text) {
        String value = Objects.requireNonNull(text, "text").trim();
        int colon = value.lastIndexOf(':');
        if (colon <= 0 || colon == value.length() - 1) {
            throw new IllegalArgumentException("'" + text + "' is not of the form host:port");
        }
        String host = value.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        } else if (host.indexOf(':') >= 0) {
            throw new IllegalArgumentException("'" + text + "': write IPv6 addresses in brackets, e.g. [::1]:7070");
        }
        if (host.isBlank() || host.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("'" + text + "' has an empty or blank host");
        }
        int port;
        try {
            port = Integer.parseInt(value.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' has a port that is not a number", e);
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("'" + text + "' has a port outside 1-65535");
        }
        return new HostPort(host, port);
    }

    /** An unresolved socket address: name resolution happens when the connection is made. */
    public InetSocketAddress unresolved() {
        return InetSocketAddress.createUnresolved(host, port);
    }

    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
