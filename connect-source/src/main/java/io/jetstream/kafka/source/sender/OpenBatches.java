package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.delivery.BatchAccumulator;
import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.BatchPolicy;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * The sender's first step: records into open batches per partition ({@link BatchAccumulator}),
 * sealed when they reach the policy's caps, when their linger expires, or when a record starts a
 * batch that vouches for fewer origin offsets; every sealed batch goes to the {@link Sealer} with
 * the moment its oldest record arrived. Tells the policy what arrives (records, bytes, active
 * streams) and the metrics what comes in.
 *
 * <p>Not thread-safe: used under the sender's lock.
 */
final class OpenBatches {

    /** A partition counts as a stream filling batches while records arrived on it this recently. */
    static final long ACTIVE_STREAM_NANOS = 1_000_000_000L;

    /** Where sealed batches go. */
    @FunctionalInterface
    interface Sealer {
        void seal(RecordBatch batch, TopicPartition partition, long oldestArrivalNanos, long now);
    }

    private final BatchAccumulator accumulator = new BatchAccumulator();
    private final BatchPolicy policy;
    private final SenderEvents events;
    private final Sealer sealer;
    private final Map<TopicPartition, Long> oldestArrival = new HashMap<>();
    /** When records last arrived on each partition, for the policy's count of streams. */
    private final Map<TopicPartition, Long> lastArrival = new HashMap<>();

    OpenBatches(BatchPolicy policy, SenderEvents events, Sealer sealer) {
        this.policy = policy;
        this.events = events;
        this.sealer = sealer;
    }

    void assign(Collection<TopicPartition> partitions) {
        accumulator.assign(partitions);
        partitions.forEach(oldestArrival::remove);
    }

    /** Drops the partitions' open batches. */
    void revoke(Collection<TopicPartition> partitions) {
        accumulator.revoke(partitions);
        partitions.forEach(oldestArrival::remove);
        partitions.forEach(lastArrival::remove);
    }

    Uuid topicId(TopicPartition partition) {
        return accumulator.topicId(partition);
    }

    void topicId(TopicPartition partition, Uuid topicId) {
        accumulator.topicId(partition, topicId);
    }

    /**
     * Adds the records of one {@code put}. The policy and the metrics hear of the records once per
     * call (they all arrived at the same moment), not once per record: per-record bookkeeping was a
     * visible share of the task's CPU.
     */
    void append(List<IncomingRecord> records, long now) {
        long bytes = 0;
        TopicPartition previous = null;
        for (int i = 0, n = records.size(); i < n; i++) {
            IncomingRecord in = records.get(i);
            bytes += in.dataBytes();
            if (!in.partition().equals(previous)) { // a put's records come in runs of one partition
                previous = in.partition();
                lastArrival.put(previous, now);
            }
        }
        policy.onActiveStreams(activeStreams(now), now);
        policy.onRecordsArrived(records.size(), bytes, now);
        events.recordsIn(records.size(), bytes);
        BatchDecision caps = policy.decision(now);
        int maxRecords = caps.maxRecords();
        int maxBytes = caps.maxBytes();
        for (int i = 0, n = records.size(); i < n; i++) {
            IncomingRecord in = records.get(i);
            if (in.coveredFrom() != IncomingRecord.CONTIGUOUS) {
                seal(accumulator.restartCoverage(in.partition(), in.coveredFrom()), in.partition(), now);
            }
            seal(accumulator.closeIfNoRoom(in.partition(), in.dataBytes(), maxBytes), in.partition(), now);
            oldestArrival.putIfAbsent(in.partition(), now);
            seal(accumulator.append(in.partition(), in.record(), in.dataBytes(), now, maxRecords, maxBytes),
                    in.partition(), now);
        }
    }

    /** Seals the batches that waited their linger. */
    void sealLingered(long now, BatchDecision caps) {
        sealLingered(now, caps, partition -> true);
    }

    /** Seals the batches that waited their linger, of the partitions {@code sealable} accepts. */
    void sealLingered(long now, BatchDecision caps, Predicate<TopicPartition> sealable) {
        for (RecordBatch batch : accumulator.drainExpired(now, caps.linger().toNanos(), sealable)) {
            seal(batch, now);
        }
    }

    private void seal(RecordBatch batch, long now) {
        seal(batch, new TopicPartition(batch.topic(), batch.partition()), now);
    }

    /** Hands a batch the accumulator closed (none when null) to the sealer. */
    private void seal(RecordBatch batch, TopicPartition partition, long now) {
        if (batch != null) {
            Long oldestArrivalNanos = oldestArrival.remove(partition);
            sealer.seal(batch, partition, oldestArrivalNanos == null ? now : oldestArrivalNanos, now);
        }
    }

    /** Partitions records arrived on within {@link #ACTIVE_STREAM_NANOS}; forgets the others. */
    private int activeStreams(long now) {
        lastArrival.values().removeIf(at -> now - at > ACTIVE_STREAM_NANOS);
        return Math.max(1, lastArrival.size());
    }

    /** Partitions whose batches chain on (a heartbeat may continue their chain). */
    List<TopicPartition> chainedPartitions() {
        return accumulator.chainedPartitions();
    }

    /** An empty batch continuing the partition's chain, or null ({@link BatchAccumulator#heartbeat}). */
    RecordBatch heartbeat(TopicPartition partition) {
        return accumulator.heartbeat(partition);
    }

    long bufferedRecords() {
        return accumulator.bufferedRecords();
    }

    long bufferedBytes() {
        return accumulator.bufferedBytes();
    }

    /** Drops every open batch. */
    void clear() {
        accumulator.drainAll();
    }
}
