package io.jetstream.kafka.core.offsets;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * Where one run of records of an origin partition landed at the destination: the records a
 * destination task wrote for that partition in one transaction (one {@code poll()}), as segments of
 * consecutive origin offsets written at consecutive destination offsets.
 *
 * <p>An entry covers the origin offsets {@code previous + 1 .. lastOrigin()}: {@code previous} is
 * the last origin offset the destination wrote for the partition before this run (-1 when none), so
 * the origin offsets between {@code previous} and the first segment, and between segments, have no
 * record at the destination (transaction markers, aborted or compacted records at the origin, or a
 * gap accepted by {@code offset.gap.policy=accept}). Successive entries of a partition chain through
 * {@code previous}; a reader sees a hole where they do not.
 *
 * <p>A {@code correction} entry replaces the entry with the same {@code previous} (the same run):
 * the task predicted the destination offsets before the write (the map is written in the same
 * transaction as the records) and found afterwards that some record landed elsewhere.
 *
 * @param topicId the origin topic's id (its incarnation), {@link Uuid#ZERO_UUID} when unknown
 * @param markers  destination offsets after the last record that hold no record of the run: 1 for the
 *                 commit marker of the run's transaction (exactly-once), 0 otherwise. The next run of the
 *                 partition starts at {@code lastDestination() + 1 + markers} when nothing else writes there
 */
public record OffsetMapEntry(String sourceAlias, String originTopic, int partition, Uuid topicId,
                             String destinationTopic, long previous, List<Segment> segments, int markers,
                             boolean correction) {

    /**
     * {@code length} records at origin offsets {@code originStart ..} written at destination offsets
     * {@code destinationStart ..}, both consecutive.
     */
    public record Segment(long originStart, long destinationStart, int length) {
        public Segment {
            if (originStart < 0 || destinationStart < 0 || length < 1) {
                throw new IllegalArgumentException("segment needs offsets >= 0 and length >= 1: origin "
                        + originStart + ", destination " + destinationStart + ", length " + length);
            }
        }

        public long originEnd() {
            return originStart + length - 1;
        }

        public long destinationEnd() {
            return destinationStart + length - 1;
        }
    }

    public OffsetMapEntry {
        Objects.requireNonNull(sourceAlias, "sourceAlias");
        Objects.requireNonNull(originTopic, "originTopic");
        Objects.requireNonNull(topicId, "topicId");
        Objects.requireNonNull(destinationTopic, "destinationTopic");
        segments = List.copyOf(segments);
        if (segments.isEmpty()) {
            throw new IllegalArgumentException("an entry needs at least one segment");
        }
        if (markers < 0) {
            throw new IllegalArgumentException("markers must be >= 0: " + markers);
        }
        if (previous < -1) {
            throw new IllegalArgumentException("previous must be >= -1: " + previous);
        }
        long lastOrigin = previous;
        long lastDestination = -1;
        for (Segment segment : segments) {
            if (segment.originStart() <= lastOrigin || segment.destinationStart() <= lastDestination) {
                throw new IllegalArgumentException("segments must follow 'previous' (" + previous + ") and each other "
                        + "in origin and destination order: " + segments);
            }
            lastOrigin = segment.originEnd();
            lastDestination = segment.destinationEnd();
        }
    }

    public long firstOrigin() {
        return segments.get(0).originStart();
    }

    public long lastOrigin() {
        return segments.get(segments.size() - 1).originEnd();
    }

    public long firstDestination() {
        return segments.get(0).destinationStart();
    }

    public long lastDestination() {
        return segments.get(segments.size() - 1).destinationEnd();
    }

    /** The first destination offset after the run and its markers. */
    public long nextDestination() {
        return lastDestination() + 1 + markers;
    }

    /** How many records the run holds. */
    public long records() {
        long records = 0;
        for (Segment segment : segments) {
            records += segment.length();
        }
        return records;
    }

    /**
     * The destination offset of the first record of this run at an origin offset {@code >= originOffset},
     * or the destination offset after the run when there is none; {@code originOffset} must lie in
     * {@code previous + 1 .. lastOrigin() + 1}.
     */
    public long destinationAt(long originOffset) {
        for (Segment segment : segments) {
            if (originOffset <= segment.originStart()) {
                return segment.destinationStart();
            }
            if (originOffset <= segment.originEnd()) {
                return segment.destinationStart() + (originOffset - segment.originStart());
            }
        }
        return lastDestination() + 1;
    }

    /**
     * The origin offset of the first record of this run written at a destination offset
     * {@code >= destinationOffset}, or {@code lastOrigin() + 1} when there is none.
     */
    public long originAt(long destinationOffset) {
        for (Segment segment : segments) {
            if (destinationOffset <= segment.destinationStart()) {
                return segment.originStart();
            }
            if (destinationOffset <= segment.destinationEnd()) {
                return segment.originStart() + (destinationOffset - segment.destinationStart());
            }
        }
        return lastOrigin() + 1;
    }

    /**
     * Builds an entry from the records of one run, in origin order: each {@code (origin, destination)}
     * pair extends the last segment when both offsets follow it, and starts a new one otherwise.
     * Records that were not written are left out: their origin offsets become part of the gaps.
     */
    public static final class Builder {
        private final List<Segment> segments = new ArrayList<>();
        private long originStart = -1;
        private long destinationStart = -1;
        private int length;

        public Builder add(long originOffset, long destinationOffset) {
            boolean extendsSegment = length > 0 && length < Integer.MAX_VALUE
                    && originOffset == originStart + length && destinationOffset == destinationStart + length;
            if (!extendsSegment) {
                closeSegment();
                originStart = originOffset;
                destinationStart = destinationOffset;
            }
            length++;
            return this;
        }

        public boolean isEmpty() {
            return length == 0 && segments.isEmpty();
        }

        public OffsetMapEntry build(String sourceAlias, String originTopic, int partition, Uuid topicId,
                                    String destinationTopic, long previous, int markers, boolean correction) {
            closeSegment();
            return new OffsetMapEntry(sourceAlias, originTopic, partition, topicId, destinationTopic, previous,
                    segments, markers, correction);
        }

        private void closeSegment() {
            if (length > 0) {
                segments.add(new Segment(originStart, destinationStart, length));
                length = 0;
            }
        }
    }
}
