package io.jetstream.kafka.relay.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import io.jetstream.kafka.core.routing.PricedRoute;

/**
 * One route from this relay towards a destination, as configured under
 * {@code destinations.<destination>.routes.<name>}. The ingress's route schedulers take it as it is
 * (a {@link PricedRoute}); a batch sent on it carries this relay's id and the hops as its path.
 *
 * @param destination       the destination site name
 * @param name              the route name, unique within the destination
 * @param hops              the relays the batch passes through after this one, in order; empty
 *                          when this relay is the egress for the destination
 * @param pricePerGb        what one GB sent over this route costs (egress charges of every site
 *                          boundary it crosses), in the operator's currency
 * @param relayPricePerHour what the relays used only by this route cost per hour
 */
public record RouteSpec(String destination, String name, List<HopAddress> hops, double pricePerGb,
                        double relayPricePerHour) implements PricedRoute {

    public RouteSpec {
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(name, "name");
        hops = List.copyOf(hops);
        if (pricePerGb < 0 || relayPricePerHour < 0) {
            throw new IllegalArgumentException("prices must not be negative");
        }
    }

    /** Whether this relay is the egress for the destination on this route. */
    public boolean local() {
        return hops.isEmpty();
    }

    /** The relay to connect to, or empty when this relay is the egress. */
    public Optional<HopAddress> nextHop() {
        return hops.isEmpty() ? Optional.empty() : Optional.of(hops.get(0));
    }
}
