package io.jetstream.kafka.relay.datapath;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.relay.config.HopAddress;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.config.RouteSpec;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.NackReason;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.metrics.RouteMetrics;
import io.jetstream.kafka.relay.routing.RouteChooser;
import io.jetstream.kafka.relay.routing.RouteLabels;
import io.netty.util.ReferenceCountUtil;

/**
 * Decides where each routed frame (BATCH, BATCHES, TOPIC_METADATA) goes, on the event loop of the upstream
 * it came from:
 * <ul>
 *   <li><b>ingress</b> (the frame has no path yet): the {@link RouteChooser} picks a route of the
 *       frame's destination among those whose first hop is usable; the path becomes
 *       {@code [this relay's id, hop 1, ..., egress]}; a route without hops makes this relay the
 *       egress. A first hop found down is reported to the chooser and the next route is tried.
 *       No route configured: NACK {@code UNKNOWN_DESTINATION}; every usable route at its
 *       in-flight cap: the frame waits for an answer to make room; none usable: NACK
 *       {@code NEXT_HOP_UNREACHABLE};</li>
 *   <li><b>intermediate</b> (routed, not at the last hop): forwards to {@code path[hop + 1]} with the
 *       hop index advanced; that hop down: NACK {@code NEXT_HOP_UNREACHABLE}. The path comes from a
 *       peer, so its next hop must be one this relay's configuration names (a hop of its routes or
 *       {@code next.hops.allowed}); any other is NACK {@code NEXT_HOP_UNREACHABLE}, counted as
 *       {@code next_hop_not_allowed}, and no connection is opened to it;</li>
 *   <li><b>egress</b> (at the last hop): a batch goes to the subscriber whose share owns its
 *       partition (none: NACK {@code NO_SUBSCRIBER}); a BATCHES frame to the one owning all its
 *       sections (partitions of several shares: NACK {@code MIXED_SHARES}); topic metadata goes to
 *       every subscriber of the stream.</li>
 * </ul>
 * A frame handed downstream is registered on the {@link AckPath} first, so its ACK finds the way
 * back; its budget reservation goes with it. Forwarding re-encodes only the header around the same
 * payload buffer (no copy).
 */
final class Router {

    /** What became of a frame. */
    enum Outcome {
        /** Handed downstream (or failed through its pending entry): the entry owns its reservation. */
        FORWARDED,
        /** Answered with a NACK here and released: the caller releases its reservation. */
        ANSWERED,
        /**
         * Its next hop is still making its first connection, or every route holds its in-flight
         * cap: keep the frame and try again when woken.
         */
        WAIT
    }

    private final RelayConfig config;
    private final String relayId;
    private final RelayMetrics metrics;
    private final RouteChooser chooser;
    private final RouteLabels routeLabels;
    private final NextHops nextHops;
    private final Subscribers subscribers;
    private final AckPath acks;
    private final Waiters roomWaiters;
    private final Clock clock;
    private final ConcurrentHashMap<RouteSpec, List<String>> pathsByRoute = new ConcurrentHashMap<>();

    /**
     * @param chooser     picks an ingress frame's route
     * @param routeLabels series of frames that arrive routed
     * @param nextHops    the links to next-hop relays
     * @param subscribers the subscriptions, for frames at their egress
     * @param acks        where frames handed downstream are registered
     * @param roomWaiters where an upstream waits while every route holds its in-flight cap
     * @param clock       stamps each frame handed downstream (its ack latency starts there)
     */
    Router(RelayConfig config, RelayMetrics metrics, RouteChooser chooser, RouteLabels routeLabels, NextHops nextHops,
           Subscribers subscribers, AckPath acks, Waiters roomWaiters, Clock clock) {
        this.config = config;
        this.relayId = config.relayId();
        this.metrics = metrics;
        this.chooser = chooser;
        this.routeLabels = routeLabels;
        this.nextHops = nextHops;
        this.subscribers = subscribers;
        this.acks = acks;
        this.roomWaiters = roomWaiters;
        this.clock = clock;
    }

    /** Routes a frame that holds {@code reservation}; on the upstream's event loop. */
    Outcome route(Frame frame, BufferBudgets.Reservation reservation, UpstreamHandler upstream) {
        RoutingHeader routing = Frames.routing(frame);
        long bytes = reservation.bytes();
        if (!routing.isRouted()) {
            return ingress(frame, routing, reservation, upstream);
        }
        if (upstream.session().role() == PeerRole.SENDER) {
            metrics.errors(ErrorKind.MALFORMED_BATCH).inc();
            return answer(frame, upstream, AckReason.MALFORMED_BATCH, NackReason.INVALID_BATCH,
                    "senders send frames without a path; the ingress relay chooses it");
        }
        RouteMetrics routeMetrics = routeLabels.forPath(routing);
        routeMetrics.batchesIn().inc();
        routeMetrics.bytesIn().inc(bytes);
        if (routing.isAtEgress()) {
            return deliver(frame, reservation, upstream, null, null);
        }
        HopAddress nextHop;
        try {
            nextHop = HopAddress.parse(routing.nextHop());
        } catch (IllegalArgumentException e) {
            return answer(frame, upstream, AckReason.NEXT_HOP_UNREACHABLE, NackReason.NO_ROUTE,
                    "next hop '" + routing.nextHop() + "' on the path is not host:port");
        }
        if (!config.nextHopAllowed(nextHop)) {
            // The path comes from a peer: only addresses this relay's operator wrote are connected to.
            metrics.errors(ErrorKind.NEXT_HOP_NOT_ALLOWED).inc();
            return answer(frame, upstream, AckReason.NEXT_HOP_UNREACHABLE, NackReason.NEXT_HOP_NOT_ALLOWED,
                    "next hop " + nextHop + " is not allowed at relay " + relayId
                            + " (not in its routes or next.hops.allowed)");
        }
        NextHopLink link = nextHops.link(nextHop, upstream.stream(), upstream.eventLoop());
        return forward(frame, routing.advance(), link, reservation, upstream, null, routeMetrics);
    }

    private Outcome ingress(Frame frame, RoutingHeader routing, BufferBudgets.Reservation reservation,
                            UpstreamHandler upstream) {
        String destination = routing.destination();
        long bytes = reservation.bytes();
        if (config.routes(destination).isEmpty()) {
            metrics.errors(ErrorKind.UNKNOWN_DESTINATION).inc();
            return answer(frame, upstream, AckReason.UNKNOWN_DESTINATION, NackReason.UNKNOWN_DESTINATION,
                    "relay " + relayId + " has no route to destination '" + destination + "'");
        }
        Outcome outcome = tryRoutes(frame, routing, destination, reservation, upstream);
        if (outcome == null && chooser.atInFlightCap(destination, bytes)) {
            // Every usable route holds its in-flight cap: the batch waits (and its connection is
            // not read) until an answer makes room, instead of being refused and sent again.
            roomWaiters.add(upstream);
            if (chooser.atInFlightCap(destination, bytes)) {
                return Outcome.WAIT;
            }
            outcome = tryRoutes(frame, routing, destination, reservation, upstream);
        }
        return outcome != null ? outcome : answer(frame, upstream, AckReason.NEXT_HOP_UNREACHABLE, NackReason.NO_ROUTE,
                "no route to destination '" + destination + "' is up at relay " + relayId);
    }

    /** Chooses a route and hands the frame over; null when no route can take it now. */
    private Outcome tryRoutes(Frame frame, RoutingHeader routing, String destination,
                              BufferBudgets.Reservation reservation, UpstreamHandler upstream) {
        long bytes = reservation.bytes();
        Set<RouteSpec> tried = new HashSet<>(4);
        while (true) {
            Optional<RouteSpec> choice = chooser.choose(destination, bytes,
                    route -> !tried.contains(route) && usable(route, upstream));
            if (choice.isEmpty()) {
                break;
            }
            RouteSpec route = choice.get();
            tried.add(route);
            RoutingHeader routed = routing.withPath(pathOf(route));
            if (Frames.wireBytes(frame, routed) > config.frameMaxBytes()) {
                metrics.errors(ErrorKind.MALFORMED_BATCH).inc();
                return answer(frame, upstream, AckReason.MALFORMED_BATCH, NackReason.INVALID_BATCH,
                        "the frame exceeds frame.max.bytes (" + config.frameMaxBytes()
                                + ") once its path is added; send smaller batches");
            }
            RouteMetrics routeMetrics = metrics.route(destination, route.name());
            if (route.local()) {
                return deliver(Frames.withRouting(frame, routed), reservation, upstream, route, routeMetrics);
            }
            NextHopLink link = nextHops.link(route.hops().get(0), upstream.stream(),
                    upstream.eventLoop());
            if (link == null) {
                break;
            }
            if (awaitFirstConnection(link, upstream)) {
                return Outcome.WAIT;
            }
            if (link.state() == NextHopLink.State.READY) {
                return forward(frame, routed.advance(), link, reservation, upstream, route, routeMetrics);
            }
            chooser.onFailure(route);
        }
        return null;
    }

    private boolean usable(RouteSpec route, UpstreamHandler upstream) {
        if (route.local()) {
            return true;
        }
        NextHopLink link = nextHops.link(route.hops().get(0), upstream.stream(),
                upstream.eventLoop());
        return link != null && link.usable();
    }

    private List<String> pathOf(RouteSpec route) {
        return pathsByRoute.computeIfAbsent(route, r -> {
            List<String> hops = new ArrayList<>(r.hops().size() + 1);
            hops.add(relayId);
            for (HopAddress hop : r.hops()) {
                hops.add(hop.toString());
            }
            return List.copyOf(hops);
        });
    }

    /** True when the link is still making its first attempt: the upstream then waits for it. */
    private static boolean awaitFirstConnection(NextHopLink link, UpstreamHandler upstream) {
        if (link.state() != NextHopLink.State.CONNECTING) {
            return false;
        }
        link.awaitChange(upstream);
        // Re-check after registering: the attempt may have ended in between.
        return link.state() == NextHopLink.State.CONNECTING;
    }

    private Outcome forward(Frame frame, RoutingHeader next, NextHopLink link, BufferBudgets.Reservation reservation,
                            UpstreamHandler upstream, RouteSpec route, RouteMetrics routeMetrics) {
        if (link == null) {
            return answer(frame, upstream, AckReason.NEXT_HOP_UNREACHABLE, NackReason.NO_ROUTE,
                    "relay " + relayId + " is shutting down");
        }
        if (awaitFirstConnection(link, upstream)) {
            return Outcome.WAIT;
        }
        if (link.state() != NextHopLink.State.READY) {
            if (route != null) {
                chooser.onFailure(route);
            }
            return answer(frame, upstream, AckReason.NEXT_HOP_UNREACHABLE, NackReason.NO_ROUTE,
                    "next hop " + link.peerId() + " is unreachable from relay " + relayId);
        }
        Frame out = Frames.withRouting(frame, next);
        return handOver(out, List.of(link), reservation, upstream, route, routeMetrics, false);
    }

    private Outcome deliver(Frame frame, BufferBudgets.Reservation reservation, UpstreamHandler upstream,
                            RouteSpec route, RouteMetrics routeMetrics) {
        String stream = upstream.stream().id();
        if (frame instanceof BatchFrame batch) {
            SubscriberLink owner = subscribers.owner(stream, batch.header().topic(), batch.header().partition());
            if (owner == null) {
                return answer(frame, upstream, AckReason.NO_SUBSCRIBER, NackReason.NO_SUBSCRIBER,
                        "no subscriber of stream " + stream + " at relay " + relayId + " owns "
                                + batch.header().topic() + "-" + batch.header().partition());
            }
            // This relay is the route's egress: the route has carried the batch. The receipt goes
            // first, so that the upstream sees it before any answer.
            if (upstream.session().receipts()) {
                upstream.sendReceipt(AckFrame.received(batch.header()));
            }
            return handOver(frame, List.of(owner), reservation, upstream, route, routeMetrics, true);
        }
        if (frame instanceof BatchesFrame batches) {
            return deliverBatches(batches, stream, reservation, upstream, route, routeMetrics);
        }
        List<SubscriberLink> all = subscribers.all(stream);
        if (all.isEmpty()) {
            return answer(frame, upstream, AckReason.NO_SUBSCRIBER, NackReason.NO_SUBSCRIBER,
                    "no subscriber of stream " + stream + " at relay " + relayId);
        }
        return handOver(frame, List.copyOf(all), reservation, upstream, route, routeMetrics, false);
    }

    /**
     * A BATCHES frame goes whole to the subscriber owning its first section's partition if that one
     * owns every section (always so with one subscriber). Otherwise nothing of it is delivered: no
     * subscriber owns some section, NACK {@code NO_SUBSCRIBER}; another subscriber does, NACK
     * {@code MIXED_SHARES} carrying the share count, by which the sender regroups its frames. The
     * frame is never split here: its MAC covers all of it, and its one acknowledgement stands for
     * every section.
     */
    private Outcome deliverBatches(BatchesFrame frame, String stream, BufferBudgets.Reservation reservation,
                                   UpstreamHandler upstream, RouteSpec route, RouteMetrics routeMetrics) {
        List<BatchesFrame.Section> sections = frame.sections();
        BatchesFrame.Section first = sections.get(0);
        SubscriberLink owner = subscribers.owner(stream, first.topic(), first.partition());
        BatchesFrame.Section unowned = owner == null ? first : null;
        for (int i = 1; i < sections.size() && unowned == null; i++) {
            BatchesFrame.Section section = sections.get(i);
            if (!owner.owns(section.topic(), section.partition())) {
                unowned = section;
            }
        }
        if (unowned != null) {
            SubscriberLink other = owner == null ? null
                    : subscribers.owner(stream, unowned.topic(), unowned.partition());
            if (other == null) {
                return answer(frame, upstream, AckReason.NO_SUBSCRIBER, NackReason.NO_SUBSCRIBER,
                        "no subscriber of stream " + stream + " at relay " + relayId + " owns "
                                + unowned.topic() + "-" + unowned.partition());
            }
            int shareCount = owner.subscription().shareCount();
            String text = Frames.truncate("the frame's partitions belong to " + shareCount + " shares at relay "
                    + relayId + " (" + first.topic() + "-" + first.partition() + " and " + unowned.topic() + "-"
                    + unowned.partition() + " to different subscribers); group them by the share count");
            AckFrame nack = AckFrame.mixedShares(frame, shareCount, text);
            ReferenceCountUtil.release(frame);
            metrics.nacks(NackReason.MIXED_SHARES).inc();
            upstream.sendAck(nack);
            return Outcome.ANSWERED;
        }
        if (upstream.session().receipts()) {
            upstream.sendReceipt(AckFrame.received(frame));
        }
        return handOver(frame, List.of(owner), reservation, upstream, route, routeMetrics, true);
    }

    /**
     * Registers the frame as pending, then writes it to each downstream. A downstream that cannot
     * take it, or whose connection changed meanwhile (the loss scan may have run before the
     * registration), fails that copy at once: the upstream gets a NACK, never silence.
     *
     * @param atEgress this relay is the last of the frame's route (a route without hops, when
     *                 {@code route} is set): the route chooser hears of the receipt at once
     */
    private Outcome handOver(Frame frame, List<? extends Downstream> downstreams, BufferBudgets.Reservation reservation,
                             UpstreamHandler upstream, RouteSpec route, RouteMetrics routeMetrics, boolean atEgress) {
        long bytes = reservation.bytes();
        long[] epochs = new long[downstreams.size()];
        for (int i = 0; i < epochs.length; i++) {
            epochs[i] = downstreams.get(i).epoch();
        }
        // Every downstream of one frame is a subscriber (epoch 0 while open) or the single next hop.
        PendingEntry entry = new PendingEntry(frame, upstream, List.copyOf(downstreams), epochs[0], route,
                routeMetrics, reservation, Frames.BOOKKEEPING_BYTES, clock.nanoTime());
        if (atEgress) {
            entry.markReceived();
        }
        acks.register(entry);
        for (int i = 0; i < epochs.length; i++) {
            Downstream downstream = downstreams.get(i);
            Frame copy = i == epochs.length - 1 ? frame : ReferenceCountUtil.retain(frame);
            boolean sent = downstream.send(copy, entry::copyWritten);
            if (!sent) {
                entry.copyWritten(); // nothing will be written for this copy
            }
            if (!sent || downstream.epoch() != epochs[i]) {
                acks.copyLost(entry, downstream.peerId() + " went away while the frame was handed over");
                continue;
            }
            downstream.metrics().batchesOut().inc();
            upstream.feeding(downstream);
        }
        boolean ontoARoute = route != null || downstreams.get(0) instanceof NextHopLink;
        if (routeMetrics != null && ontoARoute) {
            routeMetrics.batchesOut().inc();
            routeMetrics.bytesOut().inc(bytes);
        }
        if (route != null) {
            chooser.onSent(route, bytes);
            if (atEgress) {
                chooser.onReceived(route, bytes, Duration.ZERO);
            }
        }
        return Outcome.FORWARDED;
    }

    /** NACKs a frame that is not pending (nothing downstream has it) and releases it. */
    Outcome answer(Frame frame, UpstreamHandler upstream, AckReason reason, NackReason label, String message) {
        String text = Frames.truncate(message);
        AckFrame nack;
        if (frame instanceof BatchFrame batch) {
            nack = AckFrame.nack(batch.header(), reason, text);
        } else if (frame instanceof BatchesFrame batches) {
            nack = AckFrame.nack(batches, reason, text);
        } else {
            nack = AckFrame.nack((TopicMetadataFrame) frame, reason, text);
        }
        ReferenceCountUtil.release(frame);
        metrics.nacks(label).inc();
        upstream.sendAck(nack);
        return Outcome.ANSWERED;
    }
}
