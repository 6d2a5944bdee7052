package io.jetstream.kafka.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code heterogeneous} load of {@code ./jetstream bench wan} (issue 13): three routes of different capacity,
 * delay and price, and an offered load that needs more than the cheapest route.
 *
 * <pre>
 *   route    uplink   capacity     extra one-way delay   price/GB   relay price/h
 *   direct   a1       40 Mbit/s    +0 ms                 0.09       -
 *   via-a2   a2       12 Mbit/s    +10 ms                0.02       -
 *   via-a3   a3       40 Mbit/s    +40 ms                0.03       0.02   ("through a third site")
 * </pre>
 *
 * The third site is emulated: relay a3 sits at site A, and its route gets a longer delay and a relay price per hour,
 * what a relay in another region would add. The cheapest split of a load over these routes fills via-a2, then
 * via-a3, then direct ({@link #cheapestCost}); at the target rate via-a2 alone is too small, so the right
 * answer is via-a2 full and the rest on via-a3, with direct (fast but dear) idle.
 *
 * <p>Variants: {@link Variants#JS_HETERO_ADAPTIVE} (the default {@code routing.policy=adaptive} with the prices and a
 * spend cap) and {@link Variants#JS_HETERO_ROUND_ROBIN} (the same routes, {@code routing.policy=round-robin}, which
 * ignores prices and the cap). MirrorMaker 2 is left out: it has one path, so its money per GB is that path's price
 * by construction (0.09 over a1's uplink).
 */
final class Heterogeneous {

    /** One route of the scenario and the uplink it crosses. */
    record RouteSetup(String route, String host, long uplinkBitsPerSecond, Duration extraDelay, double pricePerGb,
                      double relayPricePerHour) {

        /** Bytes per second the route can carry: {@link #USABLE_SHARE} of the uplink's cap. */
        double capacityBytesPerSecond() {
            return uplinkBitsPerSecond / 8.0 * USABLE_SHARE;
        }

        /** As core's scheduler ranks it: the price per GB plus the relay's hourly price over the GB an hour. */
        double effectivePricePerGb() {
            return pricePerGb + relayPricePerHour / (capacityBytesPerSecond() * 3600 / 1e9);
        }
    }

    /** Share of an uplink's cap that carries relay frames: the rest is Ethernet, IP and TCP headers and ACKs. */
    static final double USABLE_SHARE = 0.95;

    static final List<RouteSetup> ROUTES = List.of(
            new RouteSetup("direct", "a1", 40_000_000L, Duration.ZERO, 0.09, 0),
            new RouteSetup("via-a2", "a2", 12_000_000L, Duration.ofMillis(10), 0.02, 0),
            new RouteSetup("via-a3", "a3", 40_000_000L, Duration.ofMillis(40), 0.03, 0.02));

    /**
     * Records/s of the target step: via-a2 carries about 2,300 records/s of the bench's payload (7,600/s over a 40
     * Mbit/s uplink at 645 wire bytes each, scaled to 12 Mbit/s), so both rates need a second route.
     */
    static final double TARGET_RATE = 4000;
    static final double TARGET_RATE_QUICK = 3000;
    static final Duration TARGET_STEP = Duration.ofSeconds(120);
    static final Duration TARGET_STEP_QUICK = Duration.ofSeconds(20);

    /**
     * The spend cap is this many times the cheapest split's money for the run's records at their full size (the
     * wire carries them zstd-compressed, about 0.63 of that, so about 2.4 times the cheapest split's actual money):
     * room for probes, estimates and a relay lease more, and still below what sending the load over direct would
     * cost (0.09 against about 0.025 per GB, 3.6 times). A cap the run reaches stops it (the relay refuses batches).
     */
    static final double CAP_FACTOR = 1.5;

    /** Relays priced per hour are paid in advance in slices this long (core's {@code relayLease} default). */
    static final Duration RELAY_LEASE = Duration.ofMinutes(1);

    /** How often the ingress relay's route counters are sampled. */
    static final Duration SAMPLE_INTERVAL = Duration.ofSeconds(1);

    private Heterogeneous() {
    }

    static boolean applies(BenchPlan plan) {
        return plan.load() == BenchPlan.Load.HETEROGENEOUS;
    }

    static List<String> variants() {
        return List.of(Variants.JS_HETERO_ADAPTIVE, Variants.JS_HETERO_ROUND_ROBIN);
    }

    static List<RateStep> steps(boolean quick) {
        return List.of(RateStep.rate("target", quick ? TARGET_RATE_QUICK : TARGET_RATE,
                quick ? TARGET_STEP_QUICK : TARGET_STEP));
    }

    /** Gives each route's uplink its capacity and extra delay; the rest of the network stays as the plan says. */
    static void shape(BenchNetwork network, PrintStream out) throws IOException, InterruptedException {
        for (RouteSetup route : ROUTES) {
            network.setUplinkRate(route.host(), route.uplinkBitsPerSecond());
            network.setExtraDelay(route.host(), route.extraDelay());
            out.printf(Locale.ROOT, "Route %s: uplink of %s at %.0f Mbit/s, +%d ms one way, %.2f/GB%s%n",
                    route.route(), route.host(), route.uplinkBitsPerSecond() / 1e6, route.extraDelay().toMillis(),
                    route.pricePerGb(), route.relayPricePerHour() > 0
                            ? String.format(Locale.ROOT, " + relay %.2f/h", route.relayPricePerHour()) : "");
        }
    }

    /**
     * The ingress relay's keys for a variant of this scenario (route prices, policy, spend cap) on top of
     * {@link RelayConfigs#ingressRoutes}; empty for any other variant.
     */
    static Map<String, String> ingressKeys(BenchPlan plan, Variant variant, String destination) {
        boolean adaptive = variant.id().equals(Variants.JS_HETERO_ADAPTIVE);
        if (!applies(plan) || !adaptive && !variant.id().equals(Variants.JS_HETERO_ROUND_ROBIN)) {
            return Map.of();
        }
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("routing.policy", adaptive ? "adaptive" : "round-robin");
        keys.put("routing.spend.cap.per.hour", String.format(Locale.ROOT, "%.6f", spendCap(plan)));
        for (RouteSetup route : ROUTES) {
            String prefix = "destinations." + destination + ".routes." + route.route();
            keys.put(prefix + ".price.per.gb", Double.toString(route.pricePerGb()));
            keys.put(prefix + ".relay.price.per.hour", Double.toString(route.relayPricePerHour()));
        }
        return keys;
    }

    /**
     * {@code routing.spend.cap.per.hour} of the adaptive variant: {@link #CAP_FACTOR} times the cheapest split's money
     * for every record the run offers (warm-up and target step) at its full size, its relays' leases included. The
     * cap's window is an hour and a run is shorter, so it bounds the whole run's spend.
     */
    static double spendCap(BenchPlan plan) {
        List<double[]> load = new ArrayList<>(); // [bytes per second, seconds]
        load.add(new double[] {plan.warmupRate() * plan.valueBytes(), plan.warmup().toMillis() / 1000.0});
        for (RateStep step : steps(plan.quick())) {
            load.add(new double[] {step.ratePerS() * plan.valueBytes(), step.duration().toMillis() / 1000.0});
        }
        return CAP_FACTOR * cheapestCost(load);
    }

    /**
     * Money of the cheapest split of a load given as [bytes per second, seconds] intervals: each interval's egress
     * ({@link #cheapestEgressPerSecond}), plus, for each route with a relay price, whole {@link #RELAY_LEASE}s for the
     * seconds the split uses it (paid in advance, as the scheduler pays them).
     */
    static double cheapestCost(List<double[]> load) {
        double cost = 0;
        Map<String, Double> relaySeconds = new LinkedHashMap<>();
        for (double[] interval : load) {
            cost += cheapestEgressPerSecond(interval[0]) * interval[1];
            for (RouteSetup route : cheapestRoutes(interval[0])) {
                if (route.relayPricePerHour() > 0) {
                    relaySeconds.merge(route.route(), interval[1], Double::sum);
                }
            }
        }
        double leaseSeconds = RELAY_LEASE.toMillis() / 1000.0;
        for (RouteSetup route : ROUTES) {
            double seconds = relaySeconds.getOrDefault(route.route(), 0.0);
            cost += Math.ceil(seconds / leaseSeconds - 1e-9) * leaseSeconds / 3600 * route.relayPricePerHour();
        }
        return cost;
    }

    /**
     * Egress money per second of the cheapest split of {@code bytesPerSecond} over {@link #ROUTES}: routes in order
     * of {@link RouteSetup#effectivePricePerGb()}, each filled to its capacity until the load is carried, each paying
     * its price per GB for its bytes. A load above all capacities is charged the dearest route's price for the excess.
     */
    static double cheapestEgressPerSecond(double bytesPerSecond) {
        double left = bytesPerSecond;
        double cost = 0;
        List<RouteSetup> byPrice = byPrice();
        for (RouteSetup route : byPrice) {
            double carried = Math.min(Math.max(left, 0), route.capacityBytesPerSecond());
            cost += carried / 1e9 * route.pricePerGb();
            left -= carried;
        }
        if (left > 0) {
            cost += left / 1e9 * byPrice.get(byPrice.size() - 1).pricePerGb();
        }
        return cost;
    }

    /** The routes the cheapest split of {@code bytesPerSecond} uses. */
    static List<RouteSetup> cheapestRoutes(double bytesPerSecond) {
        List<RouteSetup> used = new ArrayList<>();
        double left = bytesPerSecond;
        for (RouteSetup route : byPrice()) {
            if (left <= 0) {
                break;
            }
            used.add(route);
            left -= route.capacityBytesPerSecond();
        }
        return used;
    }

    private static List<RouteSetup> byPrice() {
        List<RouteSetup> byPrice = new ArrayList<>(ROUTES);
        byPrice.sort(Comparator.comparingDouble(RouteSetup::effectivePricePerGb));
        return byPrice;
    }

    /**
     * What a variant's ingress relay spent and carried, from its samples: measured money per GB against the cheapest
     * split of the same bytes interval by interval (so a warm-up one cheap route can carry alone is priced as such),
     * the spend against the cap at every sample, each route's share of the bytes, and its round trip (the sum of its
     * hops' heartbeat round trips, {@code routeRttSeconds}) ranked against the configured extra delays.
     */
    static Optional<RouteEconomics> economics(List<RouteSpendSampler.Sample> samples, double cap,
                                              Map<String, Double> routeRttSeconds) {
        if (samples.size() < 2) {
            return Optional.empty();
        }
        RouteSpendSampler.Sample first = samples.get(0);
        RouteSpendSampler.Sample last = samples.get(samples.size() - 1);
        List<double[]> load = new ArrayList<>();
        for (int i = 1; i < samples.size(); i++) {
            RouteSpendSampler.Sample from = samples.get(i - 1);
            RouteSpendSampler.Sample to = samples.get(i);
            double seconds = (to.nanos() - from.nanos()) / 1e9;
            if (seconds > 0) {
                load.add(new double[] {(to.totalBytes() - from.totalBytes()) / seconds, seconds});
            }
        }
        double cheapest = cheapestCost(load);
        double bytes = last.totalBytes() - first.totalBytes();
        double priced = priced(samples);
        double charged = last.totalSpent() - first.totalSpent();
        boolean relayCharged = charged > 0;
        double spent = relayCharged ? charged : priced;
        // a policy that charges nothing is held to the cap with its priced money (final, so the most)
        double maxSpent = relayCharged
                ? samples.stream().mapToDouble(RouteSpendSampler.Sample::totalSpent).max().orElse(0) : priced;
        boolean capHeld = cap <= 0 || (relayCharged
                ? samples.stream().allMatch(s -> s.totalSpent() <= cap * (1 + 1e-9)) : priced <= cap * (1 + 1e-9));
        Map<String, Double> shares = new LinkedHashMap<>();
        Map<String, Double> rttMs = new LinkedHashMap<>();
        Map<String, Double> schedulerRttMs = new LinkedHashMap<>();
        Map<String, Double> spentByRoute = new LinkedHashMap<>();
        for (RouteSetup route : ROUTES) {
            double routeBytes = last.bytes().getOrDefault(route.route(), 0.0)
                    - first.bytes().getOrDefault(route.route(), 0.0);
            shares.put(route.route(), bytes > 0 ? round(routeBytes / bytes, 4) : 0.0);
            rttMs.put(route.route(), round(routeRttSeconds.getOrDefault(route.route(), 0.0) * 1000, 1));
            schedulerRttMs.put(route.route(), round(last.rttSeconds().getOrDefault(route.route(), 0.0) * 1000, 1));
            spentByRoute.put(route.route(), round(last.spent().getOrDefault(route.route(), 0.0), 6));
        }
        List<String> byRtt = ROUTES.stream().map(RouteSetup::route).filter(r -> rttMs.get(r) > 0)
                .sorted(Comparator.comparingDouble(rttMs::get)).toList();
        List<String> byDelay = ROUTES.stream().sorted(Comparator.comparing(RouteSetup::extraDelay))
                .map(RouteSetup::route).toList();
        List<double[]> spendOverTime = new ArrayList<>();
        for (RouteSpendSampler.Sample sample : samples) {
            spendOverTime.add(new double[] {round((sample.nanos() - first.nanos()) / 1e9, 1),
                round(sample.totalSpent(), 6)});
        }
        double perGb = bytes > 0 ? spent / (bytes / 1e9) : 0;
        double cheapestPerGb = bytes > 0 ? cheapest / (bytes / 1e9) : 0;
        return Optional.of(new RouteEconomics(round(bytes / 1e6, 2), round(spent, 6),
                relayCharged ? "relay" : "prices x bytes", round(priced, 6), round(perGb, 5),
                round(cheapestPerGb, 5), cheapestPerGb > 0 ? round(perGb / cheapestPerGb, 3) : 0,
                cheapestPerGb > 0 && perGb <= 1.05 * cheapestPerGb, round(cap, 6), round(maxSpent, 6), capHeld,
                shares, spentByRoute, rttMs, schedulerRttMs, byRtt, byDelay, byRtt.equals(byDelay),
                rankingRttMs(samples), rankingRttMs(samples).isEmpty() ? null
                        : rankedBySchedulerAsConfigured(rankingRttMs(samples)), spendOverTime));
    }

    /**
     * One way, the extra delay by which two routes must differ for the scheduler to rank them apart: its margin
     * between its routes' round trips (30 ms, core's {@code RouteScheduler.OWN_RTT_MARGIN_SECONDS}) over two.
     */
    static final Duration RANKING_DELAY_MARGIN = Duration.ofMillis(15);

    /** Each route's median, over the samples that have one, of the round trip its scheduler ranked it by (ms). */
    static Map<String, Double> rankingRttMs(List<RouteSpendSampler.Sample> samples) {
        Map<String, Double> medians = new LinkedHashMap<>();
        for (RouteSetup route : ROUTES) {
            double[] values = samples.stream().map(s -> s.rankingRttSeconds().get(route.route()))
                    .filter(v -> v != null && v > 0).mapToDouble(Double::doubleValue).sorted().toArray();
            if (values.length > 0) {
                medians.put(route.route(), round(values[values.length / 2] * 1000, 1));
            }
        }
        return medians;
    }

    /**
     * Whether the scheduler ranked routes whose round trips really differ by them: for every two routes whose
     * configured extra delays differ by at least {@link #RANKING_DELAY_MARGIN}, the longer one's ranking round trip
     * (median, {@link #rankingRttMs}) is the longer. Routes closer than that may share one (the scheduler treats
     * such differences as noise). False when a route has no reading.
     */
    static boolean rankedBySchedulerAsConfigured(Map<String, Double> rankingRttMs) {
        for (RouteSetup shorter : ROUTES) {
            for (RouteSetup longer : ROUTES) {
                boolean reallyLonger = longer.extraDelay().minus(shorter.extraDelay())
                        .compareTo(RANKING_DELAY_MARGIN) >= 0;
                if (!reallyLonger) {
                    continue;
                }
                Double s = rankingRttMs.get(shorter.route());
                Double l = rankingRttMs.get(longer.route());
                if (s == null || l == null || !(l > s)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Money of the bytes each route carried at its price, and its relay's leases from its first use to its last. */
    static double priced(List<RouteSpendSampler.Sample> samples) {
        RouteSpendSampler.Sample first = samples.get(0);
        RouteSpendSampler.Sample last = samples.get(samples.size() - 1);
        double money = 0;
        for (RouteSetup route : ROUTES) {
            String name = route.route();
            money += (last.bytes().getOrDefault(name, 0.0) - first.bytes().getOrDefault(name, 0.0)) / 1e9
                    * route.pricePerGb();
            if (route.relayPricePerHour() > 0) {
                long firstUse = -1;
                long lastUse = -1;
                for (int i = 1; i < samples.size(); i++) {
                    double sent = samples.get(i).bytes().getOrDefault(name, 0.0)
                            - samples.get(i - 1).bytes().getOrDefault(name, 0.0);
                    if (sent > 0) {
                        firstUse = firstUse < 0 ? samples.get(i - 1).nanos() : firstUse;
                        lastUse = samples.get(i).nanos();
                    }
                }
                if (firstUse >= 0) {
                    double leases = Math.max(1, Math.ceil((lastUse - firstUse) / (double) RELAY_LEASE.toNanos()));
                    money += leases * RELAY_LEASE.toSeconds() / 3600.0 * route.relayPricePerHour();
                }
            }
        }
        return money;
    }

    /**
     * One variant's money and routes over its whole run (warm-up and target step).
     *
     * @param megabytes        wire MB the ingress sent onto its routes
     * @param spent            money the ingress charged (sum of {@code jetstream_relay_route_spent_total}); a policy
     *                         that charges nothing (round-robin) gets {@code priced} instead
     * @param spentSource      {@code relay} or {@code prices x bytes}
     * @param priced           each route's bytes at its price, plus a lease of its relay per started minute between
     *                         its first and last use
     * @param perGb            spent per GB sent
     * @param cheapestPerGb    the cheapest split's money per GB for the same bytes at the same times
     * @param costRatio        perGb / cheapestPerGb
     * @param withinFivePercent perGb within 5% of cheapestPerGb (issue 13's target)
     * @param spendCap         {@code routing.spend.cap.per.hour} (the run is shorter than its hour-long window)
     * @param maxSpent         most spent at any sample
     * @param capHeld          no sample above the cap
     * @param shares           each route's share of the bytes
     * @param spentByRoute     each route's money
     * @param rttMs            each route's round trip: the sum of its hops' heartbeat round trips
     *                         ({@code jetstream_relay_peer_rtt_seconds} of the ingress and of each intermediate)
     * @param schedulerRttMs   each route's base round trip as the ingress's scheduler last used it
     *                         ({@code jetstream_relay_route_rtt_seconds})
     * @param rankByRtt        routes by measured round trip, shortest first
     * @param rankByDelay      routes by configured extra delay, shortest first
     * @param rankMatches      the two rankings agree
     * @param rankingRttMs     each route's median ranking round trip at the ingress's scheduler
     *                         ({@code jetstream_relay_route_ranking_rtt_seconds}, {@link #rankingRttMs})
     * @param rankedByScheduler routes whose configured delays really differ were ranked by them
     *                         ({@link #rankedBySchedulerAsConfigured}); null without a scheduler (round-robin)
     * @param spendOverTime    [seconds since the first sample, money spent so far]
     */
    record RouteEconomics(double megabytes, double spent, String spentSource, double priced, double perGb,
                          double cheapestPerGb, double costRatio, boolean withinFivePercent, double spendCap,
                          double maxSpent, boolean capHeld, Map<String, Double> shares,
                          Map<String, Double> spentByRoute, Map<String, Double> rttMs,
                          Map<String, Double> schedulerRttMs, List<String> rankByRtt, List<String> rankByDelay,
                          boolean rankMatches, Map<String, Double> rankingRttMs, Boolean rankedByScheduler,
                          List<double[]> spendOverTime) {
    }

    /** The economics a variant recorded ({@code deployment.route_economics}), if it ran this scenario. */
    static Optional<RouteEconomics> of(VariantResult result) {
        Object value = result.deployment() == null ? null : result.deployment().get(JetStreamReplicator.ECONOMICS);
        return value instanceof RouteEconomics economics ? Optional.of(economics) : Optional.empty();
    }

    static double round(double value, int digits) {
        double scale = Math.pow(10, digits);
        return Math.round(value * scale) / scale;
    }
}
