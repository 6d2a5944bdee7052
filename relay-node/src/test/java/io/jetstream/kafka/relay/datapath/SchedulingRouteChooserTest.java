package io.jetstream.kafka.relay.datapath;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.routing.RouteSchedulerSettings;
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
        assertThat(SchedulingRouteChooser.forConfig(config("adaptive"))).isInstanceOf(SchedulingRouteChooser.class);
        assertThat(SchedulingRouteChooser.forConfig(config("round-robin"))).isInstanceOf(RoundRobinRouteChooser.class);
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
            chooser.onAck(route.get(), 100_000, Duration.ofMillis(50));
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
            RouteSpec route = chooser.choose("B", 100_000, r -> true).orElseThrow();
            assertThat(route).isNotEqualTo(failing);
            now.addAndGet(Duration.ofMillis(10).toNanos());
            chooser.onAck(route, 100_000, Duration.ofMillis(50));
        }
        assertThat(chooser.choose("Z", 1, r -> true)).isEmpty();
    }
}
