package io.jetstream.kafka.core.offsets;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Moves a consumer group's committed positions between the sites through the offset map: reads the
 * group's positions on one side, translates them exactly ({@link OffsetTranslator}), and commits the
 * translations on the other side when the group has no active member there. What
 * {@code ./jetstream offsets translate} runs.
 */
public final class GroupOffsetTranslation {

    /** Which way a group moves. */
    public enum Direction {
        /** Failover: positions committed at the origin become positions on the replicas at the destination. */
        TO_DESTINATION,
        /** Failback: positions committed on the replicas at the destination become positions at the origin. */
        TO_ORIGIN
    }

    /** One partition's position before and after translation. */
    public record Row(int partition, String fromTopic, long fromOffset, String toTopic,
                      OffsetTranslator.Translation translation) {
    }

    private GroupOffsetTranslation() {
    }

    /**
     * The group's positions on {@code originTopic} (or its replica) read with {@code from} (the
     * origin cluster's Admin for {@link Direction#TO_DESTINATION}, the destination's otherwise),
     * translated with {@code map} (the origin topic's translators by origin partition) for the origin
     * topic's incarnation {@code originTopicId} ({@link #originTopicId}). Partitions the group has no
     * position on are left out.
     */
    public static List<Row> translate(Admin from, Uuid originTopicId, String group, String originTopic,
                                      Map<TopicPartition, OffsetTranslator> map, Direction direction,
                                      Duration timeout) throws Exception {
        String fromTopic = direction == Direction.TO_DESTINATION ? originTopic : destinationTopic(originTopic, map);
        Map<TopicPartition, Long> committed = new HashMap<>();
        from.listConsumerGroupOffsets(group, new ListConsumerGroupOffsetsOptions().timeoutMs((int) timeout.toMillis()))
                .partitionsToOffsetAndMetadata().get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .forEach((tp, position) -> {
                    if (position != null && tp.topic().equals(fromTopic)) {
                        committed.put(tp, position.offset());
                    }
                });
        return rows(committed, originTopicId, originTopic, map, direction);
    }

    /**
     * The translations of a group's committed positions on {@code originTopic} (or, going back, on its
     * replica): positions on other topics are left out. A position translates only through entries of
     * the origin topic's incarnation {@code originTopicId}: entries of an incarnation deleted since
     * answer {@link OffsetTranslator.Status#OTHER_INCARNATION}, never a position in the wrong topic.
     */
    public static List<Row> rows(Map<TopicPartition, Long> committed, Uuid originTopicId, String originTopic,
                                 Map<TopicPartition, OffsetTranslator> map, Direction direction) {
        String destinationTopic = destinationTopic(originTopic, map);
        String fromTopic = direction == Direction.TO_DESTINATION ? originTopic : destinationTopic;
        String toTopic = direction == Direction.TO_DESTINATION ? destinationTopic : originTopic;
        List<Row> rows = new ArrayList<>();
        committed.forEach((tp, position) -> {
            if (!tp.topic().equals(fromTopic)) {
                return;
            }
            OffsetTranslator translator = map.get(new TopicPartition(originTopic, tp.partition()));
            OffsetTranslator.Translation translation;
            if (translator == null) {
                translation = new OffsetTranslator.Translation(OffsetTranslator.Status.BEFORE_MAP, -1);
            } else if (direction == Direction.TO_DESTINATION) {
                translation = translator.toDestination(originTopicId, position);
            } else {
                translation = translator.toOrigin(originTopicId, position);
            }
            rows.add(new Row(tp.partition(), fromTopic, position, toTopic, translation));
        });
        rows.sort(Comparator.comparingInt(Row::partition));
        return rows;
    }

    /**
     * The origin topic's id now, read with the origin cluster's Admin: its current incarnation;
     * {@link Uuid#ZERO_UUID} when the topic does not exist.
     */
    public static Uuid originTopicId(Admin origin, String topic, Duration timeout) throws Exception {
        return originTopicIds(origin, List.of(topic), timeout).get(topic);
    }

    /** {@link #originTopicId} of several topics, with one request. */
    public static Map<String, Uuid> originTopicIds(Admin origin, Collection<String> topics, Duration timeout)
            throws Exception {
        Map<String, KafkaFuture<TopicDescription>> described = origin.describeTopics(topics,
                new DescribeTopicsOptions().timeoutMs((int) timeout.toMillis())).topicNameValues();
        Map<String, Uuid> ids = new HashMap<>();
        for (Map.Entry<String, KafkaFuture<TopicDescription>> topic : described.entrySet()) {
            try {
                ids.put(topic.getKey(), topic.getValue().get(timeout.toMillis(), TimeUnit.MILLISECONDS).topicId());
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
                ids.put(topic.getKey(), Uuid.ZERO_UUID);
            }
        }
        return ids;
    }

    /**
     * Why the positions of {@code topic} did not translate when the map holds another incarnation
     * of it: for the command's output and the connector's log.
     */
    public static String otherIncarnation(String topic, Uuid current, Uuid mapped) {
        String now = Uuid.ZERO_UUID.equals(current) ? "does not exist at the origin now"
                : "is topic id " + current + " at the origin now";
        return topic + " " + now + ", but the offset map's entries are of topic id " + mapped + " (the topic was "
                + "deleted" + (Uuid.ZERO_UUID.equals(current) ? "" : " and recreated") + " after them): no position of "
                + "the current topic is in the map, and one of the old topic's would point into the wrong records";
    }

    private static String destinationTopic(String originTopic, Map<TopicPartition, OffsetTranslator> map) {
        return map.values().stream().map(OffsetTranslator::destinationTopic)
                .filter(t -> t != null).findFirst().orElseThrow(() -> new IllegalStateException(
                        "the offset map holds no entry of " + originTopic + ": it was never replicated with the "
                                + "offset map on, or its entries expired"));
    }

    /**
     * Commits the exact translations for {@code group} with {@code to} (the other side's Admin).
     * Refuses, naming the reason, when the group has active members there (they own their
     * positions) or when any row is not exact (a partial move would leave the group half here, half
     * there); nothing is committed then.
     */
    public static void commit(Admin to, String group, List<Row> rows, Duration timeout) throws Exception {
        List<Row> inexact = rows.stream().filter(row -> !row.translation().exact()).toList();
        if (!inexact.isEmpty()) {
            throw new IllegalStateException("not every position translates exactly, nothing committed: " + inexact);
        }
        int members = activeMembers(to, group, timeout);
        if (members > 0) {
            throw new IllegalStateException("group " + group + " has " + members + " active member(s) on this side; "
                    + "stop them first, nothing committed");
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (Row row : rows) {
            offsets.put(new TopicPartition(row.toTopic(), row.partition()),
                    new OffsetAndMetadata(row.translation().offset()));
        }
        to.alterConsumerGroupOffsets(group, offsets).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Active members of the group on a cluster; 0 when the group does not exist there. */
    public static int activeMembers(Admin admin, String group, Duration timeout)
            throws InterruptedException, TimeoutException, ExecutionException {
        try {
            ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group),
                            new DescribeConsumerGroupsOptions().timeoutMs((int) timeout.toMillis()))
                    .describedGroups().get(group).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return description.members().size();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return 0;
            }
            throw e;
        }
    }
}
