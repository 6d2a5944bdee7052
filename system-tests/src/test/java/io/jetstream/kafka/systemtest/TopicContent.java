package io.jetstream.kafka.systemtest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What a {@code read_committed} consumer reads from a topic, per partition, in order: what an
 * application at either site sees. Offsets are kept for diagnostics but not compared (a replica's
 * offsets differ where the origin has transaction markers or aborted records).
 */
final class TopicContent {

    /** One record as an application sees it. */
    record Entry(long offset, long timestamp, String key, String value, List<String> headers) {

        /** Equal as an application sees it: everything but the offset. */
        boolean sameAs(Entry other) {
            return timestamp == other.timestamp && Objects.equals(key, other.key) && Objects.equals(value, other.value)
                    && headers.equals(other.headers);
        }
    }

    private final Map<Integer, List<Entry>> partitions;

    private TopicContent(Map<Integer, List<Entry>> partitions) {
        this.partitions = partitions;
    }

    Map<Integer, List<Entry>> partitions() {
        return partitions;
    }

    long size() {
        return partitions.values().stream().mapToLong(List::size).sum();
    }

    /**
     * Reads every partition of {@code topic} from the beginning to its last stable offset, with
     * {@code read_committed}, within {@code timeout}.
     */
    static TopicContent read(String bootstrapServers, String topic, Duration timeout) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        Map<Integer, List<Entry>> out = new TreeMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(topic, timeout)) {
                tps.add(new TopicPartition(topic, info.partition()));
                out.put(info.partition(), new ArrayList<>());
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(tps, timeout));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (tps.stream().anyMatch(tp -> consumer.position(tp, timeout) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Could not read " + topic + " to its end " + end + " within "
                            + timeout);
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    out.get(record.partition()).add(entry(record));
                }
            }
        }
        return new TopicContent(out);
    }

    private static Entry entry(ConsumerRecord<byte[], byte[]> record) {
        List<String> headers = new ArrayList<>();
        for (Header header : record.headers()) {
            headers.add(header.key() + "=" + (header.value() == null ? "null" : Arrays.toString(header.value())));
        }
        return new Entry(record.offset(), record.timestamp(), text(record.key()), text(record.value()),
                List.copyOf(headers));
    }

    private static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** The first difference to {@code replica} as a sentence, or null when both hold the same. */
    String firstDifference(TopicContent replica) {
        if (!partitions.keySet().equals(replica.partitions.keySet())) {
            return "partitions " + partitions.keySet() + " at the origin, " + replica.partitions.keySet()
                    + " at the destination";
        }
        for (var entry : partitions.entrySet()) {
            List<Entry> origin = entry.getValue();
            List<Entry> copy = replica.partitions.get(entry.getKey());
            for (int i = 0; i < Math.min(origin.size(), copy.size()); i++) {
                if (!origin.get(i).sameAs(copy.get(i))) {
                    return "partition " + entry.getKey() + " record " + i + ": origin " + origin.get(i)
                            + ", destination " + copy.get(i);
                }
            }
            if (origin.size() != copy.size()) {
                return "partition " + entry.getKey() + ": " + origin.size() + " records at the origin, " + copy.size()
                        + " at the destination";
            }
        }
        return null;
    }
}
