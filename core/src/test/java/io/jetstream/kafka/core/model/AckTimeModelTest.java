package io.jetstream.kafka.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The ack-time fit {@code ack - sent = R + c + bytes / C}, its fallbacks, and the far-end queue signal. */
class AckTimeModelTest {

    private static final long MS = 1_000_000L;
    private static final double RTT = 50 * MS;
    private static final double CAPACITY = 1.5e6;
    private final EstimatorSettings settings = EstimatorSettings.defaults();

    @Test
    void aFixedDelayAndTheThroughputAreToldApartWhenSizesVary() {
        AckTimeModel model = new AckTimeModel(settings);
        for (int i = 0; i < 400; i++) {
            long now = i * 10 * MS;
            long wire = i % 2 == 0 ? 10_000 : 40_000;
            long ack = now + (long) (RTT + 200 * MS + wire / CAPACITY * 1e9);
            model.onAcked(wire, now, ack, RTT);
        }
        long now = 4_000 * MS;
        assertThat(model.identified()).isTrue();
        assertThat(1e9 / model.nanosPerByte()).as("C from the slope").isCloseTo(CAPACITY, within(CAPACITY * 0.01));
        assertThat(model.fixedDelayNanos(CAPACITY, now)).as("c from the intercept").isCloseTo(200e6, within(1e6));
    }

    @Test
    void oneBatchSizeGivesNoThroughputButAFixedDelayThatDoesNotPenaliseSmallBatches() {
        AckTimeModel model = new AckTimeModel(settings);
        Random random = new Random(7);
        long wire = 20_000;
        for (int i = 0; i < 400; i++) {
            long now = i * 10 * MS;
            // the destination commits every 100 ms: a wait uniform in [0, 100 ms) besides transmission
            long ack = now + (long) (RTT + wire / CAPACITY * 1e9 + random.nextDouble() * 100 * MS);
            model.onAcked(wire, now, ack, RTT);
        }
        long now = 4_000 * MS;
        assertThat(model.identified()).as("one size: the slope is not identifiable").isFalse();
        assertThat(model.nanosPerByte()).as("no throughput from bytes / (ack - sent - R)").isNaN();
        double c = model.fixedDelayNanos(CAPACITY, now);
        assertThat(c).as("mean commit wait").isCloseTo(50e6, within(8e6));
        assertThat(model.maxDelayNanos(now)).as("window covers the longest wait")
                .isGreaterThan(95e6 + wire / CAPACITY * 1e9);
    }

    @Test
    void aCommitWaitDrownsTheSlopeOfSmallBatchesSoItIsNotTrusted() {
        AckTimeModel model = new AckTimeModel(settings);
        Random random = new Random(11);
        for (int i = 0; i < 300; i++) {
            long now = i * 10 * MS;
            long wire = 1_000 + random.nextInt(1_000);
            long ack = now + (long) (RTT + wire / CAPACITY * 1e9 + random.nextDouble() * 100 * MS);
            model.onAcked(wire, now, ack, RTT);
        }
        assertThat(model.identified()).as("slope error far above 25%").isFalse();
    }

    @Test
    void aRiseOfTheSmallestDelayIsAQueueAtTheFarEnd() {
        AckTimeModel model = new AckTimeModel(settings);
        long now = 0;
        for (int i = 0; i < 300; i++, now += 10 * MS) {
            model.onAcked(5_000, now, now + (long) RTT + (i % 10) * 10 * MS, RTT); // commit waits 0..90 ms
        }
        assertThat(model.farEndQueueNanos(now)).isZero();
        for (int i = 0; i < 200; i++, now += 10 * MS) {
            model.onAcked(5_000, now, now + (long) RTT + 30 * MS + (i % 10) * 10 * MS, RTT);
        }
        assertThat(model.farEndQueueNanos(now)).as("a rise within half the spread is jitter").isZero();
        for (int i = 0; i < 200; i++, now += 10 * MS) {
            model.onAcked(5_000, now, now + (long) RTT + 150 * MS + (i % 10) * 10 * MS, RTT); // 150 ms more for all
        }
        assertThat(model.farEndQueueNanos(now)).as("beyond half the spread of delays").isCloseTo(150e6, within(1e6));
        double k = model.farEndBatchNanos(CAPACITY, now);
        assertThat(k).as("service per batch while queued, less transmission: 10 ms - 3.3 ms")
                .isCloseTo(10e6 - 5_000 / CAPACITY * 1e9, within(1e6));
    }

    @Test
    void linearFitReportsTheSlopeError() {
        LinearFit exact = new LinearFit(Duration.ofSeconds(5), 4.0, 3);
        for (int i = 0; i < 50; i++) {
            exact.add(1_000 + 100 * (i % 10), 5_000 + 2.0 * (1_000 + 100 * (i % 10)), i * MS);
        }
        assertThat(exact.slopeIdentified()).isTrue();
        assertThat(exact.slopeStandardError()).isCloseTo(0, within(1e-6));
        assertThat(exact.relativeSpreadOfX()).isGreaterThan(0.1);
        LinearFit same = new LinearFit(Duration.ofSeconds(5), 4.0, 3);
        for (int i = 0; i < 50; i++) {
            same.add(1_000, 7_000, i * MS);
        }
        assertThat(same.slopeIdentified()).isFalse();
        assertThat(same.slopeStandardError()).isNaN();
    }
}
