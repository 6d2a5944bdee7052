package io.jetstream.kafka.core.offsets;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.offsets.GroupOffsetTranslation.Direction;
import io.jetstream.kafka.core.offsets.GroupOffsetTranslation.Row;
import io.jetstream.kafka.core.offsets.OffsetTranslator.Status;
import io.jetstream.kafka.core.offsets.OffsetTranslator.Translation;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class GroupOffsetTranslationTest {

    private static final Uuid OLD = Uuid.randomUuid();
    private static final Uuid RECREATED = Uuid.randomUuid();
    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition REPLICA_0 = new TopicPartition("A.orders", 0);

    /** The old incarnation of orders-0: origin 0..9 at destination 100..109, a marker after them. */
    private static Map<TopicPartition, OffsetTranslator> mapOf(Uuid topicId) {
        OffsetTranslator translator = new OffsetTranslator();
        translator.add(new OffsetMapEntry("A", "orders", 0, topicId, "A.orders", -1,
                List.of(new OffsetMapEntry.Segment(0, 100, 10)), 1, false));
        return Map.of(ORDERS_0, translator);
    }

    @Test
    void positionsOfTheIncarnationTheMapHoldsTranslateExactlyBothWays() {
        assertThat(GroupOffsetTranslation.rows(Map.of(ORDERS_0, 4L), OLD, "orders", mapOf(OLD),
                Direction.TO_DESTINATION)).containsExactly(
                new Row(0, "orders", 4, "A.orders", new Translation(Status.EXACT, 104)));
        assertThat(GroupOffsetTranslation.rows(Map.of(REPLICA_0, 104L), OLD, "orders", mapOf(OLD),
                Direction.TO_ORIGIN)).containsExactly(
                new Row(0, "A.orders", 104, "orders", new Translation(Status.EXACT, 4)));
    }

    @Test
    void aRecreatedTopicsPositionsDoNotTranslateThroughTheOldIncarnationsEntries() {
        // The topic was deleted and recreated; its new incarnation is not in the map yet. The group's
        // position 4 is in the new topic: the old entries would say 104, a position in the old records.
        assertThat(GroupOffsetTranslation.rows(Map.of(ORDERS_0, 4L), RECREATED, "orders", mapOf(OLD),
                Direction.TO_DESTINATION)).containsExactly(
                new Row(0, "orders", 4, "A.orders", new Translation(Status.OTHER_INCARNATION, -1)));
        // Back to a recreated origin: 4 would be a position in the new topic's records, not the old ones'.
        assertThat(GroupOffsetTranslation.rows(Map.of(REPLICA_0, 104L), RECREATED, "orders", mapOf(OLD),
                Direction.TO_ORIGIN)).containsExactly(
                new Row(0, "A.orders", 104, "orders", new Translation(Status.OTHER_INCARNATION, -1)));
    }

    @Test
    void anOriginTopicThatNoLongerExistsHasNoTranslation() {
        assertThat(GroupOffsetTranslation.rows(Map.of(REPLICA_0, 104L), Uuid.ZERO_UUID, "orders", mapOf(OLD),
                Direction.TO_ORIGIN)).extracting(row -> row.translation().status())
                .containsExactly(Status.OTHER_INCARNATION);
    }

    @Test
    void entriesWrittenWithoutATopicIdCannotBeCheckedAndTranslate() {
        assertThat(GroupOffsetTranslation.rows(Map.of(ORDERS_0, 4L), RECREATED, "orders", mapOf(Uuid.ZERO_UUID),
                Direction.TO_DESTINATION)).extracting(Row::translation)
                .containsExactly(new Translation(Status.EXACT, 104));
    }

    @Test
    void theReasonNamesBothIncarnations() {
        assertThat(GroupOffsetTranslation.otherIncarnation("orders", RECREATED, OLD))
                .contains("orders is topic id " + RECREATED).contains("entries are of topic id " + OLD)
                .contains("deleted and recreated");
        assertThat(GroupOffsetTranslation.otherIncarnation("orders", Uuid.ZERO_UUID, OLD))
                .contains("orders does not exist at the origin now");
    }
}
