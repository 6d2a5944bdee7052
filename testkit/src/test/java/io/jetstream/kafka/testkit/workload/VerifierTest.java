package io.jetstream.kafka.testkit.workload;

import static io.jetstream.kafka.testkit.workload.Fixtures.TOPIC;
import static io.jetstream.kafka.testkit.workload.Fixtures.destination;
import static io.jetstream.kafka.testkit.workload.Fixtures.producedLog;
import static io.jetstream.kafka.testkit.workload.Fixtures.sourceOrder;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The consume loop against {@link MockConsumer}: when it stops, what it counts, how it is configured. */
class VerifierTest {

    private static final int COUNT = 20;
    private static final String DESTINATION = "A." + TOPIC;

    @Test
    void stopsOnceEverythingArrivedAndTheConsumerCaughtUp() {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>(destination(DESTINATION, 0, sourceOrder(0, COUNT)));
        records.addAll(destination(DESTINATION, 1, sourceOrder(1, COUNT)));
        AtomicReference<Map<String, Object>> config = new AtomicReference<>();

        VerificationReport report = Verifier.builder("site-b:9092")
                .topicMapping(Map.of(TOPIC, DESTINATION))
                .samePartitions(true)
                .deadline(Duration.ofSeconds(30))
                .consumerFactory(settings -> {
                    config.set(settings);
                    return consumerWith(records);
                })
                .build()
                .verify(producedLog(COUNT));

        assertThat(report.isPerfect()).as(report.toString()).isTrue();
        assertThat(report.elapsed()).isLessThan(Duration.ofSeconds(10));
        assertThat(config.get())
                .containsEntry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                .containsEntry(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "site-b:9092");
    }

    @Test
    void readsToTheEndSoLateDuplicatesAreCounted() {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        List<Long> partition0 = new ArrayList<>(sourceOrder(0, COUNT));
        partition0.addAll(sourceOrder(0, COUNT).subList(7, 10)); // a replay after everything had arrived
        records.addAll(destination(DESTINATION, 0, partition0));
        records.addAll(destination(DESTINATION, 1, sourceOrder(1, COUNT)));

        VerificationReport report = Verifier.builder("site-b:9092")
                .topicMapping(topic -> "A." + topic)
                .consumerFactory(settings -> consumerWith(records))
                .build()
                .verify(producedLog(COUNT));

        assertThat(report.duplicates()).isEqualTo(3);
        assertThat(report.missing()).isZero();
    }

    @Test
    void aDestinationThatNeverAppearsLeavesEverythingMissingAtTheDeadline() {
        VerificationReport report = Verifier.builder("site-b:9092")
                .isolationLevel(IsolationLevel.READ_UNCOMMITTED)
                .deadline(Duration.ofMillis(300))
                .consumerFactory(settings -> new MockConsumer<>("earliest"))
                .build()
                .verify(producedLog(COUNT));

        assertThat(report.missing()).isEqualTo(COUNT);
        assertThat(report.delivered()).isZero();
        assertThat(report.elapsed()).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(report.summaryLine()).startsWith("events=20 delivered=0 lost=20 duplicates=0");
    }

    @Test
    void followsAPartitionAddedToTheDestinationWhileItWaits() {
        Node node = new Node(0, "localhost", 9092);
        TopicPartition p0 = new TopicPartition(DESTINATION, 0);
        TopicPartition p1 = new TopicPartition(DESTINATION, 1);
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
        consumer.updatePartitions(DESTINATION, List.of(new PartitionInfo(DESTINATION, 0, node, new Node[] {node},
                new Node[] {node})));
        consumer.updateBeginningOffsets(Map.of(p0, 0L, p1, 0L));
        consumer.updateEndOffsets(Map.of(p0, (long) sourceOrder(0, COUNT).size(), p1, (long) sourceOrder(1, COUNT).size()));
        consumer.schedulePollTask(() -> {
            destination(DESTINATION, 0, sourceOrder(0, COUNT)).forEach(consumer::addRecord);
            // the replicator grows the topic after the verifier looked it up
            consumer.updatePartitions(DESTINATION, List.of(
                    new PartitionInfo(DESTINATION, 0, node, new Node[] {node}, new Node[] {node}),
                    new PartitionInfo(DESTINATION, 1, node, new Node[] {node}, new Node[] {node})));
        });
        consumer.schedulePollTask(new Runnable() {
            @Override
            public void run() {
                if (consumer.assignment().contains(p1)) {
                    destination(DESTINATION, 1, sourceOrder(1, COUNT)).forEach(consumer::addRecord);
                } else {
                    consumer.schedulePollTask(this);
                }
            }
        });

        VerificationReport report = Verifier.builder("site-b:9092")
                .topicMapping(topic -> "A." + topic)
                .samePartitions(true)
                .deadline(Duration.ofSeconds(30))
                .consumerFactory(settings -> consumer)
                .build()
                .verify(producedLog(COUNT));

        assertThat(report.isPerfect()).as(report.toString()).isTrue();
        assertThat(report.elapsed()).as("stopped once caught up, not at the deadline").isLessThan(Duration.ofSeconds(20));
    }

    /** A consumer of {@value #DESTINATION} (2 partitions) that returns {@code records} on its first poll. */
    private static MockConsumer<byte[], byte[]> consumerWith(List<ConsumerRecord<byte[], byte[]>> records) {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
        Node node = new Node(0, "localhost", 9092);
        List<PartitionInfo> infos = new ArrayList<>();
        Map<TopicPartition, Long> beginning = new HashMap<>();
        Map<TopicPartition, Long> end = new HashMap<>();
        for (int p = 0; p < 2; p++) {
            infos.add(new PartitionInfo(DESTINATION, p, node, new Node[] {node}, new Node[] {node}));
            beginning.put(new TopicPartition(DESTINATION, p), 0L);
            end.put(new TopicPartition(DESTINATION, p), 0L);
        }
        records.forEach(record -> end.merge(new TopicPartition(record.topic(), record.partition()), 1L, Long::sum));
        consumer.updatePartitions(DESTINATION, infos);
        consumer.updateBeginningOffsets(beginning);
        consumer.updateEndOffsets(end);
        consumer.schedulePollTask(() -> records.forEach(consumer::addRecord));
        return consumer;
    }
}
