package io.jetstream.kafka.sink.offsetmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.offsets.OffsetMapCodec;
import io.jetstream.kafka.core.offsets.OffsetMapEntry;
import io.jetstream.kafka.core.offsets.OffsetTranslator;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class OffsetMapWriterTest {

    private static final TopicPartition P0 = new TopicPartition("demo.t", 0);
    private static final TopicPartition P1 = new TopicPartition("demo.t", 1);
    private static final ReplicationReceiver.Incarnation ID = new ReplicationReceiver.Incarnation(Uuid.randomUuid(),
            Uuid.ZERO_UUID);

    /** A destination with end offsets and stored progress per partition, and a count of reads. */
    private static final class FakeDestination implements OffsetMapWriter.Positions {
        final Map<TopicPartition, Long> ends = new HashMap<>();
        final Map<TopicPartition, Long> stored = new HashMap<>();
        int endReads;
        boolean unreachable;

        @Override
        public long endOffset(String destinationTopic, int partition) throws Exception {
            assertThat(destinationTopic).isEqualTo("A.demo.t");
            endReads++;
            if (unreachable) {
                throw new org.apache.kafka.common.errors.TimeoutException("destination broker down");
            }
            return ends.getOrDefault(new TopicPartition("demo.t", partition), 0L);
        }

        @Override
        public ReplicationReceiver.Progress stored(TopicPartition origin) {
            return new ReplicationReceiver.Progress(stored.getOrDefault(origin, -1L), ID.topicId, Uuid.ZERO_UUID);
        }
    }

    private static OffsetMapWriter writer(FakeDestination destination, boolean transactional) {
        return new OffsetMapWriter("A", TopicNamingPolicy.create("prefix", "A", "."), transactional, destination);
    }

    private static List<ReplicationReceiver.Delivery> deliveries(TopicPartition origin, long... offsets) {
        List<ReplicationReceiver.Delivery> out = new ArrayList<>();
        for (long offset : offsets) {
            out.add(new ReplicationReceiver.Delivery(origin.topic(), origin.partition(),
                    new ReplicatedRecord(offset, 1000 + offset, null, new byte[] {1}), ID));
        }
        return out;
    }

    private static List<OffsetMapEntry> entries(List<OffsetMapWriter.MapRecord> records) {
        List<OffsetMapEntry> out = new ArrayList<>();
        for (OffsetMapWriter.MapRecord record : records) {
            OffsetMapEntry decoded = OffsetMapCodec.decode(record.key(), record.value());
            assertThat(decoded).isEqualTo(record.entry());
            out.add(decoded);
        }
        return out;
    }

    @Test
    void exactlyOncePredictsConsecutiveOffsetsAndOneCommitMarkerPerPoll() {
        FakeDestination destination = new FakeDestination();
        destination.ends.put(P0, 500L);
        destination.stored.put(P0, 99L);
        OffsetMapWriter writer = writer(destination, true);

        List<ReplicationReceiver.Delivery> poll = new ArrayList<>(deliveries(P0, 100, 101, 103));
        poll.addAll(deliveries(P1, 0, 1));
        List<OffsetMapEntry> first = entries(writer.entriesFor(poll));
        assertThat(first).hasSize(2);
        OffsetMapEntry p0 = first.get(0);
        assertThat(p0.previous()).isEqualTo(99);
        assertThat(p0.segments()).containsExactly(new OffsetMapEntry.Segment(100, 500, 2),
                new OffsetMapEntry.Segment(103, 502, 1));
        assertThat(p0.markers()).isEqualTo(1);
        assertThat(p0.destinationTopic()).isEqualTo("A.demo.t");
        assertThat(p0.topicId()).isEqualTo(ID.topicId);
        assertThat(first.get(1).segments()).containsExactly(new OffsetMapEntry.Segment(0, 0, 2));

        // the records land where predicted: the transaction commits, its marker takes offset 503
        writer.verify(P0, 100, 500);
        writer.verify(P0, 101, 501);
        writer.verify(P0, 103, 502);
        OffsetMapEntry second = entries(writer.entriesFor(deliveries(P0, 104, 105))).get(0);
        assertThat(second.previous()).isEqualTo(103);
        assertThat(second.segments()).containsExactly(new OffsetMapEntry.Segment(104, 504, 2));
        assertThat(writer.corrections()).isZero();
        assertThat(destination.endReads).isEqualTo(2); // once per partition at takeover, not per poll
    }

    @Test
    void atLeastOnceHasNoMarkers() {
        FakeDestination destination = new FakeDestination();
        OffsetMapWriter writer = writer(destination, false);
        assertThat(entries(writer.entriesFor(deliveries(P0, 0, 1))).get(0).markers()).isZero();
        assertThat(entries(writer.entriesFor(deliveries(P0, 2))).get(0).firstDestination()).isEqualTo(2);
    }

    @Test
    void aRecordThatLandedElsewhereGetsACorrectionWithTheNextPollAndMovesLaterPredictions() {
        FakeDestination destination = new FakeDestination();
        OffsetMapWriter writer = writer(destination, true);
        OffsetMapEntry predicted = entries(writer.entriesFor(deliveries(P0, 0, 1, 2))).get(0);
        assertThat(predicted.segments()).containsExactly(new OffsetMapEntry.Segment(0, 0, 3));
        // another producer wrote 5 records into the destination partition before this transaction
        writer.verify(P0, 0, 5);
        writer.verify(P0, 1, 6);
        assertThat(writer.hasCorrections()).isFalse(); // the run is not complete yet
        writer.verify(P0, 2, 7);
        assertThat(writer.hasCorrections()).isTrue();
        assertThat(writer.corrections()).isEqualTo(1);

        List<OffsetMapEntry> next = entries(writer.entriesFor(deliveries(P0, 3)));
        assertThat(next).hasSize(2);
        OffsetMapEntry correction = next.get(0);
        assertThat(correction.correction()).isTrue();
        assertThat(correction.previous()).isEqualTo(predicted.previous());
        assertThat(correction.segments()).containsExactly(new OffsetMapEntry.Segment(0, 5, 3));
        assertThat(next.get(1).segments()).as("moved by the error once, after the marker at 8")
                .containsExactly(new OffsetMapEntry.Segment(3, 9, 1));

        OffsetTranslator translator = new OffsetTranslator();
        translator.add(predicted); // order as in the map: prediction, then its correction
        translator.add(correction);
        translator.add(next.get(1));
        assertThat(translator.toDestination(1).offset()).isEqualTo(6);
        assertThat(translator.toDestination(3).offset()).isEqualTo(9);
    }

    @Test
    void aDroppedRecordIsLeftOutOfTheCorrection() {
        FakeDestination destination = new FakeDestination();
        OffsetMapWriter writer = writer(destination, false);
        writer.entriesFor(deliveries(P0, 0, 1, 2));
        writer.verify(P0, 1, -1);  // dropped by a transformation: reported first
        writer.verify(P0, 0, 0);
        writer.verify(P0, 2, 1);
        OffsetMapEntry correction = entries(writer.entriesFor(List.of())).get(0);
        assertThat(correction.segments()).containsExactly(new OffsetMapEntry.Segment(0, 0, 1),
                new OffsetMapEntry.Segment(2, 1, 1));
        assertThat(entries(writer.entriesFor(deliveries(P0, 3))).get(0).firstDestination()).isEqualTo(2);
    }

    @Test
    void atLeastOnceCallbacksOfLaterPollsDoNotMoveThePredictionTwice() {
        FakeDestination destination = new FakeDestination();
        OffsetMapWriter writer = writer(destination, false);
        writer.entriesFor(deliveries(P0, 0, 1));   // predicted 0, 1
        writer.entriesFor(deliveries(P0, 2, 3));   // predicted 2, 3: created before any callback
        // another writer put 10 records first: all four land 10 further
        writer.verify(P0, 0, 10);
        writer.verify(P0, 1, 11);
        writer.verify(P0, 2, 12);
        writer.verify(P0, 3, 13);
        assertThat(writer.corrections()).isEqualTo(2);
        List<OffsetMapEntry> next = entries(writer.entriesFor(deliveries(P0, 4)));
        assertThat(next.get(next.size() - 1).firstDestination()).isEqualTo(14);
    }

    @Test
    void aDestinationThatCannotBeReadLeavesTheRunUnmappedAndIsAskedAgain() {
        FakeDestination destination = new FakeDestination();
        destination.unreachable = true;
        OffsetMapWriter writer = writer(destination, true);
        assertThat(writer.entriesFor(deliveries(P0, 0, 1))).isEmpty();
        assertThat(writer.unmappedRecords()).isEqualTo(2);
        destination.unreachable = false;
        destination.ends.put(P0, 3L);
        destination.stored.put(P0, -1L); // progress not read back yet: the entry still chains after 0..1
        OffsetMapEntry entry = entries(writer.entriesFor(deliveries(P0, 2))).get(0);
        assertThat(entry.previous()).isEqualTo(1);
        assertThat(entry.firstDestination()).isEqualTo(3);
        OffsetTranslator translator = new OffsetTranslator();
        translator.add(entry);
        assertThat(translator.toDestination(1).status()).isEqualTo(OffsetTranslator.Status.BEFORE_MAP);
    }

    @Test
    void aRecreatedOriginTopicStartsANewChain() {
        FakeDestination destination = new FakeDestination();
        destination.stored.put(P0, 41L);
        OffsetMapWriter writer = writer(destination, true);
        writer.entriesFor(deliveries(P0, 42));
        ReplicationReceiver.Incarnation recreated = new ReplicationReceiver.Incarnation(Uuid.randomUuid(), ID.topicId);
        OffsetMapEntry entry = entries(writer.entriesFor(List.of(new ReplicationReceiver.Delivery("demo.t", 0,
                new ReplicatedRecord(0, 1, null, null), recreated)))).get(0);
        assertThat(entry.previous()).isEqualTo(-1);
        assertThat(entry.topicId()).isEqualTo(recreated.topicId);
        assertThat(entry.firstDestination()).isEqualTo(2);
    }
}
