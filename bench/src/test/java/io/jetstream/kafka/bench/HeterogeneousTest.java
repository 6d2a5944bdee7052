package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HeterogeneousTest {

    private static final double A2 = 12e6 / 8 * Heterogeneous.USABLE_SHARE; // via-a2's bytes/s
    private static final double A3 = 40e6 / 8 * Heterogeneous.USABLE_SHARE;

    @Test
    void theCheapestSplitFillsTheCheapRouteThenTheThirdSiteAndLeavesDirectIdle() {
        // below via-a2's capacity: all on via-a2 at 0.02/GB
        assertThat(Heterogeneous.cheapestEgressPerSecond(1_000_000)).isCloseTo(1e-3 * 0.02, within(1e-12));
        assertThat(Heterogeneous.cheapestRoutes(1_000_000)).extracting(Heterogeneous.RouteSetup::route)
                .containsExactly("via-a2");
        // above it: via-a2 full, the rest on via-a3 at 0.03/GB
        double load = 3_000_000;
        assertThat(Heterogeneous.cheapestEgressPerSecond(load))
                .isCloseTo(A2 / 1e9 * 0.02 + (load - A2) / 1e9 * 0.03, within(1e-12));
        assertThat(Heterogeneous.cheapestRoutes(load)).extracting(Heterogeneous.RouteSetup::route)
                .containsExactly("via-a2", "via-a3");
        // beyond via-a2 and via-a3: direct takes the rest at 0.09/GB
        double big = A2 + A3 + 1_000_000;
        assertThat(Heterogeneous.cheapestEgressPerSecond(big))
                .isCloseTo(A2 / 1e9 * 0.02 + A3 / 1e9 * 0.03 + 1e-3 * 0.09, within(1e-12));
        assertThat(Heterogeneous.cheapestEgressPerSecond(0)).isZero();
    }

    @Test
    void theThirdSitesRelayIsPaidInWholeLeasesForTheTimeTheSplitUsesIt() {
        double lease = 0.02 / 60; // one minute at 0.02 an hour
        // 30 s on via-a2 alone: no relay
        assertThat(Heterogeneous.cheapestCost(List.of(new double[] {1_000_000, 30})))
                .isCloseTo(30e-3 * 0.02, within(1e-12));
        // 30 s + 40 s needing via-a3: 70 s of its relay, two leases
        double cost = Heterogeneous.cheapestCost(List.of(new double[] {3_000_000, 30}, new double[] {3_000_000, 40}));
        assertThat(cost).isCloseTo(70 * Heterogeneous.cheapestEgressPerSecond(3_000_000) + 2 * lease, within(1e-12));
    }

    @Test
    void theThirdSitesRelayPriceRaisesItsEffectivePriceButKeepsItBelowDirect() {
        Map<String, Double> prices = new java.util.LinkedHashMap<>();
        Heterogeneous.ROUTES.forEach(route -> prices.put(route.route(), route.effectivePricePerGb()));

        assertThat(prices.get("via-a2")).isEqualTo(0.02);
        assertThat(prices.get("via-a3")).isGreaterThan(0.03).isLessThan(prices.get("direct"));
    }

    @Test
    void theTargetNeedsMoreThanTheCheapestRoute() {
        // 645 wire bytes per record (zstd, measured): the target's wire rate exceeds via-a2's capacity
        assertThat(Heterogeneous.TARGET_RATE_QUICK * 645).isGreaterThan(A2);
        assertThat(Heterogeneous.TARGET_RATE * 645).isGreaterThan(A2).isLessThan(A2 + A3);
    }

    @Test
    void onlyTheScenariosVariantsGetPricesPolicyAndCap() {
        BenchPlan plan = BenchPlan.defaults("wan", BenchPlan.Load.HETEROGENEOUS, true, Path.of("out"), "cmd");
        Map<String, String> adaptive = Heterogeneous.ingressKeys(plan, Variants.byId(Variants.JS_HETERO_ADAPTIVE), "B");
        Map<String, String> roundRobin = Heterogeneous.ingressKeys(plan,
                Variants.byId(Variants.JS_HETERO_ROUND_ROBIN), "B");

        assertThat(adaptive).containsEntry("routing.policy", "adaptive")
                .containsEntry("destinations.B.routes.via-a2.price.per.gb", "0.02")
                .containsEntry("destinations.B.routes.via-a3.relay.price.per.hour", "0.02");
        assertThat(Double.parseDouble(adaptive.get("routing.spend.cap.per.hour"))).isPositive();
        assertThat(roundRobin).containsEntry("routing.policy", "round-robin");
        assertThat(Heterogeneous.ingressKeys(plan, Variants.byId(Variants.JS_3_ROUTES), "B")).isEmpty();
        BenchPlan steady = BenchPlan.defaults("wan", true, Path.of("out"), "cmd");
        assertThat(Heterogeneous.ingressKeys(steady, Variants.byId(Variants.JS_HETERO_ADAPTIVE), "B")).isEmpty();
    }

    @Test
    void thePlanRunsBothVariantsThroughOneTargetStep() {
        BenchPlan quick = BenchPlan.defaults("wan", BenchPlan.Load.HETEROGENEOUS, true, Path.of("out"), "cmd");

        assertThat(quick.outputName()).isEqualTo("wan-heterogeneous-quick");
        assertThat(quick.variants()).containsExactly(Variants.JS_HETERO_ADAPTIVE, Variants.JS_HETERO_ROUND_ROBIN);
        assertThat(quick.rateSteps()).extracting(RateStep::name).containsExactly("target");
        assertThat(quick.rateSteps().get(0).ratePerS()).isEqualTo(Heterogeneous.TARGET_RATE_QUICK);
        assertThat(BenchPlan.Load.of("heterogeneous")).isEqualTo(BenchPlan.Load.HETEROGENEOUS);
    }

    @Test
    void economicsCompareSpendWithTheCheapestSplitOfTheSameBytesAndRankRoutesByRoundTrip() {
        // 2 MB/s for 20 s: 1.2 MB/s on via-a2, 0.8 MB/s on via-a3, and one lease of via-a3's relay; the cheapest
        // split fills via-a2 to 1.425 MB/s, so it is a little cheaper than this one
        long second = 1_000_000_000L;
        double tenSeconds = 12e6 / 1e9 * 0.02 + 8e6 / 1e9 * 0.03 + 0.02 / 60 / 2;
        List<RouteSpendSampler.Sample> samples = List.of(
                sample(0, 0, 0, 0),
                sample(10 * second, 12e6, 8e6, tenSeconds),
                sample(20 * second, 24e6, 16e6, 2 * tenSeconds));

        Map<String, Double> rtts = Map.of("direct", 0.053, "via-a2", 0.068, "via-a3", 0.099);
        Heterogeneous.RouteEconomics e = Heterogeneous.economics(samples, 1.0, rtts).orElseThrow();

        assertThat(e.megabytes()).isEqualTo(40.0);
        assertThat(e.perGb()).isCloseTo(0.024 + 0.02 / 60 / 40e6 * 1e9, within(1e-4));
        assertThat(e.cheapestPerGb()).isLessThan(e.perGb()).isGreaterThan(e.perGb() * 0.9);
        assertThat(e.withinFivePercent()).isEqualTo(e.perGb() <= 1.05 * e.cheapestPerGb());
        assertThat(e.shares()).containsEntry("via-a2", 0.6).containsEntry("via-a3", 0.4).containsEntry("direct", 0.0);
        assertThat(e.capHeld()).isTrue();
        assertThat(e.spendOverTime()).hasSize(3);
        assertThat(e.rankByRtt()).containsExactly("direct", "via-a2", "via-a3");
        assertThat(e.rankMatches()).isTrue();
        assertThat(e.rankingRttMs()).containsEntry("direct", 50.0).containsEntry("via-a2", 50.0)
                .containsEntry("via-a3", 90.0);
        assertThat(e.rankedByScheduler()).as("via-a2's 10 ms one way is within the scheduler's margin").isTrue();

        assertThat(e.spentSource()).isEqualTo("relay");
        // the same bytes at the routes' prices and one lease: what the relay charged
        assertThat(e.priced()).isCloseTo(e.spent(), within(1e-6));
        assertThat(e.rttMs()).containsEntry("via-a3", 99.0);
        assertThat(e.schedulerRttMs()).containsEntry("via-a3", 90.0);
        assertThat(Heterogeneous.economics(samples, 1.0, Map.of("direct", 0.07, "via-a2", 0.06, "via-a3", 0.09))
                .orElseThrow().rankMatches()).isFalse();
        assertThat(Heterogeneous.economics(samples, 0.0001, rtts).orElseThrow().capHeld()).isFalse();
        assertThat(Heterogeneous.economics(samples.subList(0, 1), 1.0, rtts)).isEmpty();
        // round-robin charges nothing: the money is the bytes at the routes' prices
        List<RouteSpendSampler.Sample> unpriced = samples.stream().map(sample -> new RouteSpendSampler.Sample(
                sample.nanos(), Map.of(), sample.bytes(), sample.rttSeconds(), sample.rankingRttSeconds())).toList();
        Heterogeneous.RouteEconomics roundRobin = Heterogeneous.economics(unpriced, 1.0, rtts).orElseThrow();
        assertThat(roundRobin.spentSource()).isEqualTo("prices x bytes");
        assertThat(roundRobin.spent()).isCloseTo(e.spent(), within(1e-6));
        List<RouteSpendSampler.Sample> unscheduled = samples.stream().map(sample -> new RouteSpendSampler.Sample(
                sample.nanos(), sample.spent(), sample.bytes(), sample.rttSeconds(), Map.of())).toList();
        assertThat(Heterogeneous.economics(unscheduled, 1.0, rtts).orElseThrow().rankedByScheduler())
                .as("no scheduler, no verdict").isNull();
    }

    @Test
    void theSamplerReadsEachRoutesCountersFromPrometheusText() {
        String text = """
                # TYPE jetstream_relay_route_spent_total counter
                jetstream_relay_route_spent_total{destination="B",route="via-a2"} 0.0125
                jetstream_relay_route_spent_total{destination="B",route="direct"} 0.0
                jetstream_relay_route_bytes_out_total{destination="B",route="via-a2"} 625000.0
                jetstream_relay_route_rtt_seconds{destination="B",route="via-a2"} 0.0712
                jetstream_relay_route_ranking_rtt_seconds{destination="B",route="via-a2"} 0.05
                """;

        RouteSpendSampler.Sample sample = RouteSpendSampler.parse(7, text);

        assertThat(sample.spent()).containsEntry("via-a2", 0.0125).containsEntry("direct", 0.0);
        assertThat(sample.bytes()).containsEntry("via-a2", 625000.0);
        assertThat(sample.rttSeconds()).containsEntry("via-a2", 0.0712);
        assertThat(sample.rankingRttSeconds()).containsEntry("via-a2", 0.05);
        assertThat(sample.totalSpent()).isEqualTo(0.0125);
    }

    @Test
    void theSchedulerRanksRoutesWhoseDelaysReallyDifferByThem() {
        assertThat(Heterogeneous.rankedBySchedulerAsConfigured(Map.of("direct", 50.0, "via-a2", 64.0, "via-a3", 101.0)))
                .isTrue();
        assertThat(Heterogeneous.rankedBySchedulerAsConfigured(Map.of("direct", 50.0, "via-a2", 50.0, "via-a3", 50.0)))
                .as("via-a3, 40 ms longer one way, ranked with the others").isFalse();
        assertThat(Heterogeneous.rankedBySchedulerAsConfigured(Map.of("direct", 50.0, "via-a3", 130.0)))
                .as("no reading for via-a2").isFalse();
    }

    /** The scheduler's RTTs: direct 50 ms, via-a2 60, via-a3 90; it ranks direct and via-a2 alike. */
    private static RouteSpendSampler.Sample sample(long nanos, double a2Bytes, double a3Bytes, double spent) {
        return new RouteSpendSampler.Sample(nanos, Map.of("via-a2", spent),
                Map.of("via-a2", a2Bytes, "via-a3", a3Bytes, "direct", 0.0),
                Map.of("direct", 0.050, "via-a2", 0.060, "via-a3", 0.090),
                Map.of("direct", 0.050, "via-a2", 0.050, "via-a3", 0.090));
    }
}
