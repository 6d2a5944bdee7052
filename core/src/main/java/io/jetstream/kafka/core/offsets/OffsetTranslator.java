package io.jetstream.kafka.core.offsets;

import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/**
 * Translates consumer positions of one origin partition between the origin and the destination,
 * exactly, from the partition's offset map entries.
 *
 * <p>A consumer position is the offset of the next record to read. {@link #toDestination} answers,
 * for an origin position {@code o}, the destination position {@code d} such that the destination
 * records below {@code d} are exactly the replicas of the origin records below {@code o}: a group
 * that read up to {@code o} at the origin and continues from {@code d} at the destination skips no
 * record and reads none twice. {@link #toOrigin} answers the converse (failback).
 *
 * <p>Entries are added in the order of the map topic (the order they were written). An entry
 * replaces the entries it overlaps at and after its coverage start: a correction replaces the
 * prediction it corrects, and a run written again after an at-least-once crash replaces the runs of
 * the crashed instance. An entry of another incarnation of the origin topic (a topic deleted and
 * recreated) starts the translator afresh. Not thread-safe.
 */
public final class OffsetTranslator {

    /** How a translation came out. */
    public enum Status {
        /** The position is exact. */
        EXACT,
        /** The position is older than the oldest entry the map still holds (map retention), or was never mapped. */
        BEFORE_MAP,
        /** The position lies past what the map holds: records not replicated (or not mapped) yet. */
        BEYOND_MAP,
        /** The position lies between two entries that do not chain: records written without a map entry. */
        HOLE,
        /**
         * The map's entries are of another incarnation of the origin topic than the one that exists
         * now (it was deleted and recreated after them, or is gone): nothing of the current topic is
         * in the map, so no position of it translates.
         */
        OTHER_INCARNATION
    }

    /**
     * A translated position. For {@link Status#BEYOND_MAP} forward, {@code offset} is the destination
     * position after everything mapped (a consumer starting there skips nothing that was replicated,
     * but reads again what was consumed at the origin and replicated later); otherwise -1 when not
     * {@link Status#EXACT}.
     */
    public record Translation(Status status, long offset) {
        public boolean exact() {
            return status == Status.EXACT;
        }
    }

    /** Live entries by coverage start ({@code previous + 1}). */
    private final NavigableMap<Long, OffsetMapEntry> byOrigin = new TreeMap<>();
    /** The same entries by first destination offset; rebuilt when entries change. */
    private NavigableMap<Long, OffsetMapEntry> byDestination;
    private Uuid topicId = Uuid.ZERO_UUID;
    private String destinationTopic;

    public void add(OffsetMapEntry entry) {
        boolean otherIncarnation = !Uuid.ZERO_UUID.equals(entry.topicId()) && !Uuid.ZERO_UUID.equals(topicId)
                && !entry.topicId().equals(topicId);
        if (otherIncarnation) {
            byOrigin.clear();
        }
        if (!Uuid.ZERO_UUID.equals(entry.topicId())) {
            topicId = entry.topicId();
        }
        destinationTopic = entry.destinationTopic();
        long start = entry.previous() + 1;
        byOrigin.subMap(start, true, entry.lastOrigin(), true).clear();
        byOrigin.put(start, entry);
        byDestination = null;
    }

    public boolean isEmpty() {
        return byOrigin.isEmpty();
    }

    /** The destination topic of the latest entry (null while empty). */
    public String destinationTopic() {
        return destinationTopic;
    }

    /** The origin topic id of the incarnation translated ({@link Uuid#ZERO_UUID} when unknown). */
    public Uuid topicId() {
        return topicId;
    }

    /** The lowest origin position this translator answers exactly (-1 while empty). */
    public long firstOriginPosition() {
        return byOrigin.isEmpty() ? -1 : byOrigin.firstKey();
    }

    /**
     * Whether the entries held are of the origin topic incarnation {@code currentTopicId} (the id the
     * origin cluster gives the topic now; {@link Uuid#ZERO_UUID} when the topic does not exist). Entries
     * written without a topic id cannot be checked and are taken as the current incarnation's.
     */
    public boolean isOf(Uuid currentTopicId) {
        boolean idUnknown = Uuid.ZERO_UUID.equals(topicId);
        return idUnknown || topicId.equals(currentTopicId);
    }

    /**
     * The destination position for an origin position of the topic incarnation {@code currentTopicId}:
     * {@link Status#OTHER_INCARNATION} unless the entries held are of it ({@link #isOf}).
     */
    public Translation toDestination(Uuid currentTopicId, long originPosition) {
        return isOf(currentTopicId) ? toDestination(originPosition) : new Translation(Status.OTHER_INCARNATION, -1);
    }

    /**
     * The origin position, for the topic incarnation {@code currentTopicId}, of a destination
     * position: {@link Status#OTHER_INCARNATION} unless the entries held are of it ({@link #isOf}).
     */
    public Translation toOrigin(Uuid currentTopicId, long destinationPosition) {
        return isOf(currentTopicId) ? toOrigin(destinationPosition) : new Translation(Status.OTHER_INCARNATION, -1);
    }

    /** The destination position for an origin position, whatever the origin topic's incarnation now. */
    public Translation toDestination(long originPosition) {
        Map.Entry<Long, OffsetMapEntry> floor = byOrigin.floorEntry(originPosition);
        if (floor == null) {
            return new Translation(Status.BEFORE_MAP, -1);
        }
        OffsetMapEntry entry = floor.getValue();
        if (originPosition <= entry.lastOrigin() + 1) {
            return new Translation(Status.EXACT, entry.destinationAt(originPosition));
        }
        if (byOrigin.higherKey(originPosition) != null) {
            return new Translation(Status.HOLE, -1);
        }
        return new Translation(Status.BEYOND_MAP, entry.nextDestination());
    }

    /**
     * The origin position for a destination position (a group going back to the origin), whatever the
     * origin topic's incarnation now.
     */
    public Translation toOrigin(long destinationPosition) {
        NavigableMap<Long, OffsetMapEntry> index = byDestination();
        Map.Entry<Long, OffsetMapEntry> floor = index.floorEntry(destinationPosition);
        if (floor == null) {
            return new Translation(Status.BEFORE_MAP, -1);
        }
        OffsetMapEntry entry = floor.getValue();
        if (destinationPosition <= entry.lastDestination()) {
            return new Translation(Status.EXACT, entry.originAt(destinationPosition));
        }
        Map.Entry<Long, OffsetMapEntry> next = index.higherEntry(destinationPosition);
        // Past the run's last record: its markers, then (when the next run chains to it) nothing
        // until the next run's first record.
        boolean withinRun = destinationPosition <= entry.nextDestination();
        boolean chained = next != null && next.getValue().previous() == entry.lastOrigin();
        if (withinRun || chained) {
            return new Translation(Status.EXACT, entry.lastOrigin() + 1);
        }
        return new Translation(next == null ? Status.BEYOND_MAP : Status.HOLE, -1);
    }

    private NavigableMap<Long, OffsetMapEntry> byDestination() {
        if (byDestination == null) {
            byDestination = new TreeMap<>();
            for (OffsetMapEntry entry : byOrigin.values()) {
                byDestination.put(entry.firstDestination(), entry);
            }
        }
        return byDestination;
    }
}
