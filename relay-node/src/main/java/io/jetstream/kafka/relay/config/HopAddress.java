package io.jetstream.kafka.relay.config;

import io.jetstream.kafka.transport.HostPort;
import java.net.InetSocketAddress;

/**
 * The data address of another relay, written {@code host:port} (IPv6 literals in brackets:
 * {@code [::1]:7070}).
 *
 * @param host host name or IP literal, without brackets
 * @param port 1-65535
 */
public record HopAddress(String host, int port) {

    public HopAddress {
        HostPort.check(host, port);
    }

    /**
     * Parses {@code host:port} ({@link HostPort#parse}: the grammar the connectors' relay lists use too).
     *
     * @throws IllegalArgumentException naming the rule the text breaks
     */
    public static HopAddress parse(String text) {
        HostPort parsed = HostPort.parse(text);
        return new HopAddress(parsed.host(), parsed.port());
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
