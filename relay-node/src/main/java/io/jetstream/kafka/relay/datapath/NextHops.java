package io.jetstream.kafka.relay.datapath;

import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;

import io.jetstream.kafka.relay.config.HopAddress;
import io.jetstream.kafka.relay.config.StreamSpec;
import io.jetstream.kafka.relay.server.PeerConnector;
import io.netty.channel.EventLoopGroup;

/**
 * The next-hop connections, one per (hop address, stream), opened on first use and kept until the
 * relay stops. Thread-safe: two upstreams asking at once get the same link.
 */
final class NextHops {

    private final ConcurrentHashMap<String, NextHopLink> links = new ConcurrentHashMap<>();
    private final PeerConnector connector;
    private final DataPath path;
    private volatile boolean closed;

    NextHops(PeerConnector connector, DataPath path) {
        this.connector = connector;
        this.path = path;
    }

    /**
     * The link to {@code hop} for {@code stream}, created and started on first use on
     * {@code group} (the asking upstream's loop keeps forwarding on one thread).
     *
     * @return null after {@link #close()}
     * @throws IllegalArgumentException if {@code hop} is not {@code host:port}
     */
    NextHopLink link(String hop, StreamSpec stream, EventLoopGroup group) {
        String key = hop + " " + stream.id();
        NextHopLink link = links.get(key);
        if (link != null || closed) {
            return link;
        }
        HopAddress address = HopAddress.parse(hop);
        NextHopLink created = new NextHopLink(address.toString(), stream.id(), path);
        link = links.putIfAbsent(key, created);
        if (link != null) {
            return link;
        }
        created.start(connector.newClient(address, stream.id(), stream.token().value(), group, created));
        if (closed) {
            created.close();
        }
        return created;
    }

    Collection<NextHopLink> all() {
        return links.values();
    }

    void close() {
        closed = true;
        links.values().forEach(NextHopLink::close);
    }
}
