package io.jetstream.kafka.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The caps contract and the fixed policy. */
class BatchPolicyTest {

    private static final long MS = 1_000_000L;

    @Test
    void aBatchClosesWhenFullOrOldEnoughAndIsAdmittedWithinTheWindow() {
        BatchDecision d = new BatchDecision(100, 10_000, Duration.ofMillis(5), 4, 1_000_000);
        assertThat(d.closes(99, 9_999, 0, 4 * MS)).isFalse();
        assertThat(d.closes(100, 10, 0, 0)).as("records").isTrue();
        assertThat(d.closes(1, 10_000, 0, 0)).as("bytes").isTrue();
        assertThat(d.closes(1, 10, 0, 5 * MS)).as("linger").isTrue();
        assertThat(d.closes(0, 0, 0, 10 * MS)).as("nothing to close").isFalse();
        assertThat(d.admits(3, 0, 1_000)).isTrue();
        assertThat(d.admits(4, 0, 1_000)).as("window full").isFalse();
        assertThat(d.admits(1, 999_999, 1_000)).as("byte budget").isFalse();
        assertThat(d.admits(0, 0, 5_000_000)).as("a big batch alone never deadlocks").isTrue();
        assertThat(d.admits(1, 600_000, 600_000)).as("the byte budget is a bound").isFalse();
        assertThatThrownBy(() -> new BatchDecision(0, 1, Duration.ZERO, 1, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BatchDecision(1, 1, Duration.ofMillis(-1), 1, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void fixedPolicyIgnoresReports() {
        BatchDecision caps = new BatchDecision(500, 1 << 20, Duration.ofMillis(5), 16, 8 << 20);
        FixedBatchPolicy fixed = new FixedBatchPolicy(caps);
        fixed.onRecordsArrived(1_000_000, 1 << 30, 0);
        fixed.onBacklog(1_000_000, 1 << 30, 0);
        fixed.onBatchAcked(500, 1 << 20, 0, 10 * MS, 0);
        assertThat(fixed.decision(0)).isSameAs(caps);
        assertThat(fixed.decision(60_000 * MS)).isSameAs(caps);
    }
}
