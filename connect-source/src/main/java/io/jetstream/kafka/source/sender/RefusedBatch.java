package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.protocol.AckReason;
import org.apache.kafka.common.TopicPartition;

/**
 * A batch the destination refused for good, taken by the task to report its records
 * ({@link ReplicationSender#nextRefused()}) before it is skipped ({@link ReplicationSender#skip}).
 *
 * @param batchId the id the batch was sent with
 * @param batch   the refused batch, decoded from the frame the sender kept
 * @param reason  the destination's reason
 * @param message the destination's message
 */
public record RefusedBatch(long batchId, RecordBatch batch, AckReason reason, String message) {

    public TopicPartition partition() {
        return new TopicPartition(batch.topic(), batch.partition());
    }
}
