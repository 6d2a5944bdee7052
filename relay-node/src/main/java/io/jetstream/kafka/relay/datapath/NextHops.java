package io.jetstream.kafka.relay.datapath;

import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;

import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.relay.config.HopAddress;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.config.StreamSpec;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.server.PeerConnector;
import io.netty.channel.EventLoopGroup;

/**
 * The next-hop connections, one per (hop address, stream), opened on first use and kept until the
 * relay stops. Only addresses the configuration allows ({@code RelayConfig.nextHopAllowed}: the hops
 * of its routes and {@code next.hops.allowed}) get a link, so their number is bounded by the
 * configuration, not by what peers write in paths. Thread-safe: two upstreams asking at once get the
 * same link.
 */
final class NextHops {

    private final ConcurrentHashMap<String, NextHopLink> links = new ConcurrentHashMap<>();
    private final PeerConnector connector;
    private final RelayConfig config;
    private final RelayMetrics metrics;
    private final AckPath acks;
    private volatile boolean closed;

    /** @param acks given to every link: where its ACKs go */
    NextHops(PeerConnector connector, RelayConfig config, RelayMetrics metrics, AckPath acks) {
        this.connector = connector;
        this.config = config;
        this.metrics = metrics;
        this.acks = acks;
    }

    /**
     * The link to {@code hop} for {@code stream}, created and started on first use on
     * {@code group} (the asking upstream's loop keeps forwarding on one thread).
     *
     * @return null after {@link #close()}
     * @throws IllegalArgumentException if the configuration does not allow {@code hop} as a next hop
     *     (callers check {@code RelayConfig.nextHopAllowed} first: links are made only to configured relays)
     */
    NextHopLink link(HopAddress hop, StreamSpec stream, EventLoopGroup group) {
        String key = hop.canonical() + " " + stream.id();
        NextHopLink link = links.get(key);
        if (link != null || closed) {
            return link;
        }
        if (!config.nextHopAllowed(hop)) {
            throw new IllegalArgumentException("next hop " + hop + " is not in the routes or next.hops.allowed");
        }
        NextHopLink created = new NextHopLink(hop.toString(), stream.id(), metrics, acks);
        link = links.putIfAbsent(key, created);
        if (link != null) {
            created.close();  // never started: gives back the peer series it holds
            return link;
        }
        created.start(connector.newClient(hop, stream.id(), stream.tokenFor(PeerRole.RELAY).value(), group, created));
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
