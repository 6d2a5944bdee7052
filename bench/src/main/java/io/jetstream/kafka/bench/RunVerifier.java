package io.jetstream.kafka.bench;

import io.jetstream.kafka.testkit.workload.DeliveryTracker;
import io.jetstream.kafka.testkit.workload.ProducedLog;
import io.jetstream.kafka.testkit.workload.VerificationReport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Checks a variant's destination topic against every run produced into its source topic (warm-up,
 * latency phase, backlog) in one pass: reads the topic from the beginning to the end offsets seen
 * once everything has arrived (so duplicates written by then count), feeding each record to one
 * {@link DeliveryTracker} per run, which hash every key, value and header and check placement and
 * per-partition order. One pass instead of one {@code Verifier} per run: the backlog is hundreds of MB.
 */
final class RunVerifier {

    /** What the destination holds of one variant: the runs' reports and their sums. */
    record Outcome(List<VerificationReport> reports) {
        long expected() {
            return reports.stream().mapToLong(VerificationReport::expected).sum();
        }

        long lost() {
            return reports.stream().mapToLong(VerificationReport::missing).sum();
        }

        long duplicates() {
            return reports.stream().mapToLong(VerificationReport::duplicates).sum();
        }

        /** Order and placement hold, and every record arrived unchanged. */
        boolean orderOk() {
            return reports.stream().allMatch(r -> r.orderOk() && r.fieldMismatches() == 0 && r.unexpected() == 0);
        }
    }

    private RunVerifier() {
    }

    static Outcome verify(String bootstrapServers, String destinationTopic, List<ProducedLog> runs, Duration timeout)
            throws TimeoutException {
        List<DeliveryTracker> trackers = new ArrayList<>();
        for (ProducedLog run : runs) {
            trackers.add(new DeliveryTracker(run, topic -> destinationTopic, true, true, Set.of()));
        }
        long start = System.nanoTime();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.CLIENT_ID_CONFIG, "bench-verifier",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class))) {
            List<TopicPartition> partitions = consumer.partitionsFor(destinationTopic, timeout).stream()
                    .map(info -> new TopicPartition(destinationTopic, info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (!caughtUp(consumer, end)) {
                if (System.nanoTime() - start > timeout.toNanos()) {
                    throw new TimeoutException("verifying " + destinationTopic + " took longer than " + timeout);
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    trackers.forEach(tracker -> tracker.observe(record));
                }
            }
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        return new Outcome(trackers.stream().map(t -> t.report(elapsed)).toList());
    }

    private static boolean caughtUp(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }
}
