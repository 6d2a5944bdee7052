package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.delivery.BatchAccumulator;
import org.apache.kafka.common.TopicPartition;

/**
 * A record handed over by the task to the {@link ReplicationSender}, with its partition. A
 * {@code coveredFrom} of 0 or more makes the record start a batch that vouches for origin offsets
 * from there only ({@link BatchAccumulator#restartCoverage}); {@link #CONTIGUOUS} (the default)
 * continues the partition's batch. {@code dataBytes} is the record's {@link ReplicatedRecord#dataBytes()},
 * computed once by whoever made it (the task sizes each record for the oversize check) and used for
 * every cap and counter of the sender.
 */
public record IncomingRecord(TopicPartition partition, ReplicatedRecord record, long coveredFrom, int dataBytes) {

    public static final long CONTIGUOUS = -1;

    public IncomingRecord(TopicPartition partition, ReplicatedRecord record, long coveredFrom) {
        this(partition, record, coveredFrom, record.dataBytes());
    }

    public IncomingRecord(TopicPartition partition, ReplicatedRecord record) {
        this(partition, record, CONTIGUOUS);
    }
}
