package io.jetstream.kafka.sink.exactlyonce;

import io.jetstream.kafka.sink.receiver.ReplicationReceiver;
import java.util.List;

/**
 * How long after a commit the next transaction's records go to Connect: at least
 * {@code exactly.once.transaction.gap.ms}, and after a transaction over many origin partitions
 * longer, by {@code exactly.once.transaction.partitions.per.second}, since each partition a
 * transaction writes costs a commit marker at the destination broker and a source offset record in
 * Connect (written, then read back by the worker's offset log). At a steady rate a transaction
 * carries a few partitions and the least gap applies; draining a backlog over a thousand
 * partitions, transactions become fewer and larger instead of each touching most partitions.
 *
 * <p>Task thread only.
 */
final class TransactionPacing {

    private final long leastGapNanos;
    private final long nanosPerPartition;
    private final long maxGapNanos;
    private long nextGapNanos;

    /**
     * @param leastGapNanos     {@code exactly.once.transaction.gap.ms}
     * @param nanosPerPartition gap per origin partition of the last transaction; 0 for none
     * @param maxGapNanos       the longest gap the partitions make
     */
    TransactionPacing(long leastGapNanos, long nanosPerPartition, long maxGapNanos) {
        this.leastGapNanos = leastGapNanos;
        this.nanosPerPartition = nanosPerPartition;
        this.maxGapNanos = Math.max(leastGapNanos, maxGapNanos);
        this.nextGapNanos = leastGapNanos;
    }

    /** The records of the next transaction, before Connect gets them: they set the gap after it. */
    void polled(List<ReplicationReceiver.Delivery> deliveries) {
        if (nanosPerPartition == 0) {
            return;
        }
        long scaled = partitionRuns(deliveries) * nanosPerPartition;
        nextGapNanos = Math.max(leastGapNanos, Math.min(scaled, maxGapNanos));
    }

    /** The least time from the last commit to the next transaction's records. */
    long nextGapNanos() {
        return nextGapNanos;
    }

    /**
     * The number of runs of one origin partition in {@code deliveries}: the number of partitions when,
     * as the receiver hands them out batch by batch, each partition's records are together; never more
     * than the batches. No set per poll: a poll can carry ten thousand records.
     */
    static int partitionRuns(List<ReplicationReceiver.Delivery> deliveries) {
        int runs = 0;
        String topic = null;
        int partition = -1;
        for (ReplicationReceiver.Delivery delivery : deliveries) {
            if (delivery.partition() != partition || !delivery.originTopic().equals(topic)) {
                runs++;
                topic = delivery.originTopic();
                partition = delivery.partition();
            }
        }
        return runs;
    }
}
