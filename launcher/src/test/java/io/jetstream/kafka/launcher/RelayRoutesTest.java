package io.jetstream.kafka.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.metrics.RouteMetrics;
import org.junit.jupiter.api.Test;

class RelayRoutesTest {

    /** A relay's real exposition: the series its adaptive scheduler and data path write. */
    private static String scrape() {
        RelayMetrics metrics = new RelayMetrics("a1");
        metrics.decision(RelayMetrics.ROUTE_WEIGHT, "B", "direct").set(0.75);
        metrics.decision(RelayMetrics.ROUTE_TRAFFIC_SHARE, "B", "direct").set(0.7);
        metrics.decision(RelayMetrics.ROUTE_STATE, "B", "direct").set(0);
        metrics.decision(RelayMetrics.ROUTE_CAPACITY, "B", "direct").set(4_700_000);
        metrics.decision(RelayMetrics.ROUTE_RTT, "B", "direct").set(0.05);
        metrics.decision(RelayMetrics.ROUTE_WEIGHT, "B", "via \"a2\"").set(0.25);
        metrics.decision(RelayMetrics.ROUTE_STATE, "B", "via \"a2\"").set(2);
        RouteMetrics direct = metrics.route("B", "direct");
        direct.bytesOut().inc(2_000_000_000d);
        direct.ackLatencySeconds().observe(0.06);
        direct.ackLatencySeconds().observe(0.08);
        metrics.spent("B", "direct", 0.18);
        metrics.spendCapReached("B", true);
        return metrics.scrape();
    }

    @Test
    void readsEachRoutesWeightShareStateSpendAndMeasuredAckLatency() {
        RelayRoutes routes = RelayRoutes.parse(scrape());

        assertThat(routes.routes()).extracting(RelayRoutes.Route::route).containsExactly("direct", "via \"a2\"");
        RelayRoutes.Route direct = routes.routes().get(0);
        assertThat(direct.destination()).isEqualTo("B");
        assertThat(direct.weight()).isEqualTo(0.75);
        assertThat(direct.trafficShare()).isEqualTo(0.7);
        assertThat(direct.stateName()).isEqualTo("up");
        assertThat(direct.capacityBytesPerSecond()).isEqualTo(4_700_000);
        assertThat(direct.rttSeconds()).isEqualTo(0.05);
        assertThat(direct.ackLatencySeconds()).isCloseTo(0.07, within(1e-9));
        assertThat(direct.bytesOut()).isEqualTo(2e9);
        assertThat(direct.costPerGb()).isCloseTo(0.09, within(1e-9));
        assertThat(routes.routes().get(1).stateName()).isEqualTo("down");
        assertThat(routes.spendCapReached()).containsEntry("B", true);
    }

    @Test
    void aRelayWithoutRoutesOrWithGarbageLinesGivesNoRoutes() {
        RelayRoutes routes = RelayRoutes.parse(new RelayMetrics("b1").scrape() + "\nnot a sample\n{}\nx{y=\"z\" 1\n");

        assertThat(routes.routes()).isEmpty();
        assertThat(routes.spendCapReached()).isEmpty();
    }

    @Test
    void aRouteWithNothingSentHasNoCostPerGb() {
        RelayMetrics metrics = new RelayMetrics("a1");
        metrics.spent("B", "direct", 0);
        metrics.route("B", "direct");

        assertThat(RelayRoutes.parse(metrics.scrape()).routes().get(0).costPerGb()).isNaN();
    }
}
