package io.jetstream.kafka.sink.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.offsets.OffsetMapEntry;
import io.jetstream.kafka.core.offsets.OffsetTranslator;
import io.jetstream.kafka.sink.config.CheckpointConfigs;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class GroupCheckpointsTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition REPLICA_0 = new TopicPartition("A.orders", 0);

    /** Origin offsets 0..9 at destination 100..109, then a marker; 10..19 at 111..120. */
    private static Map<TopicPartition, OffsetTranslator> map() {
        OffsetTranslator translator = new OffsetTranslator();
        translator.add(new OffsetMapEntry("A", "orders", 0, Uuid.ZERO_UUID, "A.orders", -1,
                List.of(new OffsetMapEntry.Segment(0, 100, 10)), 1, false));
        translator.add(new OffsetMapEntry("A", "orders", 0, Uuid.ZERO_UUID, "A.orders", 9,
                List.of(new OffsetMapEntry.Segment(10, 111, 10)), 1, false));
        return Map.of(ORDERS_0, translator);
    }

    private static final class Sites implements GroupCheckpoints.Origin, GroupCheckpoints.Destination {
        final Map<String, Map<TopicPartition, Long>> origin = new HashMap<>();
        final Map<String, Map<TopicPartition, Long>> destination = new HashMap<>();
        final Map<String, Integer> members = new HashMap<>();
        final List<GroupCheckpoints.Checkpoint> written = new ArrayList<>();
        final Map<String, Uuid> topicIds = new HashMap<>();
        Map<TopicPartition, OffsetTranslator> map = GroupCheckpointsTest.map();

        @Override
        public List<String> groups() {
            return new ArrayList<>(origin.keySet());
        }

        @Override
        public Map<TopicPartition, Long> committed(String group) {
            return origin.getOrDefault(group, Map.of());
        }

        @Override
        public Map<String, Uuid> topicIds(Collection<String> topics) {
            Map<String, Uuid> ids = new HashMap<>();
            topics.forEach(topic -> ids.put(topic, topicIds.getOrDefault(topic, Uuid.ZERO_UUID)));
            return ids;
        }

        @Override
        public int activeMembers(String group) {
            return members.getOrDefault(group, 0);
        }

        Map<TopicPartition, Long> at(String group) {
            return destination.computeIfAbsent(group, g -> new HashMap<>());
        }

        @Override
        public void commit(String group, Map<TopicPartition, Long> positions) {
            at(group).putAll(positions);
        }

        @Override
        public void write(List<GroupCheckpoints.Checkpoint> checkpoints) {
            written.addAll(checkpoints);
        }
    }

    private static GroupCheckpoints checkpoints(Sites sites, boolean sync, AtomicLong clock) {
        CheckpointConfigs.GroupFilter filter = new CheckpointConfigs.GroupFilter(List.of(Pattern.compile(".*")),
                List.of(Pattern.compile("connect-.*")));
        // the destination view of committed positions is the same fake
        GroupCheckpoints.Destination destination = new GroupCheckpoints.Destination() {
            @Override
            public int activeMembers(String group) {
                return sites.activeMembers(group);
            }

            @Override
            public Map<TopicPartition, Long> committed(String group) {
                return sites.at(group);
            }

            @Override
            public void commit(String group, Map<TopicPartition, Long> positions) {
                sites.commit(group, positions);
            }

            @Override
            public void write(List<GroupCheckpoints.Checkpoint> checkpoints) {
                sites.write(checkpoints);
            }
        };
        return new GroupCheckpoints(filter, sites, destination, () -> sites.map, sync, 60_000, clock::get);
    }

    @Test
    void checkpointsExactTranslationsOfTheGroupsTheFiltersAccept() throws Exception {
        Sites sites = new Sites();
        sites.origin.put("app", Map.of(ORDERS_0, 10L, new TopicPartition("not-replicated", 0), 5L));
        sites.origin.put("connect-worker", Map.of(ORDERS_0, 3L));
        sites.origin.put("ahead", Map.of(ORDERS_0, 25L));  // read records not replicated yet
        GroupCheckpoints.Round round = checkpoints(sites, false, new AtomicLong()).run();
        assertThat(sites.written).containsExactly(new GroupCheckpoints.Checkpoint("app", ORDERS_0, 10, REPLICA_0, 111));
        assertThat(round).isEqualTo(new GroupCheckpoints.Round(1, 1, 1, 0));
        assertThat(sites.destination).isEmpty();
    }

    @Test
    void syncCommitsIntoIdleGroupsOnlyForwardAndOnlyEverySyncInterval() throws Exception {
        Sites sites = new Sites();
        sites.origin.put("idle", Map.of(ORDERS_0, 5L));
        sites.origin.put("busy", Map.of(ORDERS_0, 5L));
        sites.origin.put("further", Map.of(ORDERS_0, 5L));
        sites.members.put("busy", 2);
        sites.at("further").put(REPLICA_0, 118L);
        AtomicLong clock = new AtomicLong(1_000);
        GroupCheckpoints checkpoints = checkpoints(sites, true, clock);
        assertThat(checkpoints.run().synced()).isEqualTo(1);
        assertThat(sites.at("idle")).containsEntry(REPLICA_0, 105L);
        assertThat(sites.at("busy")).isEmpty();
        assertThat(sites.at("further")).containsEntry(REPLICA_0, 118L);

        sites.origin.put("idle", Map.of(ORDERS_0, 12L));
        clock.addAndGet(30_000);
        assertThat(checkpoints.run().synced()).as("within the sync interval").isZero();
        clock.addAndGet(30_000);
        assertThat(checkpoints.run().synced()).isEqualTo(1);
        assertThat(sites.at("idle")).containsEntry(REPLICA_0, 113L);
    }

    @Test
    void aRecreatedTopicsPositionsAreNeitherCheckpointedNorSyncedThroughTheOldIncarnationsEntries() throws Exception {
        Uuid old = Uuid.randomUuid();
        Uuid recreated = Uuid.randomUuid();
        Sites sites = new Sites();
        OffsetTranslator translator = new OffsetTranslator();
        translator.add(new OffsetMapEntry("A", "orders", 0, old, "A.orders", -1,
                List.of(new OffsetMapEntry.Segment(0, 100, 10)), 1, false));
        sites.map = Map.of(ORDERS_0, translator);
        sites.topicIds.put("orders", old);
        sites.origin.put("app", Map.of(ORDERS_0, 4L));
        GroupCheckpoints checkpoints = checkpoints(sites, true, new AtomicLong());
        assertThat(checkpoints.run().synced()).isEqualTo(1);
        assertThat(sites.at("app")).containsEntry(REPLICA_0, 104L);

        // orders is deleted and recreated; its new incarnation is not in the map yet. The group reads
        // the new topic up to 7: the old entries would put it at 107, past records it never read.
        sites.topicIds.put("orders", recreated);
        sites.origin.put("app", Map.of(ORDERS_0, 7L));
        sites.written.clear();
        GroupCheckpoints.Round round = checkpoints(sites, true, new AtomicLong()).run();
        assertThat(round).isEqualTo(new GroupCheckpoints.Round(0, 0, 1, 0));
        assertThat(sites.written).isEmpty();
        assertThat(sites.at("app")).containsEntry(REPLICA_0, 104L);
    }
}
