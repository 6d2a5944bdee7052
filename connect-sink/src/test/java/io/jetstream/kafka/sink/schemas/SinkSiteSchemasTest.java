package io.jetstream.kafka.sink.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.connect.common.metrics.PluginMetricsRegistration;
import io.jetstream.kafka.connect.common.metrics.TaskMetrics;
import io.jetstream.kafka.core.batch.BatchEncoder;
import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.AckStatus;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.schema.RegisteredSchema;
import io.jetstream.kafka.schema.SchemaRegistryClient;
import io.jetstream.kafka.schema.SchemaRegistryException;
import io.jetstream.kafka.schema.SchemaTranslator;
import io.jetstream.kafka.schema.ShippedSchema;
import io.jetstream.kafka.schema.SubjectNameStrategy;
import io.jetstream.kafka.schema.WireFormat;
import io.jetstream.kafka.sink.metrics.SinkSiteMetrics;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import io.jetstream.kafka.sink.receiver.FrameIntegrity;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver;
import io.jetstream.kafka.sink.receiver.ReplicationReceiverTest;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Schema translation inside the destination's receiver: nothing is written with an untranslated id. */
class SinkSiteSchemasTest {

    private static final RegisteredSchema V1 = RegisteredSchema.avro("{\"type\":\"record\",\"name\":\"Order\","
            + "\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}");

    /** The destination registry: ids from 100, refusing while told to, counting registrations by subject. */
    static final class FakeRegistry implements SchemaRegistryClient {
        final List<String> subjects = new ArrayList<>();
        volatile SchemaRegistryException.Kind failure;

        @Override
        public RegisteredSchema schemaById(int id) throws SchemaRegistryException {
            throw new SchemaRegistryException(SchemaRegistryException.Kind.NOT_FOUND, 404, "not used here");
        }

        @Override
        public synchronized int register(String subject, RegisteredSchema schema) throws SchemaRegistryException {
            if (failure != null) {
                throw new SchemaRegistryException(failure, failure == SchemaRegistryException.Kind.INCOMPATIBLE
                        ? 409 : 0, "refused: " + failure);
            }
            subjects.add(subject);
            return 100;
        }
    }

    private final ReplicationReceiverTest.FakeUpstream upstream = new ReplicationReceiverTest.FakeUpstream();
    private final ReplicationReceiverTest.FakeTopics topics = new ReplicationReceiverTest.FakeTopics();
    private final FakeRegistry registry = new FakeRegistry();
    private final Metrics metrics = new Metrics();
    private final BatchEncoder encoder = new BatchEncoder();
    private final TopicNamingPolicy naming = TopicNamingPolicy.create("prefix", "A", ".");
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final SinkSiteMetrics sinkMetrics = new SinkSiteMetrics(new TaskMetrics(
            new PluginMetricsRegistration(new PluginMetricsImpl(metrics, Map.of()))));
    private final ReplicationReceiver receiver = new ReplicationReceiver(new ReplicationReceiver.Settings("demo",
            Pattern.compile(".*"), naming, "B", 1 << 20, 1000),
            (topic, partition) -> ReplicationReceiver.Progress.NONE, topics, sinkMetrics, Runnable::run,
            FrameIntegrity.OFF, new SinkSiteSchemas(registry, new SchemaTranslator(registry, SubjectNameStrategy.TOPIC,
                    SubjectNameStrategy.TOPIC, 100), naming, sinkMetrics, Duration.ofMinutes(10), now::get));
    private long nextId = 1;

    @AfterEach
    void close() {
        receiver.close();
        metrics.close();
    }

    private BatchFrame batch(long prev, byte[]... values) {
        List<ReplicatedRecord> records = new ArrayList<>();
        long offset = prev + 1;
        for (byte[] value : values) {
            records.add(new ReplicatedRecord(offset++, 1000, "key".getBytes(), value));
        }
        return BatchFrame.copyOf(RoutingHeader.unrouted("demo", nextId++, "node-1", "B"),
                encoder.encode(new RecordBatch("orders", 0, prev, records), CompressionCodec.NONE),
                System.currentTimeMillis(), UnpooledByteBufAllocator.DEFAULT);
    }

    private void shipSchemas(ShippedSchema... schemas) {
        Map<String, String> configs = new HashMap<>(Map.of("cleanup.policy", "compact"));
        for (ShippedSchema schema : schemas) {
            configs.put(schema.key(), schema.encode());
        }
        receiver.onFrame(upstream, new TopicMetadataFrame(RoutingHeader.unrouted("demo", nextId++, "node-1", "B"),
                "orders", 3, configs));
    }

    private List<byte[]> pollValues() throws InterruptedException {
        return receiver.poll(Duration.ofMillis(10)).stream().map(d -> d.record().value()).toList();
    }

    @Test
    void aBatchWithAnIdNotShippedYetIsRefusedRetriablyThenWrittenTranslated() throws Exception {
        receiver.onFrame(upstream, batch(-1, WireFormat.frame(7, new byte[] {42})));
        assertThat(pollValues()).as("never written with the source's id").isEmpty();
        AckFrame refusal = upstream.acks.get(0);
        assertThat(refusal.reason()).isEqualTo(AckReason.WRITE_FAILED);
        assertThat(refusal.reason().retriable()).isTrue();
        assertThat(refusal.message()).startsWith(SchemaTranslator.MISSING_PREFIX);

        shipSchemas(ShippedSchema.translated(7, V1));
        assertThat(topics.applied).singleElement().satisfies(applied ->
                assertThat(applied.configs()).as("schemas are not topic configs")
                        .containsOnly(Map.entry("cleanup.policy", "compact")));

        receiver.onFrame(upstream, batch(-1, WireFormat.frame(7, new byte[] {42}), "plain".getBytes()));
        List<byte[]> values = pollValues();
        assertThat(values).hasSize(2);
        assertThat(WireFormat.schemaId(values.get(0))).isEqualTo(100);
        assertThat(values.get(0)).endsWith(42);
        assertThat(values.get(1)).isEqualTo("plain".getBytes());
        assertThat(registry.subjects).containsExactly("A.orders-value");
    }

    @Test
    void anIncompatibleSchemaHoldsThePartitionUntilTheRegistryTakesIt() throws Exception {
        shipSchemas(ShippedSchema.translated(7, V1));
        registry.failure = SchemaRegistryException.Kind.INCOMPATIBLE;
        receiver.onFrame(upstream, batch(-1, WireFormat.frame(7, new byte[] {1})));
        assertThat(pollValues()).isEmpty();
        assertThat(upstream.acks).last().satisfies(ack -> {
            assertThat(ack.reason()).isEqualTo(AckReason.WRITE_FAILED);
            assertThat(ack.message()).contains("incompatible", "A.orders-value", "source schema id 7");
        });
        assertThat(metric("schema-held-partitions")).isEqualTo(1.0);
        assertThat(metric("schema-incompatible-total")).isEqualTo(1.0);

        receiver.onFrame(upstream, batch(0, WireFormat.frame(7, new byte[] {2})));
        assertThat(pollValues()).as("a successor needing the same registration is refused too").isEmpty();
        assertThat(metric("schema-held-partitions")).as("still held").isEqualTo(1.0);

        registry.failure = SchemaRegistryException.Kind.UNAVAILABLE;
        receiver.onFrame(upstream, batch(-1, WireFormat.frame(7, new byte[] {1})));
        assertThat(pollValues()).isEmpty();

        registry.failure = null;
        receiver.onFrame(upstream, batch(-1, WireFormat.frame(7, new byte[] {1})));
        assertThat(pollValues()).singleElement().satisfies(v -> assertThat(WireFormat.schemaId(v)).isEqualTo(100));
        assertThat(metric("schema-held-partitions")).isZero();
        receiver.onFrame(upstream, batch(0, WireFormat.frame(7, new byte[] {2})));
        assertThat(pollValues()).as("the successor, sent again").singleElement()
                .satisfies(v -> assertThat(v).containsExactly(0, 0, 0, 0, 100, 2));
        assertThat(upstream.acks).filteredOn(a -> a.status() == AckStatus.NACK).hasSize(3);
    }

    @Test
    void aPartitionHeldLongerThanTheHoldTimeoutFailsTheTaskWithTheReason() throws Exception {
        SinkSiteSchemas schemas = new SinkSiteSchemas(registry, new SchemaTranslator(registry,
                SubjectNameStrategy.TOPIC, SubjectNameStrategy.TOPIC, 100), naming,
                new SinkSiteMetrics(new TaskMetrics(
                new PluginMetricsRegistration(new PluginMetricsImpl(new Metrics(), Map.of())))), Duration.ofMinutes(10), now::get);
        RecordBatch held = new RecordBatch("orders", 0, -1, List.of(new ReplicatedRecord(0, 1, null,
                WireFormat.frame(7, new byte[] {1}))));
        assertThat(schemas.translate(held, true)).startsWith(SchemaTranslator.MISSING_PREFIX);
        now.addAndGet(Duration.ofMinutes(9).toNanos());
        assertThat(schemas.translate(held, true)).as("held again: the clock runs from the first hold").isNotNull();
        assertThat(schemas.overdue()).isNull();
        now.addAndGet(Duration.ofMinutes(2).toNanos());
        assertThat(schemas.overdue()).contains("orders-0", "schema.translation.hold.timeout.ms=600000",
                "is schema.translation.enabled on the source-site connector?");

        schemas.accept(new TopicMetadataFrame(RoutingHeader.unrouted("demo", 1, "node-1", "B"), "orders", 1,
                Map.of(ShippedSchema.translated(7, V1).key(), ShippedSchema.translated(7, V1).encode())));
        assertThat(schemas.translate(held, true)).isNull();
        assertThat(schemas.overdue()).as("released once a batch passes in order").isNull();
    }

    @Test
    void passedIdsAreWrittenUnchanged() throws Exception {
        shipSchemas(ShippedSchema.passed(9, "a JSON schema"));
        byte[] json = WireFormat.frame(9, "{}".getBytes());
        receiver.onFrame(upstream, batch(-1, json.clone()));
        assertThat(pollValues()).singleElement().isEqualTo(json);
        assertThat(registry.subjects).isEmpty();
    }

    private double metric(String name) {
        return metrics.metrics().entrySet().stream().filter(e -> e.getKey().name().equals(name))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }
}
