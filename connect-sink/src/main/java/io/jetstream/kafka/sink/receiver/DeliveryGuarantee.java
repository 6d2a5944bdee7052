package io.jetstream.kafka.sink.receiver;

import java.util.List;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The delivery guarantee a destination-site task runs under, chosen once when the task starts:
 * exactly-once (the records and their progress commit in transactions, a batch is acknowledged once
 * its records are readable) or at-least-once (a batch is acknowledged once the stored progress covers
 * it; what a crashed predecessor wrote after its last stored progress is written again, and counted).
 * The task calls it at each step of its cycle; it tells the {@link ReplicationReceiver} when records
 * are durable, through {@link ReplicationReceiver#onDurable} or {@link ReplicationReceiver#onProgressStored}.
 *
 * <p>Threads: {@link #beforePoll}, {@link #awaitTransactionGap} and {@link #polled} on the task
 * thread; {@link #written} and {@link #committed} where Connect calls the task's {@code commitRecord}
 * and {@code commit}.
 */
public interface DeliveryGuarantee extends AutoCloseable {

    /** Whether records and their progress commit in transactions. */
    boolean exactlyOnce();

    /**
     * Before each poll: fails the task (throws) when the guarantee can no longer be kept, such as a
     * worker found to write without transactions.
     */
    default void beforePoll() {
    }

    /** Exactly-once: paces transactions ({@code exactly.once.transaction.gap.ms}) before a poll takes records. */
    default void awaitTransactionGap() throws InterruptedException {
    }

    /** The records a poll took, before they are handed to Connect. */
    default void polled(List<ReplicationReceiver.Delivery> deliveries) {
    }

    /** The destination offset to store with the next record of {@code origin}, or -1 when none is predicted. */
    long predictedDestinationOffset(TopicPartition origin);

    /**
     * Connect reports a record of {@code origin} written ({@code metadata} null when it was not, for
     * example dropped by a transformation), with the topic id its stored progress names.
     */
    void written(TopicPartition origin, long originOffset, Object topicId, RecordMetadata metadata);

    /**
     * Connect committed: a transaction (exactly-once) or an offset flush (at-least-once).
     *
     * @return whether the commit counts; false when it proved the guarantee broken and acknowledges nothing
     */
    boolean committed();

    /** A destination topic was found deleted: what waits on records written to it is released. */
    default void destinationTopicRecreated(String topic) {
    }

    /** Exactly-once: the commits whose acknowledgements wait for their records to be readable; else null. */
    default LongSupplier commitsAwaitingStability() {
        return null;
    }

    @Override
    void close();
}
