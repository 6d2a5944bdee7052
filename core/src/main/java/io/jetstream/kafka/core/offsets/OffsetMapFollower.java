package io.jetstream.kafka.core.offsets;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Follows an offset map topic: each {@link #refresh} reads, as {@code read_committed}, what was
 * added since the last one (from the beginning the first time) up to the topic's end, into one
 * {@link OffsetTranslator} per origin partition. Memory grows with the map's retention: about 200
 * bytes per entry held. Not thread-safe; close it to release its consumer.
 */
public final class OffsetMapFollower implements AutoCloseable {

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String mapTopic;
    private final Predicate<OffsetMapCodec.OriginPartition> accept;
    private final Map<TopicPartition, OffsetTranslator> translators = new HashMap<>();
    private List<TopicPartition> partitions;

    /**
     * @param clientProps bootstrap servers and security of the cluster holding the map
     * @param accept      which origin partitions to keep (the others' entries are skipped undecoded)
     */
    public OffsetMapFollower(Map<String, Object> clientProps, String mapTopic,
                             Predicate<OffsetMapCodec.OriginPartition> accept) {
        Properties props = new Properties();
        props.putAll(clientProps);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        this.consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.mapTopic = mapTopic;
        this.accept = accept;
    }

    /** Reads the map to its current end within {@code timeout}; returns the translators (live view). */
    public Map<TopicPartition, OffsetTranslator> refresh(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        if (partitions == null) {
            List<PartitionInfo> infos = consumer.partitionsFor(mapTopic, timeout);
            if (infos == null || infos.isEmpty()) {
                throw new IllegalStateException("offset map topic " + mapTopic + " does not exist");
            }
            List<TopicPartition> all = new ArrayList<>();
            infos.forEach(info -> all.add(new TopicPartition(mapTopic, info.partition())));
            consumer.assign(all);
            consumer.seekToBeginning(all);
            partitions = all;
        }
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, timeout);
        while (!readToEnd(ends)) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("offset map topic " + mapTopic + " not read to its end " + ends + " within "
                        + timeout);
            }
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                OffsetMapCodec.OriginPartition origin = OffsetMapCodec.decodeKey(record.key());
                if (accept.test(origin)) {
                    translators.computeIfAbsent(new TopicPartition(origin.topic(), origin.partition()),
                            tp -> new OffsetTranslator()).add(OffsetMapCodec.decode(record.key(), record.value()));
                }
            }
        }
        return Collections.unmodifiableMap(translators);
    }

    private boolean readToEnd(Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            if (consumer.position(end.getKey()) < end.getValue()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }

    /** Closes the consumer, waiting at most {@code timeout} for its requests in flight. */
    public void close(Duration timeout) {
        consumer.close(timeout);
    }
}
