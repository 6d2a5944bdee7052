package io.jetstream.kafka.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** Which event feeds which estimate, and the throughput estimate of a link under its regimes. */
class MonitorsTest {

    private static final long MS = 1_000_000L;
    private final EstimatorSettings settings = EstimatorSettings.defaults();

    @Test
    void streamMonitorMeasuresRateSizeAndBacklog() {
        StreamMonitor stream = new StreamMonitor(settings);
        for (long t = 0; t < 5_000 * MS; t += MS) {
            stream.onRecordsArrived(2, 2_048, t);
        }
        stream.onBacklog(300, 307_200);
        StreamEstimates e = stream.estimates(5_000 * MS);
        assertThat(e.recordsPerSecond()).isCloseTo(2_000, within(40.0));
        assertThat(e.meanRecordBytes()).isCloseTo(1_024, within(1e-6));
        assertThat(e.backlogRecords()).isEqualTo(300);
        assertThat(e.backlogBytes()).isEqualTo(307_200);
    }

    @Test
    void streamMonitorSeesAStepUpWithinAFewArrivalsButIgnoresNoise() {
        StreamMonitor stream = new StreamMonitor(settings);
        Random random = new Random(9);
        long t = 0;
        for (; t < 5_000 * MS; t += MS) {
            stream.onRecordsArrived(poisson(random, 6), 1_536, t); // about 6,000/s
        }
        assertThat(stream.estimates(t).recordsPerSecond()).as("noise does not bias the rate up")
                .isCloseTo(6_000, within(400.0));
        for (long end = t + 20 * MS; t < end; t += MS) {
            stream.onRecordsArrived(60, 15_360, t); // steps to 60,000/s
        }
        assertThat(stream.estimates(t).recordsPerSecond()).as("20 ms after a 10x step")
                .isGreaterThan(40_000);
    }

    private static int poisson(Random random, double mean) {
        double limit = Math.exp(-mean);
        double product = random.nextDouble();
        int n = 0;
        while (product > limit) {
            product *= random.nextDouble();
            n++;
        }
        return n;
    }

    @Test
    void busyLinkIsMeasuredFromTheGapsBetweenAcks() {
        LinkMonitor link = new LinkMonitor(settings);
        double capacity = 4.7e6;
        long rtt = 50 * MS;
        long wire = 47_000; // 10 ms at capacity
        long free = 0;
        for (int i = 0; i < 200; i++) {
            long sent = i * 5 * MS; // offered at twice the capacity: a queue builds
            link.onSent(wire, sent);
            free = Math.max(free, sent) + (long) (wire / capacity * 1e9);
            link.onAcked(wire, sent, free + rtt);
        }
        LinkEstimates e = link.estimates(free + rtt);
        assertThat(e.throughputKnown()).isTrue();
        assertThat(e.bytesPerSecond()).isCloseTo(capacity, within(capacity * 0.01));
        assertThat(e.inFlightBytes()).isZero();
        assertThat(e.bytesAcked()).isEqualTo(200 * wire);
    }

    @Test
    void acksReleasedTogetherByACommitAreNoMeasureOfCapacity() {
        LinkMonitor link = new LinkMonitor(settings);
        long rtt = 50 * MS;
        for (int i = 0; i < 2_000; i++) {
            long sent = i * MS; // 1,000 batches/s of 1 KB, far below the path's capacity
            link.onSent(1_000, sent);
            long decoded = sent + rtt / 2 + MS;
            long committed = (decoded / (100 * MS) + 1) * 100 * MS; // acknowledged at the next commit
            link.onAcked(1_000, sent, committed + rtt / 2);
        }
        LinkEstimates e = link.estimates(2_200 * MS);
        assertThat(e.throughputKnown()).as("gaps between commits measure the sender's own rate").isFalse();
        assertThat(e.deliveredBytesPerSecond()).isGreaterThan(0);
    }

    @Test
    void idleLinkHasNoThroughputEstimateButAnRtt() {
        LinkMonitor link = new LinkMonitor(settings);
        for (int i = 0; i < 100; i++) {
            long sent = i * 100 * MS;
            link.onSent(10_000, sent);
            link.onAcked(10_000, sent, sent + 52 * MS);
        }
        LinkEstimates e = link.estimates(10_000 * MS);
        assertThat(e.throughputKnown()).as("the sender's pace is no measure of capacity").isFalse();
        assertThat(e.baseRttNanos()).as("min ack latency, no heartbeats").isEqualTo(52 * MS);
        link.onRttSample(50 * MS, 10_000 * MS);
        assertThat(link.estimates(10_000 * MS).baseRttNanos()).as("heartbeats preferred").isEqualTo(50 * MS);
    }

    @Test
    void jitterOnTheWayBackIsNotTakenForAQueue() {
        LinkMonitor link = new LinkMonitor(settings);
        Random random = new Random(11);
        long lastAck = 0;
        for (int i = 0; i < 2_000; i++) {
            long sent = i * MS; // 1 KB per ms on a 100 MB/s link: never queued
            if (i % 100 == 0) {
                link.onRttSample(50 * MS + (long) (random.nextDouble() * 20 * MS), sent);
            }
            link.onSent(1_000, sent);
            long ack = Math.max(lastAck, sent + 50 * MS + (long) (random.nextDouble() * 20 * MS));
            lastAck = ack;
            link.onAcked(1_000, sent, ack);
        }
        LinkEstimates e = link.estimates(lastAck);
        assertThat(e.throughputKnown() ? e.bytesPerSecond() : Double.POSITIVE_INFINITY)
                .as("no capacity mistaken for the 1 MB/s pace").isGreaterThan(5e6);
    }

    @Test
    void failuresAndLostConnectionsReleaseInFlightBytes() {
        LinkMonitor link = new LinkMonitor(settings);
        link.onSent(1_000, 0);
        link.onSent(2_000, 0);
        link.onSent(3_000, 0);
        link.onFailed(1_000, MS);
        assertThat(link.estimates(MS).inFlightBytes()).isEqualTo(5_000);
        assertThat(link.estimates(MS).consecutiveFailures()).isEqualTo(1);
        link.onConnectionLost(2 * MS);
        LinkEstimates e = link.estimates(2 * MS);
        assertThat(e.inFlightBytes()).isZero();
        assertThat(e.inFlightBatches()).isZero();
        assertThat(e.failures()).isEqualTo(2);
        link.onAcked(500, 0, 3 * MS); // a late ack never drives counters negative
        assertThat(link.estimates(3 * MS).inFlightBytes()).isZero();
        assertThat(link.estimates(3 * MS).consecutiveFailures()).isZero();
    }
}
