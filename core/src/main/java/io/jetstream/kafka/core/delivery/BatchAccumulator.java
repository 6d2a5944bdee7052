package io.jetstream.kafka.core.delivery;

import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * Groups records into per-partition batches on the source side and chains them with
 * {@code prevOffset}.
 *
 * <p>A partition's open batch closes when it reaches the record or byte cap (checked on
 * {@link #append}), or with every other open batch once the oldest record of all has waited the
 * linger time ({@link #drainExpired}).
 * The caps come from the caller on every call, so a batching policy can change them at any time.
 *
 * <p>Chaining: the first batch of a partition after {@link #assign} has {@code prevOffset = -1}
 * (always applicable at the destination); each later batch carries the last offset of the one
 * before it. Each batch vouches for the offsets right after its {@code prevOffset}
 * ({@link RecordBatch#coveredFrom()}) unless {@link #restartCoverage} said otherwise. Each batch
 * carries the topic id its partition was given by {@link #topicId(TopicPartition, Uuid)} (none
 * until then).
 *
 * <p>Not thread-safe: the owner (the task's {@code put} thread) serialises calls.
 */
public final class BatchAccumulator {

    private static final class Open {
        final List<ReplicatedRecord> records = new ArrayList<>();
        long bytes;
        long firstArrivalNanos;
    }

    private final Map<TopicPartition, Open> open = new HashMap<>();
    private final Map<TopicPartition, Long> lastClosedOffset = new HashMap<>();
    /** The coverage start of a partition's next batch, where it is not right after its prevOffset. */
    private final Map<TopicPartition, Long> nextCoveredFrom = new HashMap<>();
    /** The origin topic id of each partition's records, where the owner told it. */
    private final Map<TopicPartition, Uuid> topicIds = new HashMap<>();
    private long bufferedBytes;
    private long bufferedRecords;

    /** Starts fresh chains for newly assigned partitions. */
    public void assign(Collection<TopicPartition> partitions) {
        for (TopicPartition partition : partitions) {
            lastClosedOffset.remove(partition);
            nextCoveredFrom.remove(partition);
            topicIds.remove(partition);
            Open dropped = open.remove(partition);
            if (dropped != null) {
                bufferedBytes -= dropped.bytes;
                bufferedRecords -= dropped.records.size();
            }
        }
    }

    /**
     * The origin topic id (incarnation) of the partition's records from now on: every batch sealed
     * later carries it. Set it after {@link #assign}, which forgets it.
     */
    public void topicId(TopicPartition partition, Uuid topicId) {
        topicIds.put(partition, topicId);
    }

    /** The topic id the partition's batches carry, or null when none was set since the assignment. */
    public Uuid topicId(TopicPartition partition) {
        return topicIds.get(partition);
    }

    /** Drops open batches and chains of revoked partitions (their records will be re-read). */
    public void revoke(Collection<TopicPartition> partitions) {
        assign(partitions);
    }

    /**
     * Closes and returns the partition's open batch if {@code record} would take it past
     * {@code maxBytes}, else null: called before {@link #append}, it keeps every batch within the cap
     * unless a single record exceeds it, so a batch of large records never outgrows what one frame
     * carries when each record fits alone.
     */
    public RecordBatch closeIfNoRoom(TopicPartition partition, ReplicatedRecord record, int maxBytes) {
        return closeIfNoRoom(partition, record.dataBytes(), maxBytes);
    }

    /** {@link #closeIfNoRoom(TopicPartition, ReplicatedRecord, int)} for a record of {@code dataBytes}. */
    public RecordBatch closeIfNoRoom(TopicPartition partition, int dataBytes, int maxBytes) {
        Open batch = open.get(partition);
        if (batch == null || batch.records.isEmpty() || batch.bytes + dataBytes + 16 <= maxBytes) {
            return null;
        }
        return close(partition);
    }

    /**
     * Appends a record; returns the batch it closed, if the caps were reached, else null.
     */
    public RecordBatch append(TopicPartition partition, ReplicatedRecord record, long nowNanos,
                              int maxRecords, int maxBytes) {
        return append(partition, record, record.dataBytes(), nowNanos, maxRecords, maxBytes);
    }

    /** {@link #append(TopicPartition, ReplicatedRecord, long, int, int)} with the record's {@code dataBytes} known. */
    public RecordBatch append(TopicPartition partition, ReplicatedRecord record, int dataBytes, long nowNanos,
                              int maxRecords, int maxBytes) {
        Open batch = open.computeIfAbsent(partition, p -> new Open());
        if (batch.records.isEmpty()) {
            batch.firstArrivalNanos = nowNanos;
        }
        int size = dataBytes + 16;
        batch.records.add(record);
        batch.bytes += size;
        bufferedBytes += size;
        bufferedRecords++;
        boolean full = batch.records.size() >= maxRecords || batch.bytes >= maxBytes;
        return full ? close(partition) : null;
    }

    /**
     * The partition's next record starts a batch that vouches for offsets from {@code coveredFrom}
     * only: what lies between the last record and {@code coveredFrom} is not known to be absent from
     * the origin. Closes and returns the open batch of the partition, if it holds records, else null.
     */
    public RecordBatch restartCoverage(TopicPartition partition, long coveredFrom) {
        Open batch = open.get(partition);
        RecordBatch closed = batch != null && !batch.records.isEmpty() ? close(partition) : null;
        nextCoveredFrom.put(partition, coveredFrom);
        return closed;
    }

    /**
     * Once the oldest waiting record has waited {@code lingerNanos}, closes and returns every open
     * batch, not only that one; else returns nothing. Like Kafka's producer, which drains the batches
     * of every partition led by a broker once one of them is ready: the batches of one linger period
     * leave together, so each hop wakes once for them and the destination writes them in one
     * transaction, where per-partition timers spread them over the whole period (six partitions at
     * 1,000 records/s: 300 frames/s, each a wake-up of two relays and the destination task). A
     * partition's records wait at most the linger either way.
     */
    public List<RecordBatch> drainExpired(long nowNanos, long lingerNanos) {
        return drainExpired(nowNanos, lingerNanos, partition -> true);
    }

    /**
     * Like {@link #drainExpired(long, long)}, but only the batches of partitions {@code sealable}
     * accepts; the others stay open and keep taking records up to the caps of each append.
     */
    public List<RecordBatch> drainExpired(long nowNanos, long lingerNanos, Predicate<TopicPartition> sealable) {
        long oldest = oldestArrivalNanos();
        if (oldest < 0 || nowNanos - oldest < lingerNanos) {
            return List.of();
        }
        List<RecordBatch> out = new ArrayList<>();
        for (Iterator<Map.Entry<TopicPartition, Open>> it = open.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<TopicPartition, Open> entry = it.next();
            Open batch = entry.getValue();
            if (!batch.records.isEmpty() && sealable.test(entry.getKey())) {
                it.remove();
                out.add(seal(entry.getKey(), batch));
            }
        }
        return out;
    }

    /** Closes every open batch (flush, revocation, stop). */
    public List<RecordBatch> drainAll() {
        return drainExpired(Long.MAX_VALUE, Long.MIN_VALUE);
    }

    /** Arrival time of the oldest record waiting in an open batch, or -1 when none waits. */
    public long oldestArrivalNanos() {
        long oldest = -1;
        for (Open batch : open.values()) {
            if (!batch.records.isEmpty() && (oldest < 0 || batch.firstArrivalNanos < oldest)) {
                oldest = batch.firstArrivalNanos;
            }
        }
        return oldest;
    }

    private RecordBatch close(TopicPartition partition) {
        return seal(partition, open.remove(partition));
    }

    private RecordBatch seal(TopicPartition partition, Open batch) {
        bufferedBytes -= batch.bytes;
        bufferedRecords -= batch.records.size();
        long prevOffset = lastClosedOffset.getOrDefault(partition, -1L);
        Long coveredFrom = nextCoveredFrom.remove(partition);
        RecordBatch sealed = new RecordBatch(partition.topic(), partition.partition(), prevOffset,
                coveredFrom == null ? RecordBatch.contiguousFrom(prevOffset) : coveredFrom, batch.records,
                topicIds.getOrDefault(partition, Uuid.ZERO_UUID));
        lastClosedOffset.put(partition, sealed.lastOffset());
        return sealed;
    }

    /**
     * An empty batch that continues the partition's chain (its {@code prevOffset}, first and last
     * offsets are the last closed batch's last offset), for an end-to-end heartbeat: it travels and
     * is acknowledged like any batch, applies at the destination as soon as its predecessor is
     * written, and writes nothing. Null while the partition has records waiting in an open batch, a
     * coverage restart pending, or no batch closed since its assignment (no chain to continue).
     * The partition's chain is unchanged: its next batch follows the same offset.
     */
    public RecordBatch heartbeat(TopicPartition partition) {
        Long last = lastClosedOffset.get(partition);
        Open waiting = open.get(partition);
        if (last == null || (waiting != null && !waiting.records.isEmpty()) || nextCoveredFrom.containsKey(partition)) {
            return null;
        }
        return new RecordBatch(partition.topic(), partition.partition(), last, RecordBatch.contiguousFrom(last),
                List.of(), topicIds.getOrDefault(partition, Uuid.ZERO_UUID));
    }

    /** The partitions with a chain to continue: a batch closed since their assignment. */
    public List<TopicPartition> chainedPartitions() {
        return new ArrayList<>(lastClosedOffset.keySet());
    }

    /** Records waiting in open batches. */
    public long bufferedRecords() {
        return bufferedRecords;
    }

    /** Estimated bytes of records waiting in open batches. */
    public long bufferedBytes() {
        return bufferedBytes;
    }
}
