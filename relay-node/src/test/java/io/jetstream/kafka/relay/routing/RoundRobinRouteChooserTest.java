package io.jetstream.kafka.relay.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.config.RouteSpec;
import io.jetstream.kafka.relay.testing.TestRelay;
import org.junit.jupiter.api.Test;

class RoundRobinRouteChooserTest {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final RelayConfig config = config();
    private final RoundRobinRouteChooser chooser =
            new RoundRobinRouteChooser(config, nanos::get, Duration.ofSeconds(1));
    private final List<RouteSpec> routes = config.routes(TestRelay.DESTINATION);

    private static RelayConfig config() {
        Map<String, Object> props = TestRelay.config("a1");
        TestRelay.route(props, "r1", List.of("b1:7070"));
        TestRelay.route(props, "r2", List.of("c1:7070", "b1:7070"));
        TestRelay.route(props, "r3", List.of("d1:7070", "b1:7070"));
        return new RelayConfig(props);
    }

    private List<String> choose(int times) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < times; i++) {
            names.add(chooser.choose(TestRelay.DESTINATION, 1_000, r -> true).orElseThrow().name());
        }
        return names;
    }

    @Test
    void rotatesOverEveryUsableRoute() {
        assertThat(choose(6)).containsExactly("r1", "r2", "r3", "r1", "r2", "r3");
        assertThat(chooser.choose(TestRelay.DESTINATION, 1, r -> r.name().equals("r2"))).contains(routes.get(1));
        assertThat(chooser.choose(TestRelay.DESTINATION, 1, r -> false)).isEmpty();
        assertThat(chooser.choose("nowhere", 1, r -> true)).isEmpty();
    }

    @Test
    void avoidsARecentlyFailedRouteWhileOthersAreUsableThenTriesItAgain() {
        chooser.onFailure(routes.get(0));

        assertThat(choose(4)).doesNotContain("r1");

        nanos.addAndGet(Duration.ofMillis(1_001).toNanos());
        assertThat(choose(3)).contains("r1");
    }

    @Test
    void aRecentlyFailedRouteIsStillUsedWhenItIsTheOnlyUsableOne() {
        chooser.onNack(routes.get(0), AckReason.NEXT_HOP_UNREACHABLE);

        assertThat(chooser.choose(TestRelay.DESTINATION, 1, r -> r.name().equals("r1"))).contains(routes.get(0));
    }

    @Test
    void onlyUnreachableAndTimeoutNacksCountAsFailuresAndAnAckClearsThem() {
        chooser.onNack(routes.get(0), AckReason.NO_SUBSCRIBER);
        assertThat(choose(3)).contains("r1");

        chooser.onNack(routes.get(0), AckReason.TIMEOUT);
        assertThat(choose(3)).doesNotContain("r1");

        chooser.onAck(routes.get(0), 1, Duration.ofMillis(5));
        assertThat(choose(3)).contains("r1");
    }
}
