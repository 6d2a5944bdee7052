package io.jetstream.kafka.core.offsets;

import java.time.Duration;
import java.util.ArrayList;
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
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

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
     * translated with {@code map} (the origin topic's translators by origin partition). Partitions
     * the group has no position on are left out.
     */
    public static List<Row> translate(Admin from, String group, String originTopic,
                                      Map<TopicPartition, OffsetTranslator> map, Direction direction,
                                      Duration timeout) throws Exception {
        String destinationTopic = map.values().stream().map(OffsetTranslator::destinationTopic)
                .filter(t -> t != null).findFirst().orElseThrow(() -> new IllegalStateException(
                        "the offset map holds no entry of " + originTopic + ": it was never replicated with the "
                                + "offset map on, or its entries expired"));
        String fromTopic = direction == Direction.TO_DESTINATION ? originTopic : destinationTopic;
        String toTopic = direction == Direction.TO_DESTINATION ? destinationTopic : originTopic;
        Map<TopicPartition, OffsetAndMetadata> committed = from.listConsumerGroupOffsets(group,
                        new ListConsumerGroupOffsetsOptions().timeoutMs((int) timeout.toMillis()))
                .partitionsToOffsetAndMetadata().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        List<Row> rows = new ArrayList<>();
        committed.forEach((tp, position) -> {
            if (position == null || !tp.topic().equals(fromTopic)) {
                return;
            }
            OffsetTranslator translator = map.get(new TopicPartition(originTopic, tp.partition()));
            OffsetTranslator.Translation translation;
            if (translator == null) {
                translation = new OffsetTranslator.Translation(OffsetTranslator.Status.BEFORE_MAP, -1);
            } else if (direction == Direction.TO_DESTINATION) {
                translation = translator.toDestination(position.offset());
            } else {
                translation = translator.toOrigin(position.offset());
            }
            rows.add(new Row(tp.partition(), fromTopic, position.offset(), toTopic, translation));
        });
        rows.sort(Comparator.comparingInt(Row::partition));
        return rows;
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
