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
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * {@link OriginCoverage.OriginOffsets} from the source cluster's Admin API: the committed offsets of
 * the connector's consumer group and the partitions' log start offsets. Each call waits at most
 * {@code timeout}; a call that cannot answer throws {@link IllegalStateException} naming what it
 * asked.
 */
final class AdminOriginOffsets implements OriginCoverage.OriginOffsets {

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
