package io.jetstream.kafka.core.environment;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BindingTest {

    private static final CpuLoad IDLE_CPU = new CpuLoad(0.3, 2, 0.4);

    /** An operating point, by default 1 MB/s on a path that delivered 4.9 MB/s, nothing waiting. */
    private static final class Point {
        double baseRttNanos = 50e6;
        double arrivalRecordsPerSecond = 2_000;
        double meanRecordBytes = 1024;
        double sent = 1e6;
        double peak = 4.9e6;
        double throughput = Double.NaN;
        double recordsPerBatch = 50;
        int activePartitions = 6;
        int inFlightBatches = 2;
        long inFlightBytes = 100_000;
        int windowBatches = 1024;
        long windowBytes = 64L << 20;
        double fullness = 0.01;
        long backlogBytes = 10_000;

        OperatingPoint build() {
            return new OperatingPoint(baseRttNanos, arrivalRecordsPerSecond, meanRecordBytes, sent, sent, peak,
                    throughput, recordsPerBatch, activePartitions, inFlightBatches, inFlightBytes, windowBatches,
                    windowBytes, fullness, backlogBytes / 1024, backlogBytes, 20_000_000L, 1 << 20);
        }

        Point waiting() {
            backlogBytes = 5L << 20;
            return this;
        }
    }

    @Test
    void belowWhatThePathCarriesNothingBindsAndLatencyIsTheLingerPlusTheRoundTrip() {
        Binding binding = Binding.of(new Point().build(), false, IDLE_CPU);

        assertThat(binding.constraint()).isEqualTo(BindingConstraint.NONE);
        assertThat(binding.evidence()).isEqualTo("sending 1.0 MB/s, path peak 4.9 MB/s; latency is the linger (20 ms)"
                + " plus the round trip (50 ms)");
    }

    @Test
    void aBusyJvmOrMachineBindsBeforeAnythingElse() {
        Point linkFull = new Point().waiting();
        linkFull.sent = 4.8e6;
        Binding jvm = Binding.of(linkFull.build(), false, new CpuLoad(1.9, 2, 0.5));
        assertThat(jvm.constraint()).isEqualTo(BindingConstraint.CPU);
        assertThat(jvm.evidence()).isEqualTo("worker JVM busy 1.90 of 2 cores (95%), machine 50%");

        Binding machine = Binding.of(new Point().build(), false, new CpuLoad(0.2, 2, 0.95));
        assertThat(machine.constraint()).isEqualTo(BindingConstraint.CPU);
        assertThat(Binding.of(new Point().build(), false, CpuLoad.UNKNOWN).constraint())
                .as("an unknown CPU binds nothing").isEqualTo(BindingConstraint.NONE);
    }

    @Test
    void theLinkBindsWhenTheTaskSendsAllThePathCarriedWhileRecordsWait() {
        Point full = new Point().waiting();
        full.sent = 4.8e6;

        Binding binding = Binding.of(full.build(), false, IDLE_CPU);

        assertThat(binding.constraint()).isEqualTo(BindingConstraint.LINK);
        assertThat(binding.evidence()).isEqualTo("sending 4.8 MB/s, 98% of the 4.9 MB/s the path carries (the most it"
                + " delivered), 5 MiB waiting");

        Point paused = new Point();
        paused.sent = 4.8e6;
        assertThat(Binding.of(paused.build(), true, IDLE_CPU).evidence()).as("paused for backpressure")
                .endsWith("partitions paused for backpressure");
        assertThat(Binding.of(paused.build(), false, IDLE_CPU).constraint())
                .as("at its peak with nothing waiting: the load, not the link").isEqualTo(BindingConstraint.NONE);
    }

    @Test
    void aFullWindowBelowThePathsPeakIsTheRoundTrip() {
        Point window = new Point().waiting();
        window.baseRttNanos = 150e6;
        window.sent = 3.1e6;
        window.fullness = 0.95;
        window.inFlightBatches = 31;
        window.windowBatches = 32;

        Binding binding = Binding.of(window.build(), false, IDLE_CPU);

        assertThat(binding.constraint()).isEqualTo(BindingConstraint.ROUND_TRIP);
        assertThat(binding.evidence()).isEqualTo("window 95% full (31/32 batches) at 3.1 MB/s, path peak 4.9 MB/s,"
                + " RTT 150 ms");

        window.inFlightBytes = 60L << 20;
        window.windowBytes = 64L << 20;
        window.inFlightBatches = 3;
        assertThat(Binding.of(window.build(), false, IDLE_CPU).evidence()).contains("(60 MiB of 64 MiB)");
    }

    @Test
    void aFullWindowThatCapsThePeakIsStillTheRoundTripUnlessTheLinkQueued() {
        Point window = new Point().waiting();
        window.fullness = 0.97;
        window.sent = 4.9e6; // the window caps the rate, so the most ever delivered is this rate
        assertThat(Binding.of(window.build(), false, IDLE_CPU).constraint()).isEqualTo(BindingConstraint.ROUND_TRIP);

        window.throughput = 5.0e6; // batches queued at the bottleneck, which carries 5 MB/s
        Binding binding = Binding.of(window.build(), false, IDLE_CPU);
        assertThat(binding.constraint()).isEqualTo(BindingConstraint.LINK);
        assertThat(binding.evidence()).contains("98% of the 5.0 MB/s the path carries (measured at its bottleneck)");
    }

    @Test
    void manyPartitionsWithTinyBatchesArePerBatchCosts() {
        Point many = new Point();
        many.activePartitions = 1_200;
        many.recordsPerBatch = 1.6;

        Binding binding = Binding.of(many.build(), false, IDLE_CPU);

        assertThat(binding.constraint()).isEqualTo(BindingConstraint.PARTITIONS);
        assertThat(binding.evidence()).isEqualTo("1,200 partitions active at 1.6 records per batch: each batch's fixed"
                + " costs dominate");

        many.waiting().fullness = 0.99;
        many.inFlightBatches = 1_024;
        assertThat(Binding.of(many.build(), false, IDLE_CPU).evidence()).as("their count fills the window")
                .endsWith("; their batches fill the window");
        many.inFlightBatches = 10;
        many.inFlightBytes = 63L << 20;
        assertThat(Binding.of(many.build(), false, IDLE_CPU).constraint()).as("bytes fill it: the round trip")
                .isEqualTo(BindingConstraint.ROUND_TRIP);
        many.recordsPerBatch = 40;
        many.fullness = 0.1;
        assertThat(Binding.of(many.build(), false, IDLE_CPU).constraint()).as("batches of 40 records")
                .isEqualTo(BindingConstraint.NONE);
    }

    @Test
    void recordsWaitWhenTheBacklogHoldsMoreThanTwiceWhatTheOpenBatchesHold() {
        // 2,000 records/s of 1 KiB, 20 ms linger: the open batches hold about 40 KiB
        Point point = new Point();
        point.backlogBytes = 80_000;
        assertThat(Binding.recordsWait(point.build(), false)).isFalse();
        point.backlogBytes = 90_000;
        assertThat(Binding.recordsWait(point.build(), false)).isTrue();
        point.backlogBytes = 0;
        assertThat(Binding.recordsWait(point.build(), true)).as("paused").isTrue();
    }

    @Test
    void theGaugeCodesAndNamesAreTheDocumentedOnes() {
        assertThat(BindingConstraint.values()).extracting(BindingConstraint::label)
                .containsExactly("none", "link", "cpu", "round-trip", "partitions");
        assertThat(BindingConstraint.ROUND_TRIP.code()).isEqualTo(3);
    }
}
