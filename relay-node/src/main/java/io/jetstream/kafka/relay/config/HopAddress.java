package io.jetstream.kafka.relay.config;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * The data address of another relay, written {@code host:port} (IPv6 literals in brackets:
 * {@code [::1]:7070}).
 *
 * @param host host name or IP literal, without brackets
 * @param port 1-65535
 */
public record HopAddress(String host, int port) {

    public HopAddress {
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
     * @throws IllegalArgumentException naming the rule the text breaks
     */
    public static HopAddress parse(String text) {
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
        return new HopAddress(host, port);
    }

    /**
     * This address with its host name in lower case, for comparing addresses written by different
     * people (host names are case-insensitive).
     */
    public HopAddress canonical() {
        String lower = host.toLowerCase(java.util.Locale.ROOT);
        return lower.equals(host) ? this : new HopAddress(lower, port);
    }

    /** An unresolved socket address: name resolution happens when the connection is made. */
    public InetSocketAddress toUnresolvedAddress() {
        return InetSocketAddress.createUnresolved(host, port);
    }

    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
