package io.jetstream.kafka.sink.progress;

import io.jetstream.kafka.sink.receiver.ReplicationReceiver;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stored progress of an origin partition as Connect keeps it: each record's source partition is
 * {@code {cluster, topic, partition}} of its origin and its source offset {@code {offset}} the origin
 * offset, with the incarnation (origin topic id) it belongs to and, in at-least-once mode, the
 * record's predicted destination offset. What {@link #sourceOffset} writes, {@link #progressOf} reads back.
 */
public final class SourceOffsets {

    private static final Logger log = LoggerFactory.getLogger(SourceOffsets.class);
    public static final String CLUSTER = "cluster";
    public static final String TOPIC = "topic";
    public static final String PARTITION = "partition";
    public static final String OFFSET = "offset";
    /** The origin topic's id (incarnation) the offset belongs to, when the source sent it. */
    public static final String TOPIC_ID = "topic.id";
    /** The id of the incarnation before it, once a recreated topic was met. */
    public static final String PREVIOUS_TOPIC_ID = "topic.id.previous";
    /** Ids of the incarnations before that one, newest first, joined with commas; refused as obsolete. */
    public static final String OLDER_TOPIC_IDS = "topic.ids.older";
    /** At-least-once: the predicted destination offset of the record, see {@code DestinationOffsets}. */
    public static final String DESTINATION_OFFSET = "destination.offset";
    /** No predicted destination offset: none is stored. */
    public static final long UNKNOWN_DESTINATION_OFFSET = -1L;

    private SourceOffsets() {
    }

    /**
     * The Connect source partition of an origin partition. A sorted map: Connect finds stored
     * offsets by the serialized key, so the key order must be the same in every JVM (Map.of's
     * iteration order is not).
     */
    public static Map<String, Object> sourcePartition(String sourceAlias, String originTopic, int partition) {
        Map<String, Object> key = new TreeMap<>();
        key.put(CLUSTER, sourceAlias);
        key.put(TOPIC, originTopic);
        key.put(PARTITION, partition);
        return key;
    }

    /** The origin partition a Connect source partition ({@link #sourcePartition}) stands for. */
    public static TopicPartition origin(Map<String, ?> sourcePartition) {
        return new TopicPartition((String) sourcePartition.get(TOPIC), ((Number) sourcePartition.get(PARTITION)).intValue());
    }

    /** The origin offset a record's stored progress ({@link #sourceOffset}) names. */
    public static long originOffset(Map<String, ?> sourceOffset) {
        return ((Number) sourceOffset.get(OFFSET)).longValue();
    }

    /** The stored progress of a record, read back by {@link #progressOf}. */
    public static Map<String, Object> sourceOffset(long offset, ReplicationReceiver.Incarnation incarnation,
                                                   long predicted) {
        if (predicted == UNKNOWN_DESTINATION_OFFSET && incarnation.previousTopicIdString == null) {
            return incarnation.known() ? Map.of(OFFSET, offset, TOPIC_ID, incarnation.topicIdString)
                    : Map.of(OFFSET, offset);
        }
        Map<String, Object> out = new HashMap<>(8);
        out.put(OFFSET, offset);
        if (incarnation.known()) {
            out.put(TOPIC_ID, incarnation.topicIdString);
        }
        if (incarnation.previousTopicIdString != null) {
            out.put(PREVIOUS_TOPIC_ID, incarnation.previousTopicIdString);
        }
        if (incarnation.olderTopicIdsString != null) {
            out.put(OLDER_TOPIC_IDS, incarnation.olderTopicIdsString);
        }
        if (predicted != UNKNOWN_DESTINATION_OFFSET) {
            out.put(DESTINATION_OFFSET, predicted);
        }
        return out;
    }

    /** A partition's stored progress, as {@link #sourceOffset} wrote it. */
    public static ReplicationReceiver.Progress progressOf(Map<String, Object> offset) {
        if (offset == null || !(offset.get(OFFSET) instanceof Number number)) {
            return ReplicationReceiver.Progress.NONE;
        }
        return new ReplicationReceiver.Progress(number.longValue(), topicId(offset.get(TOPIC_ID)),
                topicId(offset.get(PREVIOUS_TOPIC_ID)), olderTopicIds(offset.get(OLDER_TOPIC_IDS)));
    }

    private static List<Uuid> olderTopicIds(Object stored) {
        if (!(stored instanceof String text) || text.isEmpty()) {
            return List.of();
        }
        List<Uuid> out = new ArrayList<>();
        for (String id : text.split(",")) {
            Uuid parsed = topicId(id);
            if (!Uuid.ZERO_UUID.equals(parsed)) {
                out.add(parsed);
            }
        }
        return out;
    }

    private static Uuid topicId(Object stored) {
        if (!(stored instanceof String text)) {
            return Uuid.ZERO_UUID;
        }
        try {
            return Uuid.fromString(text);
        } catch (IllegalArgumentException e) {
            log.warn("Stored progress names an unreadable topic id '{}'; taken as unknown", text);
            return Uuid.ZERO_UUID;
        }
    }
}
