package io.jetstream.kafka.testkit.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

class WorkloadTest {

    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 3;

    @Test
    void blockingRunLogsEveryAcknowledgedRecordInSourceOrder() {
        AtomicReference<Map<String, Object>> config = new AtomicReference<>();
        WorkloadSpec spec = WorkloadSpec.builder(TOPIC, PARTITIONS).records(300).compressionType("zstd").build();
        Workload workload = new Workload(spec, "source:9092", settings -> {
            config.set(settings);
            return producer();
        });

        ProducedLog log = workload.run();

        assertThat(log.size()).isEqualTo(300);
        assertThat(log.runId()).isEqualTo(workload.runId());
        assertThat(log.failedSends()).isZero();
        assertThat(log.partitions()).hasSize(PARTITIONS);
        List<ProducedRecord> partition1 = log.records(new TopicPartition(TOPIC, 1));
        assertThat(partition1).extracting(ProducedRecord::offset).containsExactlyElementsOf(
                IntStream.range(0, 100).mapToObj(Long::valueOf).toList());
        assertThat(partition1).extracting(ProducedRecord::sequence).startsWith(1L, 4L, 7L);
        ProducerRecord<byte[], byte[]> sent = new RecordFactory(spec, workload.runId(), 0).create(4);
        assertThat(partition1.get(1).valueHash()).isEqualTo(RecordHashes.bytes(sent.value()));
        assertThat(partition1.get(1).headersHash()).isEqualTo(RecordHashes.headers(sent.headers(), Set.of()));
        assertThat(config.get())
                .containsEntry(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd")
                .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false)
                .containsEntry(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1)
                .containsEntry(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "source:9092");
    }

    @Test
    void neverProducesFasterThanItsTargetRate() {
        WorkloadSpec spec = WorkloadSpec.builder(TOPIC, PARTITIONS).records(200).recordsPerSecond(1_000).build();

        long start = System.nanoTime();
        ProducedLog log = new Workload(spec, "source:9092", settings -> producer()).run();
        double seconds = (System.nanoTime() - start) / 1e9;

        assertThat(log.size()).isEqualTo(200);
        // 200 records at 1,000/s take at least 0.2 s (less 10 ms of start-up slack); how much longer
        // depends on the machine, so only the bound load cannot break is asserted.
        assertThat(seconds).isGreaterThanOrEqualTo(0.19);
    }

    @Test
    void runsInTheBackgroundUntilStopped() {
        WorkloadSpec spec = WorkloadSpec.builder(TOPIC, PARTITIONS).records(100_000).recordsPerSecond(500).build();
        Workload workload = new Workload(spec, "source:9092", settings -> producer());

        workload.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> workload.producedCount() >= 20);
        assertThat(workload.isRunning()).isTrue();
        ProducedLog log = workload.stop();

        assertThat(workload.isRunning()).isFalse();
        assertThat(log.size()).isEqualTo(workload.producedCount()).isBetween(20L, 1_000L);
        assertThatThrownBy(workload::start).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void failedSendsAreCountedAndNotExpected() {
        WorkloadSpec spec = WorkloadSpec.builder(TOPIC, PARTITIONS).records(100).build();
        Workload workload = new Workload(spec, "source:9092", settings -> new MockProducer<>(cluster(), true, null,
                new ByteArraySerializer(), new ByteArraySerializer()) {
            @Override
            public synchronized Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
                long seq = RecordFactory.decodeSequence(record.headers().lastHeader("js.seq").value());
                if (seq % 10 == 0) {
                    TimeoutException timeout = new TimeoutException("expired in the accumulator");
                    callback.onCompletion(null, timeout);
                    return CompletableFuture.failedFuture(timeout);
                }
                return super.send(record, callback);
            }
        });

        ProducedLog log = workload.run();

        assertThat(log.failedSends()).isEqualTo(10);
        assertThat(log.size()).isEqualTo(90);
    }

    @Test
    void thePacedScheduleStartsOnceTheTopicsMetadataIsThere() {
        // a first send that waited for metadata would otherwise leave every record due meanwhile to go at once
        WorkloadSpec spec = WorkloadSpec.builder(TOPIC, PARTITIONS).records(5).recordsPerSecond(1_000).build();
        List<String> calls = new java.util.concurrent.CopyOnWriteArrayList<>();
        Workload workload = new Workload(spec, "source:9092", settings -> new MockProducer<>(cluster(), true, null,
                new ByteArraySerializer(), new ByteArraySerializer()) {
            @Override
            public synchronized List<PartitionInfo> partitionsFor(String topic) {
                calls.add("metadata " + topic);
                return super.partitionsFor(topic);
            }

            @Override
            public synchronized Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
                calls.add("send");
                return super.send(record, callback);
            }
        });

        assertThat(workload.run().size()).isEqualTo(5);
        assertThat(calls).containsExactly("metadata " + TOPIC, "send", "send", "send", "send", "send");
    }

    @Test
    void aFailingProducerThreadIsRethrown() {
        WorkloadSpec spec = WorkloadSpec.builder(TOPIC, PARTITIONS).records(10).build();
        MockProducer<byte[], byte[]> broken = producer();
        broken.sendException = new KafkaException("serializer exploded");

        assertThatThrownBy(() -> new Workload(spec, "source:9092", settings -> broken).run())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("on orders failed after 0 sends")
                .hasRootCauseMessage("serializer exploded");
    }

    private static MockProducer<byte[], byte[]> producer() {
        return new MockProducer<>(cluster(), true, null, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static Cluster cluster() {
        Node node = new Node(0, "localhost", 9092);
        List<PartitionInfo> partitions = IntStream.range(0, PARTITIONS)
                .mapToObj(p -> new PartitionInfo(TOPIC, p, node, new Node[] {node}, new Node[] {node}))
                .toList();
        return new Cluster("test", List.of(node), partitions, Set.of(), Set.of());
    }
}
