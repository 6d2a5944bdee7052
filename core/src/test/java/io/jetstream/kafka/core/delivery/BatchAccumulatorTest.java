package io.jetstream.kafka.core.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class BatchAccumulatorTest {

    private final BatchAccumulator accumulator = new BatchAccumulator();
    private final TopicPartition p0 = new TopicPartition("t", 0);
    private final TopicPartition p1 = new TopicPartition("t", 1);

    private static ReplicatedRecord record(long offset) {
        return new ReplicatedRecord(offset, offset, null, new byte[100]);
    }

    @Test
    void closesOnTheRecordCapAndChainsPrevOffsets() {
        accumulator.assign(List.of(p0));
        assertThat(accumulator.append(p0, record(10), 0, 3, 1 << 20)).isNull();
        assertThat(accumulator.append(p0, record(11), 0, 3, 1 << 20)).isNull();
        RecordBatch first = accumulator.append(p0, record(12), 0, 3, 1 << 20);
        assertThat(first.prevOffset()).isEqualTo(-1);
        assertThat(first.firstOffset()).isEqualTo(10);
        assertThat(first.lastOffset()).isEqualTo(12);

        accumulator.append(p0, record(14), 0, 3, 1 << 20);
        RecordBatch second = accumulator.drainAll().get(0);
        assertThat(second.prevOffset()).isEqualTo(12);
        assertThat(second.records()).hasSize(1);
    }

    @Test
    void batchesCarryThePartitionsTopicIdUntilTheNextAssignment() {
        Uuid id = Uuid.randomUuid();
        accumulator.assign(List.of(p0));
        accumulator.append(p0, record(1), 0, 1000, 1 << 20);
        accumulator.topicId(p0, id);
        assertThat(accumulator.drainAll().get(0).topicId()).as("sealed after the id was given").isEqualTo(id);
        assertThat(accumulator.topicId(p0)).isEqualTo(id);

        accumulator.assign(List.of(p0));
        assertThat(accumulator.topicId(p0)).as("forgotten with the assignment").isNull();
        accumulator.append(p0, record(2), 0, 1000, 1 << 20);
        RecordBatch unknown = accumulator.drainAll().get(0);
        assertThat(unknown.topicId()).isEqualTo(Uuid.ZERO_UUID);
        assertThat(unknown.hasTopicId()).isFalse();
    }

    @Test
    void closesOnTheByteCap() {
        assertThat(accumulator.append(p0, record(0), 0, 1000, 200)).isNull();
        assertThat(accumulator.append(p0, record(1), 0, 1000, 200)).isNotNull();
        assertThat(accumulator.bufferedBytes()).isZero();
    }

    @Test
    void aRecordThatWouldTakeTheBatchPastTheByteCapClosesItFirst() {
        ReplicatedRecord large = new ReplicatedRecord(2, 0, null, new byte[150]);
        accumulator.append(p0, record(1), 0, 1000, 250);
        assertThat(accumulator.closeIfNoRoom(p0, record(2), 250)).as("room left for 116 more bytes").isNull();
        RecordBatch before = accumulator.closeIfNoRoom(p0, large, 250);
        assertThat(before.records()).extracting(ReplicatedRecord::offset).containsExactly(1L);
        assertThat(accumulator.closeIfNoRoom(p0, large, 250)).as("nothing open").isNull();
        RecordBatch alone = accumulator.append(p0, large, 0, 1000, 100);
        assertThat(alone.records()).as("a record above the cap travels alone").hasSize(1);
        assertThat(alone.prevOffset()).isEqualTo(1);
    }

    @Test
    void nothingLeavesBeforeTheOldestRecordWaitedTheLinger() {
        accumulator.append(p0, record(0), 100, 1000, 1 << 20);
        accumulator.append(p1, record(0), 150, 1000, 1 << 20);
        assertThat(accumulator.oldestArrivalNanos()).isEqualTo(100);
        assertThat(accumulator.drainExpired(149, 50)).isEmpty();
        assertThat(accumulator.bufferedRecords()).isEqualTo(2);
    }

    @Test
    void onceTheOldestWaitedTheLingerEveryOpenBatchLeavesWithIt() {
        accumulator.append(p0, record(0), 100, 1000, 1 << 20);
        accumulator.append(p1, record(0), 150, 1000, 1 << 20);
        List<RecordBatch> due = accumulator.drainExpired(160, 50);
        assertThat(due).extracting(RecordBatch::partition).containsExactlyInAnyOrder(0, 1);
        assertThat(accumulator.oldestArrivalNanos()).isEqualTo(-1);
        assertThat(accumulator.bufferedBytes()).isZero();
        assertThat(accumulator.drainExpired(1_000, 50)).as("nothing open").isEmpty();
    }

    @Test
    void partitionsTheCallerHoldsBackStayOpenAndKeepTakingRecords() {
        accumulator.append(p0, record(0), 100, 1000, 1 << 20);
        accumulator.append(p1, record(0), 150, 1000, 1 << 20);
        List<RecordBatch> due = accumulator.drainExpired(160, 50, tp -> tp.equals(p1));
        assertThat(due).extracting(RecordBatch::partition).containsExactly(1);
        assertThat(accumulator.bufferedRecords()).as("p0's batch stays open past its linger").isEqualTo(1);
        accumulator.append(p0, record(1), 170, 1000, 1 << 20);
        assertThat(accumulator.drainExpired(180, 50)).singleElement()
                .satisfies(batch -> assertThat(batch.records()).hasSize(2));
    }

    @Test
    void reassignmentStartsAFreshChain() {
        accumulator.append(p0, record(5), 0, 1, 1 << 20);
        accumulator.revoke(List.of(p0));
        accumulator.assign(List.of(p0));
        RecordBatch afterReassignment = accumulator.append(p0, record(3), 0, 1, 1 << 20);
        assertThat(afterReassignment.prevOffset()).isEqualTo(-1);
    }

    @Test
    void aCoverageRestartClosesTheOpenBatchAndTheNextVouchesFromTheGivenOffset() {
        accumulator.append(p0, record(10), 0, 100, 1 << 20);
        RecordBatch before = accumulator.restartCoverage(p0, 60);
        assertThat(before.lastOffset()).isEqualTo(10);
        assertThat(before.coveredFrom()).isEqualTo(0);
        assertThat(before.hasCoverageGap()).isFalse();
        accumulator.append(p0, record(60), 0, 100, 1 << 20);
        RecordBatch after = accumulator.drainAll().get(0);
        assertThat(after.prevOffset()).isEqualTo(10);
        assertThat(after.coveredFrom()).isEqualTo(60);
        assertThat(after.hasCoverageGap()).isTrue();

        accumulator.append(p0, record(61), 0, 100, 1 << 20);
        assertThat(accumulator.drainAll().get(0).coveredFrom()).as("only the next batch").isEqualTo(61);
    }

    @Test
    void theFirstBatchAfterAnAssignmentVouchesFromTheGivenStart() {
        accumulator.assign(List.of(p0));
        assertThat(accumulator.restartCoverage(p0, 40)).isNull();
        accumulator.append(p0, record(42), 0, 100, 1 << 20);
        RecordBatch first = accumulator.drainAll().get(0);
        assertThat(first.prevOffset()).isEqualTo(-1);
        assertThat(first.coveredFrom()).isEqualTo(40);
    }
}
