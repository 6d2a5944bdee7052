package io.jetstream.kafka.core.offsets;

import java.time.Duration;
import java.util.ArrayList;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads an offset map topic from its beginning to its end as {@code read_committed} (entries of
 * aborted transactions belong to records that were never written) into one {@link OffsetTranslator}
 * per origin partition. Memory grows with the map's retention: about 200 bytes per entry held.
 */
public final class OffsetMapReader {

    private static final Logger log = LoggerFactory.getLogger(OffsetMapReader.class);

    private OffsetMapReader() {
    }

    /**
     * @param clientProps bootstrap servers and security of the cluster holding the map; the reader
     *                    sets its own deserializers, isolation level and group-less assignment
     * @param accept      which origin partitions to keep (the others' entries are skipped undecoded)
     * @param timeout     for the whole read; a map that cannot be read to its end within it fails
     */
    public static Map<TopicPartition, OffsetTranslator> read(Map<String, Object> clientProps, String mapTopic,
                                                             Predicate<OffsetMapCodec.OriginPartition> accept,
                                                             Duration timeout) {
        Properties props = new Properties();
        props.putAll(clientProps);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<TopicPartition, OffsetTranslator> out = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<PartitionInfo> infos = consumer.partitionsFor(mapTopic, timeout);
            if (infos == null || infos.isEmpty()) {
                throw new IllegalStateException("offset map topic " + mapTopic + " does not exist at "
                        + clientProps.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG));
            }
            List<TopicPartition> partitions = new ArrayList<>();
            infos.forEach(info -> partitions.add(new TopicPartition(mapTopic, info.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, timeout);
            long entries = 0;
            while (!readToEnd(consumer, ends)) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("offset map topic " + mapTopic + " not read to its end " + ends
                            + " within " + timeout);
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    OffsetMapCodec.OriginPartition origin = OffsetMapCodec.decodeKey(record.key());
                    if (!accept.test(origin)) {
                        continue;
                    }
                    OffsetMapEntry entry = OffsetMapCodec.decode(record.key(), record.value());
                    out.computeIfAbsent(new TopicPartition(origin.topic(), origin.partition()),
                            tp -> new OffsetTranslator()).add(entry);
                    entries++;
                }
            }
            log.debug("Read {} offset map entries of {} origin partitions from {}", entries, out.size(), mapTopic);
        }
        return out;
    }

    /** Whether every partition's position reached its end offset (markers included). */
    private static boolean readToEnd(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            if (consumer.position(end.getKey()) < end.getValue()) {
                return false;
            }
        }
        return true;
    }
}
