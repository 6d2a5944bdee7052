package io.jetstream.kafka.core.batch;

import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * The unit JetStream replicates: consecutive records of <em>one</em> origin topic-partition.
 *
 * <p>One partition per batch keeps the rest of the system simple: the egress relay routes a whole
 * batch to the one subscriber that owns its partition, the destination applies it atomically in order,
 * and one acknowledgement commits one offset range. Senders that read many partitions build one
 * batch per partition and send them concurrently.
 *
 * <p>Ordering rule: {@code prevOffset} is the last offset of the previous batch of this partition
 * from the same sender (-1 for the first batch after an assignment, whose {@code coveredFrom}
 * says where the sender's coverage starts). The destination applies the batch when {@code prevOffset <= lastWritten(partition)}, skipping
 * records at or below {@code lastWritten}, and holds it otherwise. This tolerates offset gaps
 * (compaction, transaction markers) and task reassignment.
 *
 * <p>Coverage: {@code coveredFrom} is the lowest origin offset the sender vouches for: every offset
 * from it up to {@link #lastOffset()} is either a record of this batch or absent from the origin's
 * committed log for a legitimate reason (a transaction marker, an aborted record, a compacted
 * record). Offsets below it must have reached the destination with earlier batches. Normally it is
 * {@code prevOffset + 1}; a sender that read past offsets it cannot vouch for (records deleted by
 * retention before they were read, an offset reset) sets it above that, so the destination, which
 * knows what it wrote, can tell a real gap from a legitimate one.
 *
 * <p>Incarnation: {@code topicId} is the origin topic's id (Kafka's topic id) when the sender read
 * the records, or {@link Uuid#ZERO_UUID} when unknown. A topic deleted and recreated under the same
 * name gets a new id and starts its offsets again: the destination keeps each incarnation's
 * progress apart instead of taking the new records for duplicates of the old.
 *
 * <p>Records are expected in ascending offset order; the codec does not enforce it (it transports
 * any offsets faithfully, deltas wrap around), the sender does. An empty batch is legal and carries
 * no data: its {@link #firstOffset()} and {@link #lastOffset()} are {@code prevOffset}.
 *
 * <p>Skip marker: a batch with {@code skipped} set carries no records but stands, in its
 * partition's chain, for a batch the destination refused for good and the sender skipped under
 * Connect's {@code errors.tolerance=all} (its records went to the source's dead letter queue). It
 * has the refused batch's {@code prevOffset}, coverage and topic id, and its first and last offsets
 * are the refused batch's ({@link SkippedRange}): the destination moves its progress past them,
 * writing nothing, and the batches after it follow. Encoded as payload version 4
 * ({@link BatchEncoder}).
 *
 * @param topic origin topic name
 * @param partition origin partition, {@code >= 0}
 * @param prevOffset last offset before this batch, or -1
 * @param coveredFrom lowest origin offset the batch vouches for (see above), {@code >= 0}
 * @param records the records, copied into an immutable list
 * @param topicId the origin topic's id when the records were read, or {@link Uuid#ZERO_UUID} when unknown
 * @param skipped for a skip marker, the offsets and record count of the batch it stands for; else null
 */
public record RecordBatch(String topic, int partition, long prevOffset, long coveredFrom,
                          List<ReplicatedRecord> records, Uuid topicId, SkippedRange skipped) {

    /**
     * The origin offsets {@code firstOffset..lastOffset}, {@code records} records, of a batch the
     * destination refused for good and the sender skipped.
     */
    public record SkippedRange(long firstOffset, long lastOffset, int records) {
        public SkippedRange {
            if (firstOffset < 0 || lastOffset < firstOffset) {
                throw new IllegalArgumentException("skipped offsets " + firstOffset + ".." + lastOffset
                        + " must be an ascending range of offsets >= 0");
            }
            if (records < 1) {
                throw new IllegalArgumentException("a skipped range holds at least one record, not " + records);
            }
        }
    }

    public RecordBatch {
        Objects.requireNonNull(topic, "topic");
        if (topic.isEmpty()) {
            throw new IllegalArgumentException("topic must not be empty");
        }
        if (partition < 0) {
            throw new IllegalArgumentException("partition " + partition + " must be >= 0");
        }
        if (coveredFrom < 0) {
            throw new IllegalArgumentException("coveredFrom " + coveredFrom + " must be >= 0");
        }
        records = List.copyOf(records);
        Objects.requireNonNull(topicId, "topicId");
        if (skipped != null && !records.isEmpty()) {
            throw new IllegalArgumentException("a skip marker carries no records, not " + records.size());
        }
    }

    /** A batch of records (not a skip marker). */
    public RecordBatch(String topic, int partition, long prevOffset, long coveredFrom, List<ReplicatedRecord> records,
                       Uuid topicId) {
        this(topic, partition, prevOffset, coveredFrom, records, topicId, null);
    }

    /**
     * The skip marker that stands for {@code refused} (a batch with records) in its partition's chain:
     * same topic, partition, {@code prevOffset}, coverage and topic id, no records.
     */
    public static RecordBatch skipMarker(RecordBatch refused) {
        if (refused.isEmpty()) {
            throw new IllegalArgumentException("only a batch with records can be skipped: " + refused);
        }
        return new RecordBatch(refused.topic, refused.partition, refused.prevOffset, refused.coveredFrom, List.of(),
                refused.topicId, new SkippedRange(refused.firstOffset(), refused.lastOffset(), refused.size()));
    }

    /** Whether this batch is a skip marker (see the class comment). */
    public boolean isSkipMarker() {
        return skipped != null;
    }

    /** A batch of a topic whose id is not known. */
    public RecordBatch(String topic, int partition, long prevOffset, long coveredFrom, List<ReplicatedRecord> records) {
        this(topic, partition, prevOffset, coveredFrom, records, Uuid.ZERO_UUID);
    }

    /** A batch that vouches for the offsets right after {@code prevOffset}: no unexplained gap. */
    public RecordBatch(String topic, int partition, long prevOffset, List<ReplicatedRecord> records) {
        this(topic, partition, prevOffset, contiguousFrom(prevOffset), records);
    }

    /** The {@code coveredFrom} of a batch that follows {@code prevOffset} without a gap. */
    public static long contiguousFrom(long prevOffset) {
        return Math.max(0, prevOffset + 1);
    }

    /** Whether the origin topic's id is known. */
    public boolean hasTopicId() {
        return !Uuid.ZERO_UUID.equals(topicId);
    }

    /** Whether the batch vouches for fewer offsets than those right after {@code prevOffset}. */
    public boolean hasCoverageGap() {
        return coveredFrom != contiguousFrom(prevOffset);
    }

    /** Offset of the first record (of the skipped range for a skip marker), or {@code prevOffset} when empty. */
    public long firstOffset() {
        if (skipped != null) {
            return skipped.firstOffset();
        }
        return records.isEmpty() ? prevOffset : records.get(0).offset();
    }

    /** Offset of the last record (of the skipped range for a skip marker), or {@code prevOffset} when empty. */
    public long lastOffset() {
        if (skipped != null) {
            return skipped.lastOffset();
        }
        return records.isEmpty() ? prevOffset : records.get(records.size() - 1).offset();
    }

    public int size() {
        return records.size();
    }

    public boolean isEmpty() {
        return records.isEmpty();
    }

    @Override
    public String toString() {
        return "RecordBatch[" + topic + "-" + partition + ", prevOffset=" + prevOffset
                + (hasCoverageGap() ? ", coveredFrom=" + coveredFrom : "") + (hasTopicId() ? ", topicId=" + topicId : "")
                + ", offsets=" + firstOffset()
                + ".." + lastOffset() + ", records=" + records.size()
                + (skipped != null ? ", skip marker of " + skipped.records() + " records" : "") + "]";
    }
}
