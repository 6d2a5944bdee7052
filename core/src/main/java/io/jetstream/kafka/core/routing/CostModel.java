package io.jetstream.kafka.core.routing;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Money a route costs: egress charged per GB at each site boundary it crosses, plus the price of
 * relays that run for it, per hour. Prices are in one currency of the operator's choosing; a GB is
 * 10^9 bytes, as clouds bill. Inbound and intra-site traffic are free (as on the clouds the papers
 * used, and on today's major clouds).
 *
 * <p>Pure functions; thread-safe.
 */
public final class CostModel {

    public static final double BYTES_PER_GB = 1e9;
    private static final double NANOS_PER_HOUR = 3_600e9;

    private CostModel() {
    }

    /**
     * Price per GB of a path: for every hop from one site to a different one, the egress price of
     * the site it leaves. {@code sites} lists the site of each node in order (source relay first,
     * egress relay last); sites missing from {@code egressPricePerGb} are free.
     */
    public static double pathPricePerGb(List<String> sites, Map<String, Double> egressPricePerGb) {
        double price = 0;
        for (int i = 1; i < sites.size(); i++) {
            boolean crossesBoundary = !sites.get(i - 1).equals(sites.get(i));
            if (crossesBoundary) {
                price += egressPricePerGb.getOrDefault(sites.get(i - 1), 0.0);
            }
        }
        return price;
    }

    /** Egress cost of sending {@code wireBytes} on {@code route}. */
    public static double egressCost(PricedRoute route, long wireBytes) {
        return Math.max(0, wireBytes) / BYTES_PER_GB * route.pricePerGb();
    }

    /** Relay cost of keeping {@code route}'s relays for {@code duration}. */
    public static double relayCost(PricedRoute route, Duration duration) {
        return duration.toNanos() / NANOS_PER_HOUR * route.relayPricePerHour();
    }

    /** Money per hour of carrying {@code bytesPerSecond} on {@code route}, relays included. */
    public static double spendPerHour(PricedRoute route, double bytesPerSecond) {
        return bytesPerSecond * 3_600 / BYTES_PER_GB * route.pricePerGb() + route.relayPricePerHour();
    }

    /**
     * Price per GB of a route when it runs at {@code bytesPerSecond}: its egress price plus its relay
     * price spread over the GB it carries in an hour. Ranks routes for "cheapest first".
     */
    public static double effectivePricePerGb(PricedRoute route, double bytesPerSecond) {
        double gbPerHour = Math.max(bytesPerSecond, 1.0) * 3_600 / BYTES_PER_GB;
        return route.pricePerGb() + route.relayPricePerHour() / gbPerHour;
    }
}
