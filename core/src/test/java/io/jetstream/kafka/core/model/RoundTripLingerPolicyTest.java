package io.jetstream.kafka.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The linger that follows the path's round trip, measured from receipts. */
class RoundTripLingerPolicyTest {

    private static final long MS = 1_000_000L;
    private static final BatchDecision CAPS = new BatchDecision(10_000, 1 << 20, Duration.ofMillis(20), 1024, 64L << 20);

    @Test
    void beforeAnyReceiptTheConfiguredLingerHolds() {
        RoundTripLingerPolicy policy = new RoundTripLingerPolicy(CAPS);
        policy.onBatchAcked(10, 1_000, 0, 300 * MS, 0);
        policy.onRttSample(1 * MS, 0);
        assertThat(policy.decision(0)).isEqualTo(CAPS);
    }

    @Test
    void theLingerIsFiveMillisecondsPlusAFortiethOfTheShortestRecentRoundTripWithinTheCeiling() {
        assertThat(lingerAfterReceipts(10)).isEqualTo(Duration.ofMillis(5).plusNanos(250_000));
        assertThat(lingerAfterReceipts(50)).isEqualTo(Duration.ofMillis(6).plusNanos(250_000));
        assertThat(lingerAfterReceipts(150)).isEqualTo(Duration.ofMillis(8).plusNanos(750_000));
        assertThat(lingerAfterReceipts(2_000)).as("the ceiling").isEqualTo(Duration.ofMillis(20));
    }

    @Test
    void queueingDoesNotLengthenTheLingerAndOnlyTheLingerMoves() {
        RoundTripLingerPolicy policy = new RoundTripLingerPolicy(CAPS);
        long now = 0;
        policy.onBatchReceived(10, 1_000, now, now + 50 * MS);
        // a queue builds on the path: transfers of 400 ms within the window do not count
        for (int i = 1; i <= 20; i++) {
            now = i * 500 * MS;
            policy.onBatchReceived(10, 1_000, now, now + 400 * MS);
        }
        BatchDecision d = policy.decision(now);
        assertThat(d.linger()).isEqualTo(Duration.ofMillis(6).plusNanos(250_000));
        assertThat(d.maxRecords()).isEqualTo(CAPS.maxRecords());
        assertThat(d.maxBytes()).isEqualTo(CAPS.maxBytes());
        assertThat(d.maxInFlightBatches()).isEqualTo(CAPS.maxInFlightBatches());
        assertThat(d.maxInFlightBytes()).isEqualTo(CAPS.maxInFlightBytes());
    }

    @Test
    void aLongerPathOnceTheShortOneLeftTheWindowLingersLonger() {
        RoundTripLingerPolicy policy = new RoundTripLingerPolicy(CAPS);
        policy.onBatchReceived(10, 1_000, 0, 10 * MS);
        assertThat(policy.decision(0).linger()).isEqualTo(Duration.ofNanos(5_250_000));
        long later = RoundTripLingerPolicy.WINDOW.toNanos() + 1_000 * MS;
        policy.onBatchReceived(10, 1_000, later, later + 150 * MS);
        assertThat(policy.decision(later).linger()).isEqualTo(Duration.ofNanos(8_750_000));
    }

    @Test
    void anIdlePathKeepsItsLastLingerAndJitterDoesNotMoveIt() {
        RoundTripLingerPolicy policy = new RoundTripLingerPolicy(CAPS);
        policy.onBatchReceived(10, 1_000, 0, 50 * MS);
        BatchDecision first = policy.decision(0);
        // 4 ms less round trip is 0.1 ms less linger: under the step, the decision stays the same object
        policy.onBatchReceived(10, 1_000, MS, 47 * MS);
        assertThat(policy.decision(MS)).isSameAs(first);
        assertThat(policy.decision(10 * RoundTripLingerPolicy.WINDOW.toNanos())).isSameAs(first);
    }

    @Test
    void aConfiguredCeilingBelowTheFloorIsTheLinger() {
        BatchDecision tight = new BatchDecision(100, 1 << 16, Duration.ofMillis(2), 16, 1 << 20);
        RoundTripLingerPolicy policy = new RoundTripLingerPolicy(tight);
        policy.onBatchReceived(10, 1_000, 0, 100 * MS);
        assertThat(policy.decision(0).linger()).isEqualTo(Duration.ofMillis(2));
    }

    @Test
    void aReceiptTimedBeforeItsSendIsIgnored() {
        RoundTripLingerPolicy policy = new RoundTripLingerPolicy(CAPS);
        policy.onBatchReceived(10, 1_000, 10 * MS, 5 * MS);
        assertThat(policy.decision(0)).isEqualTo(CAPS);
    }

    private static Duration lingerAfterReceipts(long roundTripMs) {
        RoundTripLingerPolicy policy = new RoundTripLingerPolicy(CAPS);
        for (int i = 0; i < 5; i++) {
            long sent = i * 100 * MS;
            policy.onBatchReceived(10, 1_000, sent, sent + roundTripMs * MS);
        }
        return policy.decision(0).linger();
    }
}
