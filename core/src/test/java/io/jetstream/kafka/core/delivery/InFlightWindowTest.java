package io.jetstream.kafka.core.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class InFlightWindowTest {

    private final List<String> released = new ArrayList<>();
    private final InFlightWindow<String> window = new InFlightWindow<>(released::add);
    private final TopicPartition p0 = new TopicPartition("t", 0);
    private final TopicPartition p1 = new TopicPartition("t", 1);

    @Test
    void commitsOnlyThroughTheLongestAcknowledgedPrefix() {
        window.add(1, p0, 9, 10, 100, "b1", 0, 20);
        window.add(2, p0, 19, 10, 100, "b2", 0, 20);
        window.add(3, p0, 29, 10, 100, "b3", 0, 20);
        assertThat(window.committableOffset(p0)).isEmpty();

        window.ack(2);
        assertThat(window.committableOffset(p0)).as("b1 is not acknowledged yet").isEmpty();
        assertThat(window.bytes()).isEqualTo(300);

        window.ack(1);
        assertThat(window.committableOffset(p0)).isEqualTo(OptionalLong.of(20));
        assertThat(released).containsExactly("b1", "b2");
        assertThat(window.bytes()).isEqualTo(100);

        window.ack(3);
        assertThat(window.committableOffset(p0)).isEqualTo(OptionalLong.of(30));
        assertThat(window.size()).isZero();
    }

    @Test
    void aReplacementTakesTheRefusedBatchsPlaceSoTheCommitPassesItOnlyOnceTheReplacementIsAcknowledged() {
        window.add(1, p0, 9, 10, 100, "b1", 0, 20);
        InFlightWindow.Entry<String> refused = window.add(2, p0, 19, 10, 100, "refused", 0, 20);
        window.add(3, p0, 29, 10, 100, "b3", 0, 20);
        window.ack(1);
        window.ack(3);
        assertThat(window.committableOffset(p0)).isEqualTo(OptionalLong.of(10));

        InFlightWindow.Entry<String> marker = window.replace(refused, 7, 19, 0, 5, "marker", 30, 30);
        assertThat(released).containsExactly("b1", "refused");
        assertThat(window.get(2)).as("answers to the refused batch's id are unknown now").isNull();
        assertThat(window.ack(2)).isNull();
        assertThat(window.bytes()).isEqualTo(105);
        assertThat(window.unackedRecords()).isZero();
        assertThat(window.isOldestUnacked(marker)).isTrue();
        assertThat(window.committableOffset(p0)).isEqualTo(OptionalLong.of(10));

        window.ack(7);
        assertThat(window.committableOffset(p0)).as("past the skipped batch and its acknowledged successor")
                .isEqualTo(OptionalLong.of(30));
        assertThat(window.size()).isZero();
        assertThat(window.bytes()).isZero();
        assertThatThrownBy(() -> window.replace(marker, 8, 19, 0, 5, "again", 40, 40))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void countsWhatIsStillUnacknowledgedApartFromAcknowledgedBatchesHeldForAPredecessor() {
        window.add(1, p0, 9, 10, 100, "b1", 0, 20);
        window.add(2, p0, 19, 7, 70, "b2", 0, 20);
        window.add(3, p1, 4, 5, 50, "c1", 0, 20);
        assertThat(window.unackedRecords()).isEqualTo(22);

        window.ack(2); // held: b1 is not acknowledged yet
        assertThat(window.records()).isEqualTo(22);
        assertThat(window.unackedRecords()).isEqualTo(15);
        assertThat(window.unackedBytes()).isEqualTo(150);

        window.ack(1);
        assertThat(window.records()).isEqualTo(5);
        assertThat(window.unackedRecords()).isEqualTo(5);

        window.ack(3);
        window.add(4, p0, 29, 3, 30, "b4", 0, 20);
        window.add(5, p0, 39, 2, 20, "b5", 0, 20);
        window.ack(5);
        window.revoke(List.of(p0));
        assertThat(window.records()).isZero();
        assertThat(window.unackedRecords()).isZero();
        assertThat(window.unackedBytes()).isZero();
    }

    @Test
    void lateAndDuplicateAcknowledgementsAreIgnored() {
        window.add(1, p0, 9, 10, 100, "b1", 0, 20);
        assertThat(window.ack(1)).isNotNull();
        assertThat(window.ack(1)).isNull();
        assertThat(window.ack(77)).isNull();
        assertThat(released).containsExactly("b1");
    }

    @Test
    void revocationReleasesPayloadsAndForgetsTheirAcks() {
        window.add(1, p0, 9, 10, 100, "b1", 0, 20);
        window.add(2, p1, 9, 10, 50, "c1", 0, 20);
        window.revoke(List.of(p0));
        assertThat(released).containsExactly("b1");
        assertThat(window.bytes()).isEqualTo(50);
        assertThat(window.ack(1)).isNull();
        assertThat(window.committableOffset(p0)).isEmpty();
        window.clear();
        assertThat(released).containsExactly("b1", "c1");
        assertThat(window.bytes()).isZero();
    }

    @Test
    void dueListsUnacknowledgedBatchesOldestFirst() {
        InFlightWindow.Entry<String> old = window.add(1, p0, 9, 10, 100, "b1", 0, 20);
        window.add(2, p1, 9, 10, 100, "c1", 50, 70);
        window.add(3, p0, 19, 10, 100, "b2", 90, 110);
        assertThat(window.due(100)).extracting(InFlightWindow.Entry::batchId).containsExactly(1L, 2L);
        window.resent(old, 100, 120);
        assertThat(old.attempts()).isEqualTo(2);
        assertThat(window.due(100)).extracting(InFlightWindow.Entry::batchId).containsExactly(2L);
        window.retryAt(old, 95);
        assertThat(window.due(100)).as("oldest batch first, whatever the deadlines")
                .extracting(InFlightWindow.Entry::batchId).containsExactly(1L, 2L);
    }

    @Test
    void rejectsAnIdAlreadyInFlight() {
        window.add(1, p0, 9, 10, 100, "b1", 0, 20);
        assertThatThrownBy(() -> window.add(1, p0, 19, 10, 100, "b2", 0, 20)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void dueFollowsMovedDeadlinesInIdOrderAndNeverReturnsAcknowledgedOrRevokedBatches() {
        InFlightWindow.Entry<String> b1 = window.add(1, p0, 9, 10, 100, "b1", 0, 50);
        InFlightWindow.Entry<String> b2 = window.add(2, p0, 19, 10, 100, "b2", 0, 10);
        window.add(3, p1, 4, 5, 50, "c1", 0, 10);
        InFlightWindow.Entry<String> c2 = window.add(4, p1, 9, 5, 50, "c2", 0, 30);
        assertThat(window.due(5)).isEmpty();
        assertThat(window.due(10)).extracting(InFlightWindow.Entry::batchId).containsExactly(2L, 3L);

        window.resent(b2, 10, 100); // sent again: due later
        window.retryAt(b1, 20);     // a NACK: due sooner
        window.ack(3);
        assertThat(window.due(25)).extracting(InFlightWindow.Entry::batchId).containsExactly(1L);
        assertThat(window.due(40)).as("in id order, whatever the deadlines")
                .extracting(InFlightWindow.Entry::batchId).containsExactly(1L, 4L);

        window.revoke(List.of(p1));
        assertThat(window.due(1_000)).extracting(InFlightWindow.Entry::batchId).containsExactly(1L, 2L);
        assertThat(window.hasUnacked(p1)).isFalse();
        assertThat(window.hasUnacked(p0)).isTrue();
        window.ack(2);
        assertThat(window.unackedBytes(p0)).as("b2 acknowledged, held behind b1").isEqualTo(100);
        assertThat(window.entries(p0)).extracting(InFlightWindow.Entry::batchId).containsExactly(1L, 2L);
        window.ack(1);
        assertThat(window.hasUnacked(p0)).isFalse();
        assertThat(window.due(1_000)).isEmpty();
        assertThat(c2.acked()).isFalse();
    }
}
