package io.jetstream.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Collections;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class TopicIncarnationsTest {

    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);
    private static final Uuid OLD = Uuid.randomUuid();
    private static final Uuid NEW = Uuid.randomUuid();

    private final FakeSourceCluster source = new FakeSourceCluster("source down");
    private final TopicIncarnations incarnations = new TopicIncarnations(source);

    /** A put that the task accepts: checked, then committed. */
    private List<TopicIncarnations.Change> check(TopicPartition partition, long... offsets) {
        return put(Collections.nCopies(offsets.length, partition), offsets);
    }

    private List<TopicIncarnations.Change> put(List<TopicPartition> partitions, long[] offsets) {
        List<TopicIncarnations.Change> changes = incarnations.check(partitions, offsets);
        incarnations.commit();
        return changes;
    }

    @Test
    void aPartitionsFirstRecordsAfterAnAssignmentReadTheIdOnceForAllPartitionsOfThePut() {
        source.ids.put("t", OLD);
        incarnations.assign(List.of(P0, P1));
        List<TopicIncarnations.Change> changes = put(List.of(P0, P1, P0, P1), new long[] {5, 7, 6, 8});
        assertThat(changes).containsExactly(
                new TopicIncarnations.Change(0, P0, null, OLD, TopicIncarnations.Change.NO_REWIND),
                new TopicIncarnations.Change(1, P1, null, OLD, TopicIncarnations.Change.NO_REWIND));
        assertThat(changes).allMatch(TopicIncarnations.Change::first);
        assertThat(source.asked).containsExactly("ids [t]");

        assertThat(check(P0, 7, 8, 20)).as("forward, compaction jumps included").isEmpty();
        assertThat(source.asked).as("nothing asked while offsets go forward").hasSize(1);
        assertThat(incarnations.recreations()).isZero();
    }

    @Test
    void offsetsGoingBackwardsUnderANewIdStartTheNewIncarnationAtThatRecord() {
        source.ids.put("t", OLD);
        check(P0, 998, 999);
        source.ids.put("t", NEW);
        List<TopicIncarnations.Change> changes = check(P0, 0, 1, 2);
        assertThat(changes).containsExactly(new TopicIncarnations.Change(0, P0, OLD, NEW,
                TopicIncarnations.Change.NO_REWIND));
        assertThat(incarnations.recreations()).isEqualTo(1);
        assertThat(check(P0, 3, 4)).as("the new incarnation goes on").isEmpty();
    }

    @Test
    void aChangeInTheMiddleOfAPutSplitsItThere() {
        source.ids.put("t", OLD);
        check(P0, 10);
        source.ids.put("t", NEW);
        assertThat(check(P0, 11, 12, 0, 1)).containsExactly(new TopicIncarnations.Change(2, P0, OLD, NEW,
                TopicIncarnations.Change.NO_REWIND));
    }

    @Test
    void offsetsGoingBackwardsUnderTheSameIdAreATruncationNotANewIncarnation() {
        source.ids.put("t", OLD);
        check(P0, 100, 101);
        assertThat(check(P0, 90, 91)).isEmpty();
        assertThat(incarnations.truncations()).isEqualTo(1);
        assertThat(incarnations.recreations()).isZero();
    }

    @Test
    void aRefreshedIdThatDiffersRewindsThePartitionToTheNewLogsStart() {
        source.ids.put("t", OLD);
        check(P0, 5);
        check(P1, 9);
        source.ids.put("t", NEW);
        source.logStart.put(P0, 0L);
        incarnations.observed("t", NEW);
        List<TopicIncarnations.Change> changes = put(List.of(P0, P1, P0), new long[] {6, 10, 7});
        assertThat(changes).containsExactly(
                new TopicIncarnations.Change(0, P0, OLD, NEW, 0),
                new TopicIncarnations.Change(1, P1, OLD, NEW, 0));
        assertThat(changes).allMatch(TopicIncarnations.Change::rewinds);
        assertThat(incarnations.recreations()).isEqualTo(2);

        assertThat(check(P0, 0, 1, 2, 3, 4, 5, 6, 7)).as("read again from the start under the new id").isEmpty();
    }

    @Test
    void aStaleObservationIsCheckedOnceAndChangesNothing() {
        source.ids.put("t", NEW);
        check(P0, 5);
        incarnations.observed("t", OLD); // a description older than the one the partition has
        assertThat(check(P0, 6)).isEmpty();
        assertThat(source.asked).hasSize(2);
        assertThat(check(P0, 7)).isEmpty();
        assertThat(source.asked).as("the fresh answer replaced the stale observation").hasSize(2);
    }

    @Test
    void aTopicThatNoLongerExistsKeepsItsPartitionsIncarnation() {
        source.ids.put("t", OLD);
        check(P0, 50);
        source.ids.remove("t");
        assertThat(check(P0, 0)).as("deleted, not recreated yet: no new id to switch to").isEmpty();
        assertThat(incarnations.truncations()).isEqualTo(1);
    }

    @Test
    void nothingChangesWhenTheSourceCannotAnswer() {
        source.ids.put("t", OLD);
        check(P0, 998, 999);
        source.ids.put("t", NEW);
        source.down = true;
        assertThatThrownBy(() -> check(P0, 0, 1)).hasMessageContaining("source down");
        source.down = false;
        assertThat(check(P0, 0, 1)).as("the same records checked again").containsExactly(
                new TopicIncarnations.Change(0, P0, OLD, NEW, TopicIncarnations.Change.NO_REWIND));
    }

    @Test
    void aPutHandedOverAgainIsNotTakenForOffsetsGoingBackwards() {
        source.ids.put("t", OLD);
        check(P0, 5, 6);
        assertThat(incarnations.check(List.of(P0, P0), new long[] {7, 8})).isEmpty(); // the put fails later
        assertThat(check(P0, 7, 8)).as("the same records again").isEmpty();
        assertThat(incarnations.truncations()).isZero();
        assertThat(source.asked).as("asked once, for the first records").hasSize(1);

        source.ids.put("t", NEW);
        List<TopicIncarnations.Change> first = incarnations.check(List.of(P0), new long[] {0});
        assertThat(incarnations.recreations()).as("counted once committed").isZero();
        assertThat(check(P0, 0)).as("found again when handed over again").isEqualTo(first);
        assertThat(incarnations.recreations()).isEqualTo(1);
    }

    @Test
    void anAssignmentForgetsThePartitionsIncarnation() {
        source.ids.put("t", OLD);
        check(P0, 5);
        source.ids.put("t", NEW);
        incarnations.revoke(List.of(P0));
        incarnations.assign(List.of(P0));
        assertThat(check(P0, 0)).containsExactly(new TopicIncarnations.Change(0, P0, null, NEW,
                TopicIncarnations.Change.NO_REWIND));
        assertThat(incarnations.recreations()).as("the destination tells the incarnations apart").isZero();
    }
}
