package io.jetstream.kafka.core.protocol;

import java.util.List;
import java.util.Objects;

/**
 * Routing part shared by the frames that travel relay to relay (BATCH, TOPIC_METADATA).
 *
 * <p>Path semantics: {@code path} lists the relays the frame traverses, ingress first, egress last,
 * as {@code host:port}. {@code hopIndex} is the index in {@code path} of the relay the frame is
 * addressed to. A sender does not know routes: it sends with an empty path and hop 0, and the
 * ingress relay fills in the path it chose (itself at index 0) with {@link #withPath}. A relay at
 * index {@code i} forwards to {@code path[i + 1]} with {@link #advance()}; the relay at the last
 * index is the egress and delivers to the subscriber. Later hops need no routing state.
 *
 * <p>Ids: {@code id} is the batch id or metadata id, unique per origin node (see
 * {@link BatchIdSequence}). Relays match returning ACKs by {@code (originNodeId, id)}.
 *
 * @param streamId replication stream
 * @param id batch or metadata id
 * @param originNodeId node id of the sender that created the frame
 * @param destination name of the destination site, which selects the route table at the ingress
 * @param path relays to traverse, at most {@link #MAX_HOPS}
 * @param hopIndex index of the addressed relay; 0 when the path is empty
 */
public record RoutingHeader(String streamId, long id, String originNodeId, String destination, List<String> path,
        int hopIndex) {

    /** Longest path a frame may carry (the wire allows 255; no sane route needs more than a few). */
    public static final int MAX_HOPS = 32;

    public RoutingHeader {
        WireStrings.checkNotEmpty(streamId, "streamId");
        WireStrings.checkNotEmpty(originNodeId, "originNodeId");
        WireStrings.checkNotEmpty(destination, "destination");
        path = List.copyOf(path);
        if (path.size() > MAX_HOPS) {
            throw new IllegalArgumentException("path has " + path.size() + " hops, above the maximum of " + MAX_HOPS);
        }
        for (String hop : path) {
            WireStrings.checkNotEmpty(hop, "path hop");
        }
        boolean hopInPath = hopIndex >= 0 && hopIndex < Math.max(1, path.size());
        if (!hopInPath) {
            throw new IllegalArgumentException("hopIndex " + hopIndex + " is outside the " + path.size() + "-hop path");
        }
    }

    /** Routing of a new frame from a sender: no path yet. */
    public static RoutingHeader unrouted(String streamId, long id, String originNodeId, String destination) {
        return new RoutingHeader(streamId, id, originNodeId, destination, List.of(), 0);
    }

    /** Whether an ingress relay has chosen the path. */
    public boolean isRouted() {
        return !path.isEmpty();
    }

    /** Whether the addressed relay is the egress (the last hop of a chosen path). */
    public boolean isAtEgress() {
        return isRouted() && hopIndex == path.size() - 1;
    }

    /** Address of the relay after the addressed one. */
    public String nextHop() {
        checkCanAdvance();
        return path.get(hopIndex + 1);
    }

    /** The same routing addressed to the next relay on the path. */
    public RoutingHeader advance() {
        checkCanAdvance();
        return new RoutingHeader(streamId, id, originNodeId, destination, path, hopIndex + 1);
    }

    /** The routing with a chosen path, addressed to its first relay (the ingress choosing it). */
    public RoutingHeader withPath(List<String> newPath) {
        Objects.requireNonNull(newPath, "path");
        return new RoutingHeader(streamId, id, originNodeId, destination, newPath, 0);
    }

    private void checkCanAdvance() {
        if (!isRouted() || isAtEgress()) {
            throw new IllegalStateException("no hop after index " + hopIndex + " of path " + path);
        }
    }
}
