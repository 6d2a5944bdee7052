package io.jetstream.kafka.core.routing;

/**
 * What the {@link RouteScheduler} and the {@link CostModel} need to know of a route: its name and
 * its prices. The caller's own route type implements it (the relay's configured route carries its
 * destination and hop addresses besides), so the scheduler hands back the caller's routes as given.
 *
 * <p>Implementations are values: immutable, with equality by content.
 */
public interface PricedRoute {

    /** Unique among the routes of one scheduler; the key of every report. */
    String name();

    /**
     * Money per GB (10^9 bytes) of wire bytes: the sum of the egress prices of every site boundary
     * the route crosses (see {@link CostModel#pathPricePerGb}).
     */
    double pricePerGb();

    /**
     * Money per hour for relays used only by this route while it carries traffic (0 for relays that
     * run anyway: their cost is sunk).
     */
    double relayPricePerHour();
}
