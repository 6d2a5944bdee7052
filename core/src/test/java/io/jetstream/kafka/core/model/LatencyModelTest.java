package io.jetstream.kafka.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The reconstructed latency model, term by term. */
class LatencyModelTest {

    // 1,000 records/s of 1 KiB compressing to half, e(b) = 100 us + 2 ns/B, 4.7 MB/s, 50 ms RTT
    private final ModelInputs inputs = new ModelInputs(1_000, 1_000, 1_024, 0.5, 100_000, 2, 4.7e6, 50e6, 50e6, 0);
    private final LatencyModel model = new LatencyModel(64, 0.5, 1, 0.2, 0.25, 16L << 20, 256);

    @Test
    void eachTermFollowsItsFormula() {
        LatencyPrediction p = model.predict(inputs, 10);
        double wire = 64 + 0.5 * 1_024 * 10;
        assertThat(p.wireBytes()).isCloseTo(wire, within(1e-9));
        assertThat(p.batchingNanos()).as("(b - 1) / 2r").isCloseTo(9 / 2_000.0 * 1e9, within(1.0));
        assertThat(p.encodeNanos()).as("e0 + e1 s b").isCloseTo(100_000 + 2 * 10_240, within(1e-6));
        assertThat(p.decodeNanos()).isCloseTo(0.5 * p.encodeNanos(), within(1e-6));
        assertThat(p.propagationNanos()).isCloseTo(25e6, within(1.0));
        assertThat(p.transmissionNanos()).isCloseTo(wire / 4.7e6 * 1e9, within(1.0));
        assertThat(p.linkUtilisation()).isCloseTo(1_000 * wire / 10 / 4.7e6, within(1e-9));
        assertThat(p.keepsUp()).isTrue();
        assertThat(p.totalNanos()).isCloseTo(p.propagationNanos() + p.controllableNanos(), within(1e-6));
    }

    @Test
    void recordsSpreadOverPartitionsFillEachPartitionsBatchAtItsShareOfTheRate() {
        ModelInputs threePartitions = new ModelInputs(1_000, 1_000, 1_024, 0.5, 100_000, 2, 4.7e6, 50e6, 50e6, 0,
                0, 0, Double.NaN, 0, 3);
        LatencyPrediction one = model.predict(inputs, 10);
        LatencyPrediction three = model.predict(threePartitions, 10);
        assertThat(three.batchingNanos()).as("(b - 1) P / 2r").isCloseTo(9 * 3 / 2_000.0 * 1e9, within(1.0));
        assertThat(three.linkUtilisation()).as("the link sees the whole rate either way")
                .isCloseTo(one.linkUtilisation(), within(1e-12));
        assertThat(threePartitions.withEffectiveRate(2_000).streams()).isEqualTo(3);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ModelInputs(1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0,
                Double.NaN, 0, 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("streams");
    }

    @Test
    void batchingWaitGrowsAndOverheadShrinksWithTheBatch() {
        LatencyPrediction one = model.predict(inputs, 1);
        LatencyPrediction hundred = model.predict(inputs, 100);
        assertThat(one.batchingNanos()).isZero();
        assertThat(hundred.batchingNanos()).isGreaterThan(one.batchingNanos());
        assertThat(hundred.linkUtilisation()).isLessThan(one.linkUtilisation());
        assertThat(hundred.capacityRecordsPerSecond()).isGreaterThan(one.capacityRecordsPerSecond());
    }

    @Test
    void aRateBeyondCapacityWithHeadroomDoesNotKeepUp() {
        ModelInputs busy = new ModelInputs(8_000, 8_000, 1_024, 0.5, 100_000, 2, 4.7e6, 50e6, 50e6, 0);
        LatencyPrediction p = model.predict(busy, 100); // 8,000 x ~513 B = 4.1 MB/s: 87% of the link
        assertThat(p.linkUtilisation()).isBetween(0.8, 1.0);
        assertThat(p.keepsUp()).isFalse();
        assertThat(LatencyModel.stable(p)).isTrue();
    }

    @Test
    void windowFillsThePipeWithinTheMemoryBudget() {
        LatencyPrediction p = model.predict(inputs, 10);
        double slot = 50e6 + p.transmissionNanos();
        assertThat(p.window() * p.wireBytes() / slot * 1e9).as("window carries the link")
                .isGreaterThanOrEqualTo(4.7e6);
        LatencyModel tight = new LatencyModel(64, 0.5, 1, 0.2, 0.25, 64 << 10, 256);
        LatencyPrediction limited = tight.predict(inputs, 10);
        assertThat(limited.window() * limited.wireBytes()).isLessThanOrEqualTo(64 << 10);
        LatencyPrediction tooBig = tight.predict(inputs, 1_000); // 512 KB > 64 KiB budget
        assertThat(tooBig.keepsUp()).isFalse();
        assertThat(tooBig.capacityRecordsPerSecond()).isZero();
    }
}
