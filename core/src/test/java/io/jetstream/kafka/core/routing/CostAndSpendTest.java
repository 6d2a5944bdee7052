package io.jetstream.kafka.core.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Egress per boundary, relay hours, and a cap that is never exceeded. */
class CostAndSpendTest {

    private static final long MINUTE = 60_000_000_000L;

    @Test
    void egressIsChargedAtEverySiteBoundaryCrossed() {
        Map<String, Double> egress = Map.of("A", 0.02, "C", 0.05);
        assertThat(CostModel.pathPricePerGb(List.of("A", "B"), egress)).as("direct").isEqualTo(0.02);
        assertThat(CostModel.pathPricePerGb(List.of("A", "A", "B"), egress)).as("via a relay in A")
                .isEqualTo(0.02);
        assertThat(CostModel.pathPricePerGb(List.of("A", "C", "B"), egress)).as("via site C")
                .isCloseTo(0.07, within(1e-12));
        assertThat(CostModel.pathPricePerGb(List.of("B", "B"), egress)).as("inside a site").isZero();
    }

    @Test
    void spendAddsEgressAndRelayHours() {
        TestRoute route = new TestRoute("via-c1", List.of("c1", "b1"), 0.07, 0.50);
        assertThat(CostModel.egressCost(route, 2_000_000_000L)).isCloseTo(0.14, within(1e-12));
        assertThat(CostModel.relayCost(route, Duration.ofMinutes(30))).isCloseTo(0.25, within(1e-12));
        assertThat(CostModel.spendPerHour(route, 1e6)).as("1 MB/s for an hour = 3.6 GB")
                .isCloseTo(3.6 * 0.07 + 0.50, within(1e-12));
        assertThat(CostModel.effectivePricePerGb(route, 1e6)).isCloseTo(0.07 + 0.50 / 3.6, within(1e-12));
        assertThat(CostModel.effectivePricePerGb(TestRoute.free("x"), 1e6)).isZero();
    }

    @Test
    void ledgerRefusesWhatWouldExceedTheTotalCap() {
        SpendLedger ledger = new SpendLedger(SpendCap.total(1.0), Duration.ofHours(1), 60);
        assertThat(ledger.tryCharge(0.6, 0)).isTrue();
        assertThat(ledger.canAfford(0.5, 0)).isFalse();
        assertThat(ledger.tryCharge(0.5, 0)).isFalse();
        assertThat(ledger.tryCharge(0.4, 0)).isTrue();
        assertThat(ledger.total()).isCloseTo(1.0, within(1e-12));
        assertThat(ledger.tryCharge(1e-9, 120 * MINUTE)).as("a total cap never renews").isFalse();
    }

    @Test
    void windowCapCoversTheTrailingWindowConservatively() {
        SpendLedger ledger = new SpendLedger(SpendCap.perWindow(1.0), Duration.ofHours(1), 60);
        assertThat(ledger.tryCharge(0.9, 0)).isTrue();
        assertThat(ledger.tryCharge(0.2, 59 * MINUTE)).as("still within the hour").isFalse();
        assertThat(ledger.inWindow(60 * MINUTE + 1)).as("a slot more is counted: never an under-count")
                .isCloseTo(0.9, within(1e-12));
        assertThat(ledger.tryCharge(0.2, 62 * MINUTE)).as("the hour has passed").isTrue();
        assertThat(ledger.total()).isCloseTo(1.1, within(1e-12));
    }

    @Test
    void routeSpecRejectsNonsense() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new TestRoute(" ", List.of(), 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new TestRoute("r", List.of(), -1, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pricePerGb");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new SpendCap(-1, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
