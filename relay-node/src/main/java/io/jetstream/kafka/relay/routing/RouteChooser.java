package io.jetstream.kafka.relay.routing;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Predicate;

import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.relay.config.RouteSpec;

/**
 * Picks the route of each batch at the ingress, and learns from what happens to it:
 * {@link SchedulingRouteChooser} (core's route scheduler, weighing routes by measured capacity,
 * latency and price; {@code routing.policy=adaptive}, the default) or {@link RoundRobinRouteChooser}.
 *
 * <p>Called from every event loop at once: implementations must be thread-safe and must not block.
 * For one batch the ingress asks again (with the routes already tried excluded) when the chosen
 * route's first hop turns out to be down, at most once per route.
 */
public interface RouteChooser {

    /**
     * @param destination the batch's destination (it has at least one route)
     * @param batchBytes  the batch's size on the wire
     * @param usable      whether a route can take the batch now: its first hop is connected (or
     *                    still making its first attempt) and it was not already tried for this batch
     * @return the route, or empty when none is usable
     */
    Optional<RouteSpec> choose(String destination, long batchBytes, Predicate<RouteSpec> usable);

    /**
     * Whether an empty {@link #choose} for {@code destination} means only that every usable route
     * holds as much in flight as it may: an answer on one of them makes room, so the ingress holds
     * the batch (and stops reading its connection) instead of refusing it.
     */
    default boolean atInFlightCap(String destination, long batchBytes) {
        return false;
    }

    /** The batch left on {@code route}. */
    default void onSent(RouteSpec route, long batchBytes) {
    }

    /** The destination acknowledged a batch sent on {@code route}, {@code rtt} after it left. */
    default void onAck(RouteSpec route, long batchBytes, Duration rtt) {
    }

    /**
     * A batch sent on {@code route} reached the route's egress relay {@code transfer} after it left
     * (a receipt). Its answer is reported later with {@link #onSettled}, not with {@code onAck} or
     * {@code onNack}.
     */
    default void onReceived(RouteSpec route, long batchBytes, Duration transfer) {
    }

    /**
     * The destination answered ({@code written} or not, or this relay timed it out) a batch whose
     * receipt {@link #onReceived} reported: the route had carried it, so this is not the route's doing.
     */
    default void onSettled(RouteSpec route, long batchBytes, boolean written) {
    }

    /** A batch sent on {@code route} came back negatively acknowledged (including this relay's own timeout). */
    default void onNack(RouteSpec route, AckReason reason) {
    }

    /** As {@link #onNack(RouteSpec, AckReason)}, with the batch's size on the wire. */
    default void onNack(RouteSpec route, long batchBytes, AckReason reason) {
        onNack(route, reason);
    }

    /** The first hop of {@code route} could not take a batch (connection down). */
    default void onFailure(RouteSpec route) {
    }
}
