package io.jetstream.kafka.core.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class PartitionSequencerTest {

    private static RecordBatch batch(long prev, long... offsets) {
        List<ReplicatedRecord> records = new ArrayList<>();
        for (long offset : offsets) {
            records.add(new ReplicatedRecord(offset, 1000 + offset, null, new byte[] {(byte) offset}));
        }
        return new RecordBatch("t", 0, prev, records);
    }

    private static RecordBatch covering(long prev, long coveredFrom, long... offsets) {
        RecordBatch plain = batch(prev, offsets);
        return new RecordBatch("t", 0, prev, coveredFrom, plain.records());
    }

    @Test
    void legitimateOffsetGapsPassWithoutAWord() {
        List<String> gaps = new ArrayList<>();
        PartitionSequencer<String> seq = new PartitionSequencer<>(9,
                (topic, partition, from, to) -> gaps.add(from + ".." + to));
        // transaction markers and aborted records: offsets jump inside and between batches
        assertThat(offsets(seq.offer(batch(9, 11, 12, 20), "b1", 10))).containsExactly(11L, 12L, 20L);
        assertThat(offsets(seq.offer(batch(20, 25), "b2", 10))).containsExactly(25L);
        // a new chain after a reassignment vouches from the committed offset, at or below lastWritten + 1
        assertThat(offsets(seq.offer(covering(-1, 22, 26, 27), "b3", 10))).containsExactly(26L, 27L);
        assertThat(gaps).isEmpty();
    }

    @Test
    void aSkipMarkerFillsTheChainWithoutWritingOrAGapAndIsAcknowledgedOnceALaterRecordIsDurable() {
        PartitionSequencer<String> seq = new PartitionSequencer<>(9, (topic, partition, from, to) -> {
            throw new IllegalStateException("gap " + from + ".." + to);
        });
        RecordBatch marker = RecordBatch.skipMarker(batch(12, 13, 14, 15));
        assertThat(offsets(seq.offer(batch(9, 10, 11, 12), "b1", 10))).containsExactly(10L, 11L, 12L);
        // the batch after the skipped one arrives first and waits for the marker, not for the records
        assertThat(seq.offer(batch(15, 16, 17), "b3", 10).held()).isTrue();
        PartitionSequencer.Result<String> applied = seq.offer(marker, "marker", 10);
        assertThat(offsets(applied)).as("nothing of the marker is written, its successor is").containsExactly(16L, 17L);
        assertThat(seq.lastWritten()).isEqualTo(17);
        assertThat(seq.skippedRecords()).isEqualTo(3);
        assertThat(seq.heldBatches()).isZero();
        assertThat(seq.onDurable(12)).containsExactly("b1");
        // offsets 13..15 are never stored as progress: a record written after them makes the marker durable
        assertThat(seq.onDurable(17)).containsExactly("marker", "b3");
        PartitionSequencer.Result<String> again = seq.offer(marker, "marker again", 10);
        assertThat(offsets(again)).isEmpty();
        assertThat(again.dueAcks()).as("a re-sent marker is a duplicate, acknowledged at once").containsExactly(
                "marker again");
        assertThat(seq.skippedRecords()).as("counted once").isEqualTo(3);
    }

    @Test
    void aBatchOfferedAgainWithAnEqualHandleWhileItWaitsForDurabilityIsAcknowledgedOnce() {
        PartitionSequencer<String> seq = new PartitionSequencer<>(9, PartitionSequencer.GapHandler.ACCEPT);
        RecordBatch marker = RecordBatch.skipMarker(batch(9, 10, 11, 12));
        seq.offer(marker, "marker", 10);
        // the idle partition's marker is re-sent every ack timeout: one pending acknowledgement, not one per copy
        for (int resend = 0; resend < 100; resend++) {
            assertThat(seq.offer(marker, "marker", 10).dueAcks()).isEmpty();
        }
        // a copy that came another way back keeps its own acknowledgement
        seq.offer(marker, "marker via another relay", 10);
        assertThat(seq.pendingAcks()).isEqualTo(2);
        assertThat(seq.onDurable(12)).containsExactly("marker", "marker via another relay");
    }

    @Test
    void aGapTheSenderCannotVouchForIsReportedBeforeTheBatchApplies() {
        List<String> gaps = new ArrayList<>();
        PartitionSequencer<String> seq = new PartitionSequencer<>(99,
                (topic, partition, from, to) -> gaps.add(topic + "-" + partition + " " + from + ".." + to));
        PartitionSequencer.Result<String> held = seq.offer(covering(120, 151, 151, 152), "b2", 10);
        assertThat(held.held()).isTrue();
        assertThat(gaps).isEmpty();
        PartitionSequencer.Result<String> applied = seq.offer(batch(99, 100, 120), "b1", 10);
        assertThat(offsets(applied)).containsExactly(100L, 120L, 151L, 152L);
        assertThat(gaps).containsExactly("t-0 121..150");
    }

    @Test
    void aRefusedGapAppliesNothingOfItsBatch() {
        PartitionSequencer<String> seq = new PartitionSequencer<>(99, (topic, partition, from, to) -> {
            throw new IllegalStateException("gap " + from + ".." + to);
        });
        assertThatThrownBy(() -> seq.offer(covering(-1, 500, 500, 501), "b", 10))
                .hasMessage("gap 100..499");
        assertThat(seq.lastWritten()).isEqualTo(99);
    }

    @Test
    void aPartitionWithoutProgressStartsWhereTheSenderStarts() {
        List<String> gaps = new ArrayList<>();
        PartitionSequencer<String> seq = new PartitionSequencer<>(-1,
                (topic, partition, from, to) -> gaps.add(from + ".." + to));
        assertThat(offsets(seq.offer(covering(-1, 5_000, 5_000), "b", 10))).containsExactly(5_000L);
        assertThat(gaps).isEmpty();
    }

    private static List<Long> offsets(PartitionSequencer.Result<String> result) {
        return result.records().stream().map(ReplicatedRecord::offset).toList();
    }

    @Test
    void appliesInOrderAndHoldsBatchesWhosePredecessorIsMissing() {
        PartitionSequencer<String> seq = new PartitionSequencer<>(-1);
        PartitionSequencer.Result<String> second = seq.offer(batch(2, 3, 4, 5), "b2", 30);
        assertThat(second.held()).isTrue();
        assertThat(second.records()).isEmpty();
        assertThat(seq.heldBytes()).isEqualTo(30);

        PartitionSequencer.Result<String> first = seq.offer(batch(-1, 0, 1, 2), "b1", 30);
        assertThat(offsets(first)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
        assertThat(seq.lastWritten()).isEqualTo(5);
        assertThat(seq.heldBytes()).isZero();
    }

    @Test
    void dropsRecordsAlreadyWrittenAndSurvivesOffsetGaps() {
        PartitionSequencer<String> seq = new PartitionSequencer<>(9);
        // a re-sent batch overlapping what was written, then a gap (compaction) 13 -> 20
        assertThat(offsets(seq.offer(batch(5, 6, 8, 10, 11), "x", 1))).containsExactly(10L, 11L);
        assertThat(offsets(seq.offer(batch(11, 12, 13), "y", 1))).containsExactly(12L, 13L);
        assertThat(offsets(seq.offer(batch(13, 20, 21), "z", 1))).containsExactly(20L, 21L);
        assertThat(seq.duplicateRecords()).isEqualTo(2);
    }

    @Test
    void firstBatchAfterAssignmentIsAlwaysApplicable() {
        PartitionSequencer<String> seq = new PartitionSequencer<>(99);
        // the new owner starts at the committed offset 100 but offsets 100..104 were compacted away
        assertThat(offsets(seq.offer(batch(-1, 105, 106), "a", 1))).containsExactly(105L, 106L);
    }

    @Test
    void acknowledgesOnlyOnceRecordsAreDurable() {
        PartitionSequencer<String> seq = new PartitionSequencer<>(-1);
        assertThat(seq.offer(batch(-1, 0, 1), "b1", 1).dueAcks()).isEmpty();
        assertThat(seq.offer(batch(1, 2, 3), "b2", 1).dueAcks()).isEmpty();
        assertThat(seq.onDurable(0)).isEmpty();
        assertThat(seq.onDurable(1)).containsExactly("b1");
        // a duplicate of b1 arriving after b1 is durable is acknowledged at once
        assertThat(seq.offer(batch(-1, 0, 1), "b1-again", 1).dueAcks()).containsExactly("b1-again");
        assertThat(seq.onDurable(3)).containsExactly("b2");
        assertThat(seq.pendingAcks()).isZero();
    }

    @Test
    void duplicateOfAPendingBatchWaitsForTheSameDurableOffset() {
        PartitionSequencer<String> seq = new PartitionSequencer<>(-1);
        seq.offer(batch(-1, 0, 1, 2, 3), "big", 1);
        seq.offer(batch(-1, 0, 1), "dup-small", 1);
        assertThat(seq.onDurable(1)).containsExactly("dup-small");
        assertThat(seq.onDurable(3)).containsExactly("big");
    }

    @Test
    void shuffledDeliveryOfAChainYieldsEveryOffsetOnceInOrder() {
        java.util.Random random = new java.util.Random(42);
        for (int run = 0; run < 200; run++) {
            List<RecordBatch> chain = new ArrayList<>();
            long prev = -1;
            long next = 0;
            for (int b = 0; b < 20; b++) {
                int size = 1 + random.nextInt(5);
                long[] offsets = LongStream.range(next, next + size).map(o -> o + random.nextInt(2)).distinct().sorted()
                        .toArray();
                chain.add(batch(prev, offsets));
                prev = offsets[offsets.length - 1];
                next = prev + 1;
            }
            List<RecordBatch> delivery = new ArrayList<>(chain);
            delivery.addAll(chain.subList(0, 5)); // re-sends
            java.util.Collections.shuffle(delivery, random);
            PartitionSequencer<Integer> seq = new PartitionSequencer<>(-1);
            List<Long> written = new ArrayList<>();
            for (RecordBatch b : delivery) {
                seq.offer(b, 0, 1).records().forEach(r -> written.add(r.offset()));
            }
            List<Long> expected = chain.stream().flatMap(b -> b.records().stream()).map(ReplicatedRecord::offset).toList();
            assertThat(written).isEqualTo(expected);
            assertThat(seq.heldBatches()).isZero();
        }
    }
}
