package io.jetstream.kafka.testkit.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RouteSpendSamplerTest {

    private static final String METRICS = """
            jetstream_relay_route_spent_total{destination="B",route="via-a2"} 0.5
            jetstream_relay_route_bytes_out_total{destination="B",route="via-a2"} 1000.0
            """;

    @Test
    void keepsEachRoutesSmallestRoundTripNotTheLastReading() {
        // via-a2's heartbeats queue behind its data later in the run: 60 ms, then 125 ms
        Iterator<Double> readings = List.of(0.09, 0.06, 0.125).iterator();
        double[] last = {0.125};
        RouteSpendSampler sampler = new RouteSpendSampler(() -> METRICS,
                () -> Map.of("via-a2", readings.hasNext() ? readings.next() : last[0], "via-a3", 0.1),
                Duration.ofMillis(5));
        await().atMost(Duration.ofSeconds(10)).until(() -> sampler.samples().size() >= 4);
        sampler.close();

        assertThat(sampler.minRoundTrips()).containsEntry("via-a2", 0.06).containsEntry("via-a3", 0.1);
        assertThat(sampler.samples().get(0).spent()).containsEntry("via-a2", 0.5);
    }
}
