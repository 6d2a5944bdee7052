package io.jetstream.kafka.relay.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.routing.RouteSchedulerSettings;
import io.jetstream.kafka.core.routing.RouteState;
import io.jetstream.kafka.core.routing.RouteStats;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.config.RouteSpec;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SchedulingRouteChooserTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    private static RelayConfig config(String policy) {
        Map<String, String> props = new HashMap<>();
        props.put("relay.id", "a1");
        props.put("tls.enabled", "false");
        props.put("streams", "demo");
        props.put("streams.demo.token", "demo-token-not-a-secret-0001");
        props.put("destinations", "B");
        props.put("destinations.B.routes", "r1,r2,r3");
        props.put("destinations.B.routes.r1.hops", "127.0.0.1:9001");
        props.put("destinations.B.routes.r2.hops", "127.0.0.1:9002");
        props.put("destinations.B.routes.r3.hops", "127.0.0.1:9003");
        props.put("routing.policy", policy);
        return new RelayConfig(props);
    }

    @Test
    void configChoosesThePolicy() {
        assertThat(SchedulingRouteChooser.forConfig(config("adaptive"), now::get)).isInstanceOf(SchedulingRouteChooser.class);
        assertThat(SchedulingRouteChooser.forConfig(config("round-robin"), now::get)).isInstanceOf(RoundRobinRouteChooser.class);
    }

    @Test
    void equalRoutesShareTheTrafficAndAnUnusableRouteIsSkipped() {
        RelayConfig config = config("adaptive");
        SchedulingRouteChooser chooser = new SchedulingRouteChooser(config, RouteSchedulerSettings.defaults(), now::get);
        Map<String, Integer> counts = new HashMap<>();
        // bursts keep batches in flight, so the earliest expected completion moves between routes
        for (int round = 0; round < 10; round++) {
            List<RouteSpec> burst = new java.util.ArrayList<>();
            for (int i = 0; i < 30; i++) {
                Optional<RouteSpec> route = chooser.choose("B", 100_000, r -> true);
                assertThat(route).isPresent();
                chooser.onSent(route.get(), 100_000);
                counts.merge(route.get().name(), 1, Integer::sum);
                burst.add(route.get());
            }
            now.addAndGet(Duration.ofMillis(200).toNanos());
            burst.forEach(route -> chooser.onAck(route, 100_000, Duration.ofMillis(200)));
        }
        assertThat(counts.keySet()).containsExactlyInAnyOrder("r1", "r2", "r3");
        counts.values().forEach(c -> assertThat(c).isBetween(60, 140));

        List<RouteSpec> all = config.routes("B");
        RouteSpec down = all.get(0);
        for (int i = 0; i < 30; i++) {
            Optional<RouteSpec> route = chooser.choose("B", 100_000, r -> !r.equals(down));
            assertThat(route).isPresent();
            assertThat(route.get()).isNotEqualTo(down);
            chooser.onSent(route.get(), 100_000);
            chooser.onAck(route.get(), 100_000, Duration.ofMillis(50));
        }
    }

    @Test
    void aCarriedBatchLeavesItsRouteAndTheDestinationsLateAnswerIsNotTheRoutes() {
        SchedulingRouteChooser chooser = new SchedulingRouteChooser(config("adaptive"),
                RouteSchedulerSettings.defaults(), now::get);
        RouteSpec route = chooser.choose("B", 100_000, r -> true).orElseThrow();
        chooser.onSent(route, 100_000);
        assertThat(stats(chooser, route).inFlightBatches()).isEqualTo(1);

        now.addAndGet(Duration.ofMillis(30).toNanos());
        chooser.onReceived(route, 100_000, Duration.ofMillis(30));
        assertThat(stats(chooser, route).inFlightBatches()).as("carried to the egress relay").isZero();

        // the destination answers late, with this relay's own timeout: the route had carried it
        now.addAndGet(Duration.ofSeconds(5).toNanos());
        chooser.onSettled(route, 100_000, false);
        RouteStats after = stats(chooser, route);
        assertThat(after.state()).isEqualTo(RouteState.UP);
        assertThat(after.failures()).isZero();
    }

    private RouteStats stats(SchedulingRouteChooser chooser, RouteSpec route) {
        return chooser.scheduler("B").orElseThrow().snapshot(now.get()).route(route.name()).orElseThrow();
    }

    @Test
    void theSchedulersViewIsExportedAsMetrics() {
        RelayConfig config = config("adaptive");
        SchedulingRouteChooser chooser = new SchedulingRouteChooser(config, RouteSchedulerSettings.defaults(), now::get);
        for (int i = 0; i < 6; i++) {
            RouteSpec route = chooser.choose("B", 100_000, r -> true).orElseThrow();
            chooser.onSent(route, 100_000);
        }
        try (io.jetstream.kafka.relay.metrics.RelayMetrics metrics =
                     new io.jetstream.kafka.relay.metrics.RelayMetrics("a1")) {
            metrics.beforeScrape(() -> chooser.exportTo(metrics));
            String scrape = metrics.scrape();
            assertThat(scrape).contains("jetstream_relay_route_inflight_bytes{destination=\"B\",route=\"r1\"} 200000")
                    .contains("jetstream_relay_route_state{destination=\"B\",route=\"r3\"} 0")
                    .contains("jetstream_relay_route_weight{destination=\"B\",route=\"r2\"}");
        }
    }

    @Test
    void failedRouteLosesItsTraffic() {
        RelayConfig config = config("adaptive");
        SchedulingRouteChooser chooser = new SchedulingRouteChooser(config, RouteSchedulerSettings.defaults(), now::get);
        RouteSpec failing = config.routes("B").get(1);
        for (int i = 0; i < 5; i++) {
            chooser.onNack(failing, 100_000, AckReason.NEXT_HOP_UNREACHABLE);
            chooser.onFailure(failing);
        }
        for (int i = 0; i < 30; i++) {
            RouteSpec route = chooser.choose("B", 100_000, r -> !r.equals(failing)).orElseThrow();
            assertThat(route).isNotEqualTo(failing);
            chooser.onSent(route, 100_000);
            now.addAndGet(Duration.ofMillis(10).toNanos());
            chooser.onAck(route, 100_000, Duration.ofMillis(50));
        }
        assertThat(chooser.choose("Z", 1, r -> true)).isEmpty();
    }

    private static long inFlightBytes(SchedulingRouteChooser chooser) {
        return chooser.scheduler("B").orElseThrow().snapshot(0).routes().stream()
                .mapToLong(io.jetstream.kafka.core.routing.RouteStats::inFlightBytes).sum();
    }

    /** Equal routes alternate even with one batch in flight (they used to all go to one route). */
    @Test
    void oneBatchAtATimeAlternatesOverEqualRoutes() {
        SchedulingRouteChooser chooser = new SchedulingRouteChooser(config("adaptive"),
                RouteSchedulerSettings.defaults(), now::get);
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < 30; i++) {
            RouteSpec route = chooser.choose("B", 30_000, r -> true).orElseThrow();
            chooser.onSent(route, 30_000);
            counts.merge(route.name(), 1, Integer::sum);
            now.addAndGet(Duration.ofMillis(70).toNanos());
            chooser.onAck(route, 30_000, Duration.ofMillis(70));
        }
        assertThat(counts).containsOnly(Map.entry("r1", 10), Map.entry("r2", 10), Map.entry("r3", 10));
    }

    /**
     * A choice the ingress did not hand over (first hop still connecting: the frame waits and is
     * routed again) is not left counted in flight: it used to be, for ever, making the route look busy.
     */
    @Test
    void aChoiceNotHandedOverIsReleasedAtTheNextChoice() {
        SchedulingRouteChooser chooser = new SchedulingRouteChooser(config("adaptive"),
                RouteSchedulerSettings.defaults(), now::get);
        for (int i = 0; i < 10; i++) {
            chooser.choose("B", 30_000, r -> true).orElseThrow(); // WAIT: no onSent
        }
        assertThat(inFlightBytes(chooser)).as("only the latest choice").isEqualTo(30_000);
        RouteSpec sent = chooser.choose("B", 30_000, r -> true).orElseThrow();
        chooser.onSent(sent, 30_000);
        chooser.choose("B", 30_000, r -> true).orElseThrow();
        assertThat(inFlightBytes(chooser)).as("the sent batch and the latest choice").isEqualTo(60_000);
        chooser.onAck(sent, 30_000, Duration.ofMillis(70));
        assertThat(inFlightBytes(chooser)).isEqualTo(30_000);
    }

    /** A route reported down comes back once its first hop is usable again (it never did before). */
    @Test
    void aRouteReportedDownRecoversWhenItsFirstHopIsUsableAgain() {
        RelayConfig config = config("adaptive");
        SchedulingRouteChooser chooser = new SchedulingRouteChooser(config, RouteSchedulerSettings.defaults(), now::get);
        RouteSpec flaky = config.routes("B").get(0);
        chooser.onFailure(flaky);
        for (int i = 0; i < 6; i++) {
            RouteSpec route = chooser.choose("B", 30_000, r -> !r.equals(flaky)).orElseThrow();
            assertThat(route).isNotEqualTo(flaky);
            chooser.onSent(route, 30_000);
            chooser.onAck(route, 30_000, Duration.ofMillis(70));
        }
        RouteSpec probe = chooser.choose("B", 30_000, r -> true).orElseThrow();
        assertThat(probe).as("probed as soon as its hop is usable").isEqualTo(flaky);
        chooser.onSent(probe, 30_000);
        chooser.onAck(probe, 30_000, Duration.ofMillis(70));
        assertThat(chooser.scheduler("B").orElseThrow().snapshot(now.get()).route("r1").orElseThrow().state())
                .isEqualTo(io.jetstream.kafka.core.routing.RouteState.UP);
    }

    /** A refusal by the destination (no subscriber yet) is not the route's fault: it stays up. */
    @Test
    void aDestinationRefusalReleasesTheBatchWithoutDegradingTheRoute() {
        RelayConfig config = config("adaptive");
        SchedulingRouteChooser chooser = new SchedulingRouteChooser(config, RouteSchedulerSettings.defaults(), now::get);
        for (int i = 0; i < 5; i++) {
            RouteSpec route = chooser.choose("B", 30_000, r -> true).orElseThrow();
            chooser.onSent(route, 30_000);
            chooser.onNack(route, 30_000, AckReason.NO_SUBSCRIBER);
        }
        assertThat(inFlightBytes(chooser)).isZero();
        assertThat(chooser.scheduler("B").orElseThrow().snapshot(now.get()).routes())
                .allSatisfy(r -> assertThat(r.state()).isEqualTo(io.jetstream.kafka.core.routing.RouteState.UP));
        RouteSpec route = chooser.choose("B", 30_000, r -> true).orElseThrow();
        chooser.onSent(route, 30_000);
        chooser.onNack(route, 30_000, AckReason.TIMEOUT);
        assertThat(chooser.scheduler("B").orElseThrow().snapshot(now.get()).route(route.name()).orElseThrow().state())
                .as("a timeout is").isEqualTo(io.jetstream.kafka.core.routing.RouteState.DEGRADED);
    }

    @Test
    void probingSharesComeFromTheConfiguration() {
        RelayConfig base = config("adaptive");
        Map<String, String> props = new HashMap<>(base.originalsStrings());
        props.put("routing.probe.share", "0.1");
        props.put("routing.costly.probe.share", "0.02");
        RouteSchedulerSettings settings = SchedulingRouteChooser.settings(new RelayConfig(props));
        assertThat(settings.probeShare()).isEqualTo(0.1);
        assertThat(settings.costlyProbeShare()).isEqualTo(0.02);
        assertThat(SchedulingRouteChooser.settings(base).costlyProbeShare()).as("off by default").isZero();
    }
}
