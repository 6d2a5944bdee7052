package io.jetstream.kafka.sink.atleastonce;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import io.jetstream.kafka.sink.progress.SourceOffsets;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CrashTakeoverTest {

    private static final TopicPartition ORIGIN = new TopicPartition("orders", 2);
    private static final TopicPartition DESTINATION = new TopicPartition("A.orders", 2);

    private final FakeDestination destination = new FakeDestination();
    private final List<Long> rewritten = new ArrayList<>();
    private final CrashTakeover takeover = new CrashTakeover(TopicNamingPolicy.create("prefix", "A", "."),
            destination, rewritten::add);

    @Test
    void storedProgressWithADestinationOffsetCountsWhatThePredecessorWroteAfterIt() {
        destination.endOffsets.put(DESTINATION, 110L);
        destination.stored.put(ORIGIN, Map.of(SourceOffsets.OFFSET, 57L, SourceOffsets.DESTINATION_OFFSET, 104L));

        takeover.takeOverNewPartitions(deliveries(58, 59));

        assertThat(rewritten).as("offsets 105..109 were written after the stored progress").containsExactly(5L);
        assertThat(takeover.predictNext(ORIGIN)).isEqualTo(110);
        assertThat(takeover.predictNext(ORIGIN)).isEqualTo(111);
    }

    @Test
    void aPredecessorThatStoredItsProgressLastLeavesNothingToCount() {
        destination.endOffsets.put(DESTINATION, 105L);
        destination.stored.put(ORIGIN, Map.of(SourceOffsets.OFFSET, 57L, SourceOffsets.DESTINATION_OFFSET, 104L));

        takeover.takeOverNewPartitions(deliveries(58));

        assertThat(rewritten).isEmpty();
        assertThat(takeover.predictNext(ORIGIN)).isEqualTo(105);
    }

    @Test
    void withoutStoredProgressTheFirstRecordsAreSearchedAmongTheDestinationsLastOnes() {
        List<ReplicationReceiver.Delivery> firstRun = deliveries(0, 1, 2);
        long[] tail = new long[10];
        for (int i = 0; i < tail.length; i++) {
            tail[i] = 1000 + i; // records of someone else
        }
        // the predecessor wrote the first two records of the run at destination offsets 47 and 48 and crashed
        tail[7] = DestinationTail.fingerprint(firstRun.get(0).record(), true);
        tail[8] = DestinationTail.fingerprint(firstRun.get(1).record(), true);
        tail[9] = DestinationTail.fingerprint(firstRun.get(2).record(), true);
        destination.endOffsets.put(DESTINATION, 50L);
        destination.tail = new DestinationTail.Window(40, tail);

        takeover.takeOverNewPartitions(firstRun);

        assertThat(destination.tailsRead).containsExactly(DESTINATION);
        assertThat(rewritten).containsExactly(3L);
        assertThat(takeover.predictNext(ORIGIN)).isEqualTo(50);
    }

    @Test
    void anEmptyDestinationWithoutStoredProgressIsAFirstStart() {
        destination.endOffsets.put(DESTINATION, 0L);

        takeover.takeOverNewPartitions(deliveries(0, 1));

        assertThat(destination.tailsRead).as("nothing to search").isEmpty();
        assertThat(rewritten).isEmpty();
        assertThat(takeover.predictNext(ORIGIN)).isEqualTo(0);
    }

    @ParameterizedTest(name = "unreadable {0}")
    @ValueSource(strings = {"end offset", "stored progress", "tail"})
    void whatCannotBeReadIsNotCountedAndNeverFailsTheTakeover(String unreadable) {
        long endOffset = unreadable.equals("tail") ? 50L : 110L;
        if (!unreadable.equals("end offset")) {
            destination.endOffsets.put(DESTINATION, endOffset);
        }
        destination.storedFails = unreadable.equals("stored progress");
        destination.tailFails = unreadable.equals("tail");

        takeover.takeOverNewPartitions(deliveries(unreadable.equals("tail") ? 0 : 58));

        assertThat(rewritten).isEmpty();
        assertThat(takeover.predictNext(ORIGIN)).as("predictions need the end offset and the stored progress")
                .isEqualTo(unreadable.equals("tail") ? endOffset : DestinationOffsets.UNKNOWN);
    }

    @Test
    void aPartitionIsTakenOverOnceAndWritesCorrectThePredictions() {
        destination.endOffsets.put(DESTINATION, 10L);
        takeover.takeOverNewPartitions(deliveries(0));
        assertThat(takeover.predictNext(ORIGIN)).isEqualTo(10);
        assertThat(takeover.predictNext(ORIGIN)).isEqualTo(11);

        destination.endOffsets.put(DESTINATION, 99L);
        takeover.takeOverNewPartitions(deliveries(1));
        assertThat(destination.endOffsetReads).as("read at the first takeover only").isEqualTo(1);

        takeover.onWritten(ORIGIN, 10);
        takeover.onWritten(ORIGIN, 13); // another writer's two records landed before the second
        assertThat(takeover.predictNext(ORIGIN)).isEqualTo(14);
        takeover.onSkipped(new TopicPartition("other", 0)); // a partition never taken over: ignored
    }

    private static List<ReplicationReceiver.Delivery> deliveries(long... offsets) {
        List<ReplicationReceiver.Delivery> out = new ArrayList<>();
        for (long offset : offsets) {
            ReplicatedRecord record = new ReplicatedRecord(offset, 1_700_000_000_000L + offset,
                    TimestampType.CREATE_TIME, ("k" + offset).getBytes(), ("v" + offset).getBytes(), List.of());
            out.add(new ReplicationReceiver.Delivery(ORIGIN.topic(), ORIGIN.partition(), record,
                    ReplicationReceiver.Incarnation.UNKNOWN));
        }
        return out;
    }

    /** The destination cluster and stored progress as the takeover reads them. */
    private static final class FakeDestination implements CrashTakeover.Destination {
        final Map<TopicPartition, Long> endOffsets = new HashMap<>();
        final Map<TopicPartition, Map<String, Object>> stored = new HashMap<>();
        final List<TopicPartition> tailsRead = new ArrayList<>();
        DestinationTail.Window tail = new DestinationTail.Window(0, new long[0]);
        boolean storedFails;
        boolean tailFails;
        int endOffsetReads;

        @Override
        public long endOffset(String topic, int partition) {
            endOffsetReads++;
            Long end = endOffsets.get(new TopicPartition(topic, partition));
            if (end == null) {
                throw new TimeoutException("no answer for " + topic + "-" + partition);
            }
            return end;
        }

        @Override
        public Map<String, Object> storedOffset(TopicPartition origin) {
            if (storedFails) {
                throw new TimeoutException("offsets topic unreadable");
            }
            return stored.get(origin);
        }

        @Override
        public DestinationTail.Window tail(TopicPartition partition, long endOffset, boolean withTimestamps) {
            if (tailFails) {
                throw new TimeoutException("tail unreadable");
            }
            tailsRead.add(partition);
            return tail;
        }
    }
}
