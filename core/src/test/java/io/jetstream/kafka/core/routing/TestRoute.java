package io.jetstream.kafka.core.routing;

import java.util.List;
import java.util.Objects;

/**
 * A route as the scheduler's tests and simulations describe it (the relay's is its configured
 * {@code RouteSpec}).
 *
 * @param name              unique among the routes of one destination; the key of every report
 * @param hops              relays the batch traverses after the ingress relay, in order (the last
 *                          is the egress relay); carried in the batch so later hops need no state
 * @param pricePerGb        money per GB (10^9 bytes) of wire bytes: the sum of the egress prices of
 *                          every site boundary the route crosses (see {@link CostModel#pathPricePerGb})
 * @param relayPricePerHour money per hour for relays used only by this route while it carries
 *                          traffic (0 for relays that run anyway: their cost is sunk)
 */
public record TestRoute(String name, List<String> hops, double pricePerGb, double relayPricePerHour)
        implements PricedRoute {

    public TestRoute {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("route name must not be blank");
        }
        hops = List.copyOf(Objects.requireNonNull(hops, "hops"));
        if (!(pricePerGb >= 0) || !Double.isFinite(pricePerGb)) {
            throw new IllegalArgumentException("route " + name + ": pricePerGb must be finite and >= 0, got "
                    + pricePerGb);
        }
        if (!(relayPricePerHour >= 0) || !Double.isFinite(relayPricePerHour)) {
            throw new IllegalArgumentException("route " + name + ": relayPricePerHour must be finite and >= 0, got "
                    + relayPricePerHour);
        }
    }

    /** A route with no price: routing by capacity alone. */
    public static TestRoute free(String name, String... hops) {
        return new TestRoute(name, List.of(hops), 0, 0);
    }
}
