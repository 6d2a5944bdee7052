package io.jetstream.kafka.sink.checkpoint;

import io.jetstream.kafka.core.offsets.GroupOffsetTranslation;
import io.jetstream.kafka.core.offsets.OffsetTranslator;
import io.jetstream.kafka.sink.config.CheckpointConfigs;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One round of consumer group checkpoints, free of Kafka Connect types: reads the committed
 * positions of the source cluster's groups, translates those on replicated partitions exactly
 * through the offset map, hands them to be written as checkpoints, and (when asked) commits them
 * into the groups at the destination that have no active member there, never moving a group's
 * position backwards. Positions that do not translate exactly are skipped and counted, never
 * guessed; so are positions on an origin topic whose current incarnation (topic id) is not the one
 * the map's entries describe (deleted and recreated since).
 *
 * <p>Threads: one caller at a time (the connector's checkpoint thread).
 */
final class GroupCheckpoints {

    private static final Logger log = LoggerFactory.getLogger(GroupCheckpoints.class);

    /** The source cluster's groups. */
    interface Origin {
        Collection<String> groups() throws Exception;

        Map<TopicPartition, Long> committed(String group) throws Exception;

        /**
         * The topics' ids now (their current incarnations); a topic that does not exist maps to
         * {@link Uuid#ZERO_UUID} or is left out.
         */
        Map<String, Uuid> topicIds(Collection<String> topics) throws Exception;
    }

    /** The destination cluster's groups and the checkpoints topic. */
    interface Destination {
        int activeMembers(String group) throws Exception;

        Map<TopicPartition, Long> committed(String group) throws Exception;

        void commit(String group, Map<TopicPartition, Long> positions) throws Exception;

        void write(List<Checkpoint> checkpoints) throws Exception;
    }

    /** The offset map as read so far, by origin partition. */
    interface OffsetMap {
        Map<TopicPartition, OffsetTranslator> refresh() throws Exception;
    }

    /** A group's position at the origin and its exact translation at the destination. */
    record Checkpoint(String group, TopicPartition origin, long upstreamOffset, TopicPartition downstream,
                      long downstreamOffset) {
    }

    /** What a round did. */
    record Round(int groups, int checkpoints, int inexact, int synced) {
    }

    private final CheckpointConfigs.GroupFilter filter;
    private final Origin origin;
    private final Destination destination;
    private final OffsetMap map;
    private final boolean sync;
    private final long syncIntervalMillis;
    private final LongSupplier clock;
    private long lastSync = Long.MIN_VALUE;
    private final Set<String> warnedIncarnations = new HashSet<>();

    GroupCheckpoints(CheckpointConfigs.GroupFilter filter, Origin origin, Destination destination, OffsetMap map,
                     boolean sync, long syncIntervalMillis, LongSupplier clock) {
        this.filter = Objects.requireNonNull(filter, "filter");
        this.origin = Objects.requireNonNull(origin, "origin");
        this.destination = Objects.requireNonNull(destination, "destination");
        this.map = Objects.requireNonNull(map, "map");
        this.sync = sync;
        this.syncIntervalMillis = syncIntervalMillis;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    Round run() throws Exception {
        Map<TopicPartition, OffsetTranslator> translators = map.refresh();
        Set<String> mappedTopics = new HashSet<>();
        translators.keySet().forEach(tp -> mappedTopics.add(tp.topic()));
        Map<String, Uuid> topicIds = mappedTopics.isEmpty() ? Map.of() : origin.topicIds(mappedTopics);
        long now = clock.getAsLong();
        boolean syncNow = sync && (lastSync == Long.MIN_VALUE || now - lastSync >= syncIntervalMillis);
        int groups = 0;
        int written = 0;
        int inexact = 0;
        int synced = 0;
        for (String group : origin.groups()) {
            if (!filter.accepts(group)) {
                continue;
            }
            List<Checkpoint> checkpoints = new ArrayList<>();
            for (Map.Entry<TopicPartition, Long> position : origin.committed(group).entrySet()) {
                OffsetTranslator translator = translators.get(position.getKey());
                if (translator == null || translator.isEmpty()) {
                    continue; // a partition not replicated here
                }
                Uuid current = topicIds.getOrDefault(position.getKey().topic(), Uuid.ZERO_UUID);
                OffsetTranslator.Translation translation = translator.toDestination(current, position.getValue());
                if (translation.status() == OffsetTranslator.Status.OTHER_INCARNATION) {
                    warnOtherIncarnation(position.getKey().topic(), current, translator.topicId());
                }
                if (!translation.exact()) {
                    inexact++;
                    log.debug("Group {} at {} offset {}: {}, not checkpointed", group, position.getKey(),
                            position.getValue(), translation.status());
                    continue;
                }
                checkpoints.add(new Checkpoint(group, position.getKey(), position.getValue(),
                        new TopicPartition(translator.destinationTopic(), position.getKey().partition()),
                        translation.offset()));
            }
            if (checkpoints.isEmpty()) {
                continue;
            }
            groups++;
            destination.write(checkpoints);
            written += checkpoints.size();
            if (syncNow) {
                synced += syncGroup(group, checkpoints);
            }
        }
        if (syncNow) {
            lastSync = now;
        }
        return new Round(groups, written, inexact, synced);
    }

    /** Once per topic and pair of incarnations, so that a round every minute does not repeat it. */
    private void warnOtherIncarnation(String topic, Uuid current, Uuid mapped) {
        if (warnedIncarnations.add(topic + "/" + current + "/" + mapped)) {
            log.warn("Positions of consumer groups on {} are not checkpointed or synced: {}. They will be once the "
                    + "current topic is replicated with the offset map on.", topic,
                    GroupOffsetTranslation.otherIncarnation(topic, current, mapped));
        }
    }

    /** Commits a group's translated positions here when it has no active member and is behind them. */
    private int syncGroup(String group, List<Checkpoint> checkpoints) throws Exception {
        int members = destination.activeMembers(group);
        if (members > 0) {
            log.debug("Group {} has {} active member(s) here; its positions are its own", group, members);
            return 0;
        }
        Map<TopicPartition, Long> current = destination.committed(group);
        Map<TopicPartition, Long> forward = new HashMap<>();
        for (Checkpoint checkpoint : checkpoints) {
            Long here = current.get(checkpoint.downstream());
            if (here == null || here < checkpoint.downstreamOffset()) {
                forward.put(checkpoint.downstream(), checkpoint.downstreamOffset());
            }
        }
        if (!forward.isEmpty()) {
            destination.commit(group, forward);
            log.info("Group {}: committed {} translated position(s) here: {}", group, forward.size(), forward);
        }
        return forward.size();
    }
}
