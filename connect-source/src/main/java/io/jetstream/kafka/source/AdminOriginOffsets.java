package io.jetstream.kafka.source;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * {@link OriginCoverage.OriginOffsets} and {@link TopicIncarnations.TopicIds} from the source
 * cluster's Admin API: the committed offsets of the connector's consumer group, the partitions' log
 * start offsets and the topics' ids. Each call waits at most
 * {@code timeout}; a call that cannot answer throws {@link IllegalStateException} naming what it
 * asked.
 */
final class AdminOriginOffsets implements OriginCoverage.OriginOffsets, TopicIncarnations.TopicIds,
        ReplicationLag.EndOffsets {

    private final Admin admin;
    private final String groupId;
    private final Duration timeout;

    AdminOriginOffsets(Admin admin, String groupId, Duration timeout) {
        this.admin = admin;
        this.groupId = groupId;
        this.timeout = timeout;
    }

    @Override
    public Map<TopicPartition, Long> committed(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> offsets = await("the committed offsets of group " + groupId,
                admin.listConsumerGroupOffsets(Map.of(groupId, new ListConsumerGroupOffsetsSpec()
                        .topicPartitions(partitions))).partitionsToOffsetAndMetadata(groupId));
        Map<TopicPartition, Long> out = new HashMap<>();
        offsets.forEach((tp, offset) -> {
            if (offset != null) {
                out.put(tp, offset.offset());
            }
        });
        return out;
    }

    @Override
    public Map<TopicPartition, Long> logStart(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        partitions.forEach(tp -> earliest.put(tp, OffsetSpec.earliest()));
        Map<TopicPartition, Long> out = new HashMap<>();
        await("the log start offsets of " + partitions, admin.listOffsets(earliest).all())
                .forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        partitions.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        Map<TopicPartition, Long> out = new HashMap<>();
        // read_committed, as the connector reads: the last stable offset, not open transactions' records
        await("the end offsets of " + partitions, admin.listOffsets(latest,
                new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all())
                .forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    @Override
    public Map<String, Uuid> topicIds(Collection<String> topics) {
        Map<String, KafkaFuture<TopicDescription>> futures = admin.describeTopics(topics).topicNameValues();
        Map<String, Uuid> out = new HashMap<>();
        for (Map.Entry<String, KafkaFuture<TopicDescription>> entry : futures.entrySet()) {
            try {
                out.put(entry.getKey(), await("the id of topic " + entry.getKey(), entry.getValue()).topicId());
            } catch (IllegalStateException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
                out.put(entry.getKey(), Uuid.ZERO_UUID); // deleted meanwhile
            }
        }
        return out;
    }

    private <T> T await(String what, KafkaFuture<T> future) {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while reading " + what, e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("Cannot read " + what + ": " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("No answer within " + timeout.toMillis() + " ms reading " + what, e);
        }
    }
}
