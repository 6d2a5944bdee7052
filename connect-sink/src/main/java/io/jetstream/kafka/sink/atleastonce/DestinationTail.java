package io.jetstream.kafka.sink.atleastonce;

import io.jetstream.kafka.connect.common.config.ClusterClients;
import io.jetstream.kafka.core.batch.RecordHeader;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.model.Clock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Finds where a crashed predecessor began writing a partition when it crashed before any of its
 * progress was stored (at-least-once): the records re-delivered now are the ones it wrote first,
 * so their run is searched among the last records of the destination partition, by fingerprint
 * (key, value, headers and, when the origin record has one, timestamp). Used only for that rare
 * case; with stored progress {@link DestinationOffsets} is exact and reads nothing.
 */
final class DestinationTail {

    /** How many of the last records of a destination partition are searched. */
    static final int WINDOW = 100_000;

    private DestinationTail() {
    }

    /** The fingerprint of a record as replicated. */
    static long fingerprint(ReplicatedRecord record, boolean withTimestamp) {
        long h = mix(mix(start(), record.key()), record.value());
        for (RecordHeader header : record.headers()) {
            h = mixHeader(h, header.key(), header.value());
        }
        return withTimestamp ? mix(h, record.timestamp()) : h;
    }

    /** The fingerprint of a record read back from the destination; equal to the replicated one's. */
    static long fingerprint(ConsumerRecord<byte[], byte[]> record, boolean withTimestamp) {
        long h = mix(mix(start(), record.key()), record.value());
        for (Header header : record.headers()) {
            h = mixHeader(h, header.key(), header.value());
        }
        return withTimestamp ? mix(h, record.timestamp()) : h;
    }

    private static long mixHeader(long h, String key, byte[] value) {
        return mix(mix(h, key.getBytes(StandardCharsets.UTF_8)), value);
    }

    /** Whether fingerprints include timestamps: only when the origin record carried one. */
    static boolean useTimestamps(ReplicatedRecord first) {
        return first.timestampType() != TimestampType.NO_TIMESTAMP_TYPE;
    }

    /**
     * The position in {@code window} where the run {@code redelivered} begins: the earliest
     * position whose following records all match, up to the end of the window or of the run; -1
     * when there is none.
     */
    static int locate(long[] window, long[] redelivered) {
        if (redelivered.length == 0) {
            return -1;
        }
        for (int c = 0; c < window.length; c++) {
            int length = Math.min(redelivered.length, window.length - c);
            boolean matches = true;
            for (int i = 0; i < length && matches; i++) {
                matches = window[c + i] == redelivered[i];
            }
            if (matches) {
                return c;
            }
        }
        return -1;
    }

    /**
     * Fingerprints of the records in {@code [max(start, endOffset - WINDOW), endOffset)} of a
     * destination partition, and the offset of the first; reads uncommitted records too.
     */
    static Window read(ClusterClients cluster, String clientId, TopicPartition partition, long endOffset,
                       boolean withTimestamps, Duration timeout, Clock clock) {
        Map<String, Object> config = cluster.config(clientId);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(partition));
            long begin = consumer.beginningOffsets(List.of(partition), timeout).get(partition);
            long start = Math.max(begin, endOffset - WINDOW);
            long[] fingerprints = new long[(int) Math.max(0, endOffset - start)];
            consumer.seek(partition, start);
            long deadline = clock.nanoTime() + timeout.toNanos();
            while (consumer.position(partition, timeout) < endOffset && clock.nanoTime() - deadline < 0) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.offset() >= start && record.offset() < endOffset) {
                        fingerprints[(int) (record.offset() - start)] = fingerprint(record, withTimestamps);
                    }
                }
            }
            return new Window(start, fingerprints);
        }
    }

    /** Fingerprints of consecutive destination offsets from {@code start} (0 where an offset holds no record). */
    record Window(long start, long[] fingerprints) {
    }

    private static long start() {
        return 0xcbf29ce484222325L;
    }

    private static long mix(long h, byte[] bytes) {
        if (bytes == null) {
            return mix(h, -1L);
        }
        h = mix(h, bytes.length);
        for (byte b : bytes) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    private static long mix(long h, long value) {
        for (int i = 0; i < 8; i++) {
            h ^= (value >>> (i * 8)) & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }
}
