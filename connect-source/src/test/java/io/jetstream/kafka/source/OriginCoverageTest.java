package io.jetstream.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class OriginCoverageTest {

    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);

    private final FakeSourceCluster origin = new FakeSourceCluster("origin down");
    private final OriginCoverage coverage = new OriginCoverage(origin);

    private Map<Integer, Long> check(TopicPartition partition, long... offsets) {
        return coverage.check(Collections.nCopies(offsets.length, partition), offsets);
    }

    @Test
    void contiguousRecordsNeedNoQuestion() {
        coverage.assign(List.of(P0));
        origin.committed.put(P0, 100L);
        assertThat(check(P0, 100, 101, 102)).containsExactly(Map.entry(0, 100L));
        origin.asked.clear();
        assertThat(check(P0, 103, 104)).isEmpty();
        assertThat(origin.asked).isEmpty();
        assertThat(coverage.checks()).isEqualTo(1);
        assertThat(coverage.unvouched()).isZero();
    }

    @Test
    void aJumpOverOffsetsStillInTheLogIsLegitimate() {
        coverage.assign(List.of(P0));
        check(P0, 0, 1);
        // a transaction marker at 2, aborted records 5..9: the log still starts at 0
        assertThat(check(P0, 3, 4, 10)).isEmpty();
        assertThat(origin.asked).contains("logStart [t-0]");
    }

    @Test
    void aJumpOverDeletedOffsetsStartsABatchThatVouchesFromTheLogStart() {
        coverage.assign(List.of(P0));
        check(P0, 0, 1, 2);
        origin.logStart.put(P0, 1_500L);
        assertThat(check(P0, 1_500, 1_501)).containsExactly(Map.entry(0, 1_500L));
        // retention went further than the first record read after the reset
        check(P0, 1_502);
        origin.logStart.put(P0, 2_000L);
        assertThat(check(P0, 1_900)).containsExactly(Map.entry(0, 1_900L));
        assertThat(coverage.unvouched()).isEqualTo(2);
    }

    @Test
    void theFirstRecordAfterAnAssignmentIsCheckedAgainstTheCommittedOffset() {
        coverage.assign(List.of(P0, P1));
        origin.committed.put(P0, 40L);
        origin.logStart.put(P0, 10L);
        origin.committed.put(P1, 40L);
        origin.logStart.put(P1, 70L);
        Map<Integer, Long> restarts = coverage.check(List.of(P0, P1, P0), new long[] {42, 75, 43});
        assertThat(restarts).as("P0 vouches from its committed offset; P1's committed offset was deleted")
                .containsOnly(Map.entry(0, 40L), Map.entry(1, 70L));
        assertThat(origin.asked).hasSize(2);
    }

    @Test
    void aPartitionWithoutCommittedOffsetStartsAtItsFirstRecord() {
        coverage.assign(List.of(P0));
        origin.logStart.put(P0, 5_000L);
        assertThat(check(P0, 5_000)).containsExactly(Map.entry(0, 5_000L));
    }

    @Test
    void aConsumerThatStartsAPartitionWithoutCommittedOffsetAboveItsLogStartIsReported() {
        // The worker's consumer.auto.offset.reset=latest: a new partition's first 500 records, still in
        // the log, were never handed to the task.
        coverage.assign(List.of(P0, P1));
        origin.logStart.put(P1, 30L);
        assertThat(coverage.check(List.of(P0, P1), new long[] {500, 30})).containsOnly(Map.entry(0, 500L),
                Map.entry(1, 30L));
        assertThat(coverage.startedPastLogStart()).as("P0 only: P1 starts at its log start").isEqualTo(1);

        // A committed offset, even above the log start, is where the group stopped: not a reset.
        coverage.assign(List.of(P1));
        origin.committed.put(P1, 80L);
        check(P1, 80);
        assertThat(coverage.startedPastLogStart()).isEqualTo(1);
    }

    @Test
    void whenTheOriginCannotAnswerNothingChangesAndTheSameRecordsAreCheckedAgain() {
        coverage.assign(List.of(P0));
        origin.committed.put(P0, 7L);
        origin.down = true;
        assertThatThrownBy(() -> check(P0, 7, 8)).hasMessage("origin down");
        origin.down = false;
        assertThat(check(P0, 7, 8)).containsExactly(Map.entry(0, 7L));
    }

    @Test
    void revokedPartitionsAreForgotten() {
        coverage.assign(List.of(P0));
        check(P0, 0, 1);
        coverage.revoke(List.of(P0));
        origin.logStart.put(P0, 50L);
        origin.asked.clear();
        assertThat(check(P0, 60)).isEmpty();
        assertThat(origin.asked).isEmpty();
    }
}
