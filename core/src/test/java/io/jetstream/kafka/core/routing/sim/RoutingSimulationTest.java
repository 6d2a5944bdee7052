package io.jetstream.kafka.core.routing.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.jetstream.kafka.core.routing.RouteScheduler;
import io.jetstream.kafka.core.routing.RouteSchedulerSettings;
import io.jetstream.kafka.core.routing.TestRoute;
import io.jetstream.kafka.core.routing.RouteState;
import io.jetstream.kafka.core.routing.RouteStats;
import io.jetstream.kafka.core.routing.SchedulerSnapshot;
import io.jetstream.kafka.core.routing.SpendCap;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The route scheduler on simulated routes (see {@link SimIngress}): shares, cost tiers, the spend
 * cap, noise and failures. The brief's uplink: 4.7 MB/s per route, 25 ms one way; 64 KiB batches.
 */
class RoutingSimulationTest {

    private static final double UPLINK = 4.7e6;
    private static final long ONE_WAY = SimLoop.millis(25);
    private static final int BATCH = 64 * 1024;
    private static final long WINDOW = 8L << 20;

    private final SimLoop loop = new SimLoop();
    private final List<SimRoute> routes = new ArrayList<>();

    private SimRoute route(TestRoute spec, double bytesPerSecond) {
        return route(spec, bytesPerSecond, 0, 0);
    }

    private SimRoute route(TestRoute spec, double bytesPerSecond, long jitter, double noise) {
        SimRoute r = SimRoute.of(loop, spec, bytesPerSecond, ONE_WAY, jitter, noise, 7 + routes.size());
        routes.add(r);
        return r;
    }

    private SimIngress ingress(RouteSchedulerSettings settings) {
        RouteScheduler<TestRoute> scheduler = new RouteScheduler<>(routes.stream().map(SimRoute::spec).toList(), settings);
        return new SimIngress(loop, scheduler, routes, BATCH, SimLoop.seconds(2));
    }

    /** Fractions of the bytes each route delivered between {@code from} and {@code to} seconds. */
    private double[] shares(double from, double to) {
        long[] atFrom = new long[routes.size()];
        loop.runUntil(SimLoop.seconds(from));
        for (int i = 0; i < routes.size(); i++) {
            atFrom[i] = routes.get(i).bytesDelivered();
        }
        loop.runUntil(SimLoop.seconds(to));
        double[] shares = new double[routes.size()];
        double total = 0;
        for (int i = 0; i < routes.size(); i++) {
            shares[i] = routes.get(i).bytesDelivered() - atFrom[i];
            total += shares[i];
        }
        for (int i = 0; i < shares.length; i++) {
            shares[i] = total == 0 ? 0 : shares[i] / total;
        }
        System.out.printf("  shares %.0f..%.0f s: %s, %.2f MB/s%n", from, to, java.util.Arrays.toString(shares),
                total / (to - from) / 1e6);
        return shares;
    }

    private double throughput(double from, double to) {
        loop.runUntil(SimLoop.seconds(from));
        long atFrom = routes.stream().mapToLong(SimRoute::bytesDelivered).sum();
        loop.runUntil(SimLoop.seconds(to));
        long atTo = routes.stream().mapToLong(SimRoute::bytesDelivered).sum();
        return (atTo - atFrom) / (to - from);
    }

    @Test
    void threeEqualRoutesShareEquallyAndAddUp() {
        route(TestRoute.free("direct", "b1"), UPLINK);
        route(TestRoute.free("via-a2", "a2", "b1"), UPLINK);
        route(TestRoute.free("via-a3", "a3", "b1"), UPLINK);
        ingress(RouteSchedulerSettings.defaults()).saturate(WINDOW);

        double[] shares = shares(10, 60);
        for (double share : shares) {
            assertThat(share).isCloseTo(1.0 / 3, within(0.05 / 3));
        }
        double rate = throughput(60, 70);
        System.out.printf("  3 routes: %.2f MB/s of %.2f MB/s summed capacity%n", rate / 1e6, 3 * UPLINK / 1e6);
        assertThat(rate).as("at least 90%% of the summed capacity").isGreaterThanOrEqualTo(0.9 * 3 * UPLINK);
    }

    @Test
    void capacitiesTwoToOneGetTwoToOne() {
        route(TestRoute.free("fast", "b1"), 2 * UPLINK);
        route(TestRoute.free("slow", "a2", "b1"), UPLINK);
        ingress(RouteSchedulerSettings.defaults()).saturate(WINDOW);

        double[] shares = shares(10, 60);
        assertThat(shares[0]).isCloseTo(2.0 / 3, within(0.05 * 2 / 3));
        assertThat(shares[1]).isCloseTo(1.0 / 3, within(0.05 / 3));
    }

    /**
     * At 80% of the summed capacity the split follows capacity too: completions within the tie
     * tolerance alternate and in-flight accounting joins the shortest queue, so both routes run at
     * about 80% (strict earliest completion used to load the fast route to 90% and the slow one to 60%).
     */
    @Test
    void partialLoadSplitsByCapacityWithinEachRoutesCapacity() {
        route(TestRoute.free("fast", "b1"), 2 * UPLINK);
        route(TestRoute.free("slow", "a2", "b1"), UPLINK);
        double offered = 0.8 * 3 * UPLINK;
        ingress(RouteSchedulerSettings.defaults()).offer(offered, 0, SimLoop.seconds(60));

        double[] shares = shares(10, 60);
        assertThat(shares[0]).isCloseTo(2.0 / 3, within(0.05 * 2 / 3));
        assertThat(shares[0] * offered).as("fast route within capacity").isLessThanOrEqualTo(2 * UPLINK);
        assertThat(shares[1] * offered).as("slow route within capacity").isLessThanOrEqualTo(UPLINK);
        assertThat(throughput(60, 60.001)).isZero(); // offer ended
    }

    /** Cheap: 0.02/GB. Expensive: 0.09/GB (two boundaries) plus a relay at 0.50/hour. */
    private void cheapAndExpensive() {
        route(new TestRoute("cheap", List.of("b1"), 0.02, 0), UPLINK);
        route(new TestRoute("expensive", List.of("c1", "b1"), 0.09, 0.50), UPLINK);
    }

    @Test
    void expensiveRouteCarriesNothingWhileTheCheapOneHasRoom() {
        cheapAndExpensive();

        SimIngress in = ingress(RouteSchedulerSettings.defaults());
        in.offer(0.7 * UPLINK, 0, SimLoop.seconds(60));

        shares(5, 60);
        SchedulerSnapshot snapshot = in.scheduler().snapshot(loop.nanoTime());
        assertThat(snapshot.route("expensive").orElseThrow().bytesSent()).as("bytes ever sent on the expensive route")
                .isZero();
    }

    @Test
    void expensiveRouteCarriesOnlyWhatTheCheapOneCannot() {
        cheapAndExpensive();
        SimIngress in = ingress(RouteSchedulerSettings.defaults());
        in.offer(1.5 * UPLINK, 0, SimLoop.seconds(60));

        double[] shares = shares(10, 60);
        double cheapRate = shares[0] * 1.5 * UPLINK;
        System.out.printf("  cheap route at %.1f%% of capacity%n", 100 * cheapRate / UPLINK);
        assertThat(cheapRate).as("cheap route saturated first").isGreaterThanOrEqualTo(0.95 * UPLINK);
        assertThat(shares[1]).as("expensive route carries the excess, a third").isCloseTo(1.0 / 3, within(0.05));
    }

    @Test
    void spendCapIsNeverExceeded() {
        cheapAndExpensive();
        // uncapped, 60 s at 1.5x the cheap uplink cost about 0.0147 (egress) + relay leases
        double cap = 0.010;
        RouteSchedulerSettings settings = RouteSchedulerSettings.builder().spendCap(SpendCap.total(cap)).build();
        SimIngress ingress = ingress(settings);
        double[] maxSeen = {0};
        ingress.afterEachChoice(i -> {
            double spent = i.scheduler().snapshot(i.loop().nanoTime()).spentTotal();
            assertThat(spent).isLessThanOrEqualTo(cap);
            maxSeen[0] = Math.max(maxSeen[0], spent);
        });
        ingress.offer(1.5 * UPLINK, 0, SimLoop.seconds(60));
        loop.runUntil(SimLoop.seconds(60));
        SchedulerSnapshot snapshot = ingress.scheduler().snapshot(loop.nanoTime());
        System.out.printf("  spent %.5f of cap %.5f; cheap %.5f, expensive %.5f%n", snapshot.spentTotal(), cap,
                snapshot.route("cheap").orElseThrow().moneySpent(),
                snapshot.route("expensive").orElseThrow().moneySpent());
        assertThat(snapshot.spentTotal()).isLessThanOrEqualTo(cap).isGreaterThan(0.95 * cap);
    }

    @Test
    void noisyRoutesDoNotFlap() {
        for (String name : List.of("direct", "via-a2", "via-a3")) {
            route(TestRoute.free(name, "b1"), UPLINK, SimLoop.millis(10), 0.2);
        }
        SimIngress in = ingress(RouteSchedulerSettings.defaults());
        in.saturate(WINDOW);
        for (int window = 0; window < 10; window++) {
            double[] shares = shares(10 + 5 * window, 15 + 5 * window);
            for (double share : shares) {
                assertThat(share).isCloseTo(1.0 / 3, within(0.1 / 3));
            }
        }
        SchedulerSnapshot snapshot = in.scheduler().snapshot(loop.nanoTime());
        assertThat(snapshot.routes()).allSatisfy(r -> assertThat(r.stateTransitions()).as(r.name()).isZero());
    }

    /**
     * A silent cut (a black hole: no connection-lost signal) at 20 s is detected by the stall
     * timeout; the route is probed with a backoff capped at 2 s here, and used again once restored.
     */
    @Test
    void silentlyCutRouteLosesItsShareWithinSecondsAndIsUsedAgainAfterRestore() {
        SimRoute direct = route(TestRoute.free("direct", "b1"), UPLINK);
        route(TestRoute.free("via-a2", "a2", "b1"), UPLINK);
        route(TestRoute.free("via-a3", "a3", "b1"), UPLINK);
        SimIngress ingress = ingress(RouteSchedulerSettings.builder().maxProbeBackoff(Duration.ofSeconds(2)).build());
        ingress.saturate(WINDOW);
        loop.at(SimLoop.seconds(20), direct::cut);
        loop.at(SimLoop.seconds(40), direct::restore);

        shares(10, 20);
        double[] afterCut = shares(23, 40);
        double[] afterRestore = shares(45, 60);
        RouteStats stats = ingress.scheduler().snapshot(loop.nanoTime()).route("direct").orElseThrow();
        System.out.printf("  direct after restore: %s%n", stats);
        assertThat(afterCut[0]).as("cut route's share from 3 s after the cut").isZero();
        assertThat(afterCut[1] + afterCut[2]).isEqualTo(1.0);
        assertThat(afterRestore[0]).as("restored route used again").isCloseTo(1.0 / 3, within(0.05 / 3));
        assertThat(stats.state()).isEqualTo(RouteState.UP);
    }

    /** The relay's connection of a route is lost at 20 s and re-established at 40 s. */
    @Test
    void lostConnectionMovesTrafficAtOnceAndRecoveryBringsItBack() {
        SimRoute direct = route(TestRoute.free("direct", "b1"), UPLINK);
        route(TestRoute.free("via-a2", "a2", "b1"), UPLINK);
        route(TestRoute.free("via-a3", "a3", "b1"), UPLINK);
        SimIngress ingress = ingress(RouteSchedulerSettings.defaults());
        RouteScheduler<TestRoute> scheduler = ingress.scheduler();
        ingress.saturate(WINDOW);
        loop.at(SimLoop.seconds(20), () -> {
            direct.cut();
            scheduler.onFailure(direct.spec(), loop.nanoTime());
        });
        loop.at(SimLoop.seconds(40), () -> {
            direct.restore();
            scheduler.onRecovered(direct.spec(), loop.nanoTime());
        });

        double[] afterCut = shares(21, 40);
        double[] afterRestore = shares(42, 60);
        assertThat(afterCut[0]).as("lost route's share from 1 s after the loss").isZero();
        assertThat(afterRestore[0]).as("recovered route's share from 2 s after recovery")
                .isCloseTo(1.0 / 3, within(0.05 / 3));
    }
}
