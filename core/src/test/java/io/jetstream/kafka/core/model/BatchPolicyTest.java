package io.jetstream.kafka.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The caps contract, the fixed policy and the adaptive policy's decision rules. */
class BatchPolicyTest {

    private static final long MS = 1_000_000L;

    @Test
    void capsThatGatherRecordsArrivingTogetherHoldTwoBatchesOfAnySizeInFlight() {
        // a window of 100 KB, sized for batches of 100 records; records arriving together may fill 1,000
        BatchDecision d = new BatchDecision(100, 10_000, Duration.ofMillis(5), 8, 100_000, DecisionReason.LATENCY_OPTIMAL,
                Optional.empty(), 1_000, 100_000);
        assertThat(d.admits(1, 80_000, 80_000)).as("a second gathered batch of 80 KB").isTrue();
        assertThat(d.admits(2, 160_000, 80_000)).as("not a third").isFalse();
        assertThat(d.admits(1, 90_000, 20_000)).as("smaller batches keep the byte budget").isFalse();
        assertThat(d.admits(8, 0, 1)).as("nor may they pass the batch window").isFalse();
    }

    @Test
    void aBatchClosesWhenFullOrOldEnoughAndIsAdmittedWithinTheWindow() {
        BatchDecision d = BatchDecision.of(100, 10_000, Duration.ofMillis(5), 4, 1_000_000, DecisionReason.FIXED);
        assertThat(d.closes(99, 9_999, 0, 4 * MS)).isFalse();
        assertThat(d.closes(100, 10, 0, 0)).as("records").isTrue();
        assertThat(d.closes(1, 10_000, 0, 0)).as("bytes").isTrue();
        assertThat(d.closes(1, 10, 0, 5 * MS)).as("linger").isTrue();
        assertThat(d.closes(0, 0, 0, 10 * MS)).as("nothing to close").isFalse();
        assertThat(d.admits(3, 0, 1_000)).isTrue();
        assertThat(d.admits(4, 0, 1_000)).as("window full").isFalse();
        assertThat(d.admits(1, 999_999, 1_000)).as("byte budget").isFalse();
        assertThat(d.admits(0, 0, 5_000_000)).as("a big batch alone never deadlocks").isTrue();
        assertThat(d.admits(1, 600_000, 600_000)).as("fixed caps: the byte budget is a bound").isFalse();
        assertThatThrownBy(() -> BatchDecision.of(0, 1, Duration.ZERO, 1, 1, DecisionReason.FIXED))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void recordsArrivingTogetherMayFillABatchUpToTheirOwnCapsNeverBelowTheCapsInForce() {
        BatchDecision fixed = BatchDecision.of(100, 10_000, Duration.ofMillis(5), 4, 1_000_000, DecisionReason.FIXED);
        assertThat(fixed.maxRecordsFor(5_000)).as("fixed caps are caps").isEqualTo(100);
        assertThat(fixed.maxBytesFor(1 << 20)).isEqualTo(10_000);
        BatchDecision trickle = new BatchDecision(2, 300, Duration.ofMillis(1), 4, 1_000_000,
                DecisionReason.LATENCY_OPTIMAL, java.util.Optional.empty(), 500, 64_000);
        assertThat(trickle.maxRecordsFor(1)).isEqualTo(2);
        assertThat(trickle.maxRecordsFor(40)).isEqualTo(40);
        assertThat(trickle.maxRecordsFor(5_000)).isEqualTo(500);
        assertThat(trickle.maxBytesFor(100)).isEqualTo(300);
        assertThat(trickle.maxBytesFor(10_000)).isEqualTo(10_000);
        assertThat(trickle.maxBytesFor(1L << 40)).isEqualTo(64_000);
        assertThatThrownBy(() -> new BatchDecision(2, 300, Duration.ZERO, 1, 1, DecisionReason.FIXED,
                java.util.Optional.empty(), 1, 300)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be below the caps");
    }

    @Test
    void fixedPolicyIgnoresReports() {
        FixedBatchPolicy fixed = new FixedBatchPolicy(
                BatchDecision.of(500, 1 << 20, Duration.ofMillis(5), 16, 8 << 20, DecisionReason.WARMUP));
        fixed.onRecordsArrived(1_000_000, 1 << 30, 0);
        fixed.onBacklog(1_000_000, 1 << 30, 0);
        assertThat(fixed.decision(0).maxRecords()).isEqualTo(500);
        assertThat(fixed.decision(0).reason()).isEqualTo(DecisionReason.FIXED);
    }

    private static AdaptiveBatchPolicy policy(AdaptiveBatchSettings settings, double recordsPerMs, long untilMs) {
        AdaptiveBatchPolicy policy = new AdaptiveBatchPolicy(settings);
        for (long t = 0; t <= untilMs * MS; t += MS) {
            policy.onRecordsArrived((int) recordsPerMs, (long) recordsPerMs * 1_024, t);
        }
        return policy;
    }

    @Test
    void withRecordsSpreadOverPartitionsTheLingerCoversFillingEachPartitionsBatch() {
        AdaptiveBatchSettings settings = AdaptiveBatchSettings.builder().maxLinger(Duration.ofMillis(500)).build();
        AdaptiveBatchPolicy policy = new AdaptiveBatchPolicy(settings);
        policy.onActiveStreams(3, 0);
        for (long t = 0; t <= 2_000 * MS; t += MS) {
            policy.onRecordsArrived(3, 3 * 1_024, t);
        }
        BatchDecision d = policy.decision(2_000 * MS);
        DecisionExplanation why = d.explanation().orElseThrow();
        assertThat(why.inputs().streams()).isEqualTo(3);
        double fillSeconds = d.maxRecords() / (why.inputs().effectiveRecordsPerSecond() / 3);
        assertThat(d.linger().toNanos() / 1e9).as("1.5 x the time one partition's batch takes to fill")
                .isCloseTo(Math.max(1.5 * fillSeconds, settings.minLinger().toNanos() / 1e9), within(1e-3));
    }

    @Test
    void theLingerOfABatchSizeKeptInForceFollowsThePartitionsRate() {
        // the size in force is kept (a long dwell) while the records move from four partitions to one
        AdaptiveBatchSettings settings = AdaptiveBatchSettings.builder().maxLinger(Duration.ofMillis(500))
                .minDwell(Duration.ofHours(1)).build();
        AdaptiveBatchPolicy policy = new AdaptiveBatchPolicy(settings);
        policy.onActiveStreams(4, 0);
        for (long t = 0; t <= 2_000 * MS; t += MS) {
            policy.onRecordsArrived(2, 2 * 1_024, t);
        }
        BatchDecision spread = policy.decision(2_000 * MS);
        policy.onActiveStreams(1, 2_001 * MS);
        for (long t = 2_001 * MS; t <= 4_000 * MS; t += MS) {
            policy.onRecordsArrived(2, 2 * 1_024, t);
        }
        BatchDecision one = policy.decision(4_000 * MS);

        assertThat(one.maxRecords()).as("size kept").isEqualTo(spread.maxRecords());
        double fillSeconds = one.maxRecords() / one.explanation().orElseThrow().inputs().effectiveRecordsPerSecond();
        double expected = Math.max(1.5 * fillSeconds, settings.minLinger().toNanos() / 1e9);
        assertThat(one.linger().toNanos() / 1e9).as("1.5 x the fill time of the one partition's batch now")
                .isCloseTo(expected, within(expected * 0.25));
        assertThat(one.linger()).isLessThan(spread.linger());
    }

    @Test
    void warmUpUsesTheInitialCapsThenTheModelExplainsItself() {
        AdaptiveBatchSettings settings = AdaptiveBatchSettings.defaults();
        AdaptiveBatchPolicy policy = policy(settings, 5, 100);
        assertThat(policy.decision(100 * MS)).isEqualTo(settings.initial());
        for (long t = 101 * MS; t <= 1_000 * MS; t += MS) {
            policy.onRecordsArrived(5, 5_120, t);
        }
        BatchDecision d = policy.decision(1_000 * MS);
        assertThat(d.reason()).isEqualTo(DecisionReason.LATENCY_OPTIMAL);
        DecisionExplanation why = d.explanation().orElseThrow();
        assertThat(why.inputs().arrivalRecordsPerSecond()).isBetween(4_500.0, 5_500.0);
        assertThat(why.inForce().batchRecords()).isEqualTo(d.maxRecords());
        assertThat(why.candidatesEvaluated()).isGreaterThan(10);
        assertThat(policy.decisionChanges()).isEqualTo(1);
    }

    @Test
    void aCommitDelayIsAFixedLatencyCoveredByTheWindowNotAThroughputLoss() {
        BatchDecision configured = BatchDecision.of(10_000, 1 << 20, Duration.ofMillis(20), 1_024, 64L << 20,
                DecisionReason.FIXED);
        AdaptiveBatchSettings settings = AdaptiveBatchSettings.builder().maxBatchRecords(10_000)
                .maxLinger(Duration.ofMillis(20)).maxInFlightBatches(1_024).maxInFlightBytes(64L << 20)
                .batchOverheadBytes(128).initial(configured).build();
        AdaptiveBatchPolicy policy = new AdaptiveBatchPolicy(settings);
        java.util.Random random = new java.util.Random(3);
        for (long t = 0; t <= 3_000 * MS; t += MS) {
            policy.onRecordsArrived(1, 1_024, t);
            if (t % (2 * MS) == 0) { // batches of 2 records, acknowledged at the next 500 ms commit
                long wire = 128 + 2 * 584;
                policy.onBatchSent(2, 2_048, wire, 160_000, t);
                long committed = ((t + 25 * MS) / (500 * MS) + 1) * 500 * MS;
                policy.onBatchAcked(2, wire, t, committed + 25 * MS, t - MS);
            }
            if (t % (1_000 * MS) == 0) {
                policy.onRttSample(50 * MS + random.nextInt(100_000), t);
            }
        }
        BatchDecision d = policy.decision(3_000 * MS);
        DecisionExplanation why = d.explanation().orElseThrow();
        assertThat(d.reason()).as("the configured FIXED caps were replaced").isNotEqualTo(DecisionReason.FIXED);
        assertThat(why.fixedDelayNanos()).as("c: mean wait for the commit").isBetween(150e6, 350e6);
        assertThat(why.fittedLinkBytesPerSecond()).as("one size: no throughput from the ack times").isNaN();
        assertThat(why.inputs().linkBytesPerSecond()).as("not bytes / (ack - sent - R)").isGreaterThan(10e6);
        assertThat(d.maxRecords()).as("no collapse: the header takes at most 5% of the path")
                .isGreaterThanOrEqualTo(why.minBatchRecords());
        double slotSeconds = (50 + 500) / 1e3;
        assertThat((double) d.maxInFlightBytes())
                .as("the window covers (R + c_max) x rate").isGreaterThanOrEqualTo(1_000 * slotSeconds * 584);
    }

    @Test
    void capsStayWithinTheSettingsWhateverTheInputs() {
        AdaptiveBatchSettings settings = AdaptiveBatchSettings.builder().maxBatchRecords(300).maxBatchBytes(64 << 10)
                .maxLinger(Duration.ofMillis(20)).maxInFlightBatches(8).maxInFlightBytes(1 << 20).build();
        AdaptiveBatchPolicy policy = policy(settings, 200, 1_000); // 200,000 records/s: far beyond the caps
        policy.onBacklog(1_000_000, 1L << 30, 1_000 * MS);
        BatchDecision d = policy.decision(1_000 * MS);
        assertThat(d.maxRecords()).isLessThanOrEqualTo(300);
        assertThat(d.maxBytes()).isLessThanOrEqualTo(64 << 10);
        assertThat(d.linger()).isLessThanOrEqualTo(Duration.ofMillis(20));
        assertThat(d.maxInFlightBatches()).isLessThanOrEqualTo(8);
        assertThat(d.maxInFlightBytes()).isLessThanOrEqualTo(1 << 20);
        assertThat(d.togetherMaxRecords()).isLessThanOrEqualTo(300);
        assertThat(d.togetherMaxBytes()).isLessThanOrEqualTo(64 << 10);
    }

    @Test
    void recordsArrivingTogetherMayFillBatchesUpToTheSettingsCapsAndTheWindowIsInBytes() {
        // 60 records/s of 1 KiB on a 5 MB/s path with a 50 ms round trip: the trickle's batches hold one
        // record, but a put of many records waited for nothing and may fill batches up to the caps
        AdaptiveBatchSettings settings = AdaptiveBatchSettings.builder().priorLinkBytesPerSecond(5e6)
                .priorRtt(Duration.ofMillis(50)).priorCompressionRatio(0.6).maxLinger(Duration.ofMillis(20))
                .maxBatchRecords(5_000).maxBatchBytes(1 << 20).build();
        AdaptiveBatchPolicy policy = new AdaptiveBatchPolicy(settings);
        for (long t = 0; t <= 2_000 * MS; t += 100 * MS) {
            policy.onRecordsArrived(6, 6 * 1_024, t);
        }
        BatchDecision d = policy.decision(2_000 * MS);
        assertThat(d.reason()).isEqualTo(DecisionReason.LATENCY_OPTIMAL);
        assertThat(d.maxRecords()).isLessThan(10);
        assertThat(d.togetherMaxRecords()).isEqualTo(5_000);
        assertThat(d.togetherMaxBytes()).isEqualTo(1 << 20);
        assertThat((double) d.maxInFlightBytes()).as("the pipe: 5 MB/s x 50 ms, with slack")
                .isBetween(5e6 * 0.05, 5e6 * 0.05 * 3);
        assertThat(d.maxInFlightBatches()).as("the window is in bytes").isEqualTo(settings.maxInFlightBatches());
    }

    @Test
    void aBacklogGrowsBatchesAtOnceAndTheyShrinkOnlyAfterTheDwell() {
        // a 16-byte header keeps the overhead guard rail (at least 3 records with 64 bytes) out of the way
        AdaptiveBatchSettings settings = AdaptiveBatchSettings.builder().priorLinkBytesPerSecond(4.7e6)
                .encoderThreads(1).batchOverheadBytes(16).build();
        AdaptiveBatchPolicy policy = policy(settings, 2, 1_000);
        for (long t = 0; t <= 1_000 * MS; t += 100 * MS) {
            policy.onBatchSent(2, 2_048, 1_152, 150_000 + 6_000, t);
        }
        int calm = policy.decision(1_000 * MS).maxRecords();
        policy.onBacklog(5_000, 5_000 * 1_024, 1_001 * MS);
        BatchDecision draining = policy.decision(1_003 * MS);
        assertThat(draining.maxRecords()).as("urgent recompute grows the batch").isGreaterThan(calm);
        assertThat(draining.reason()).isIn(DecisionReason.DRAIN_BACKLOG, DecisionReason.NO_HEADROOM,
                DecisionReason.SATURATED);
        policy.onBacklog(0, 0, 1_002 * MS);
        assertThat(policy.decision(1_150 * MS).maxRecords()).as("dwell holds the caps")
                .isEqualTo(draining.maxRecords());
        assertThat(policy.decision(2_500 * MS).maxRecords()).as("after the dwell they shrink back")
                .isLessThan(draining.maxRecords());
    }
}
