package io.jetstream.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.connect.common.metrics.PluginMetricsRegistration;
import io.jetstream.kafka.connect.common.metrics.TaskMetrics;
import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.RecordHeader;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.FixedBatchPolicy;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.source.sender.FakeRelay;
import io.jetstream.kafka.source.sender.ReplicationSender;
import io.jetstream.kafka.source.sender.SenderIntegrity;
import io.jetstream.kafka.source.sender.SenderSettings;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RefusedBatchesTest {

    private final FakeRelay relay = new FakeRelay("r1");
    private final Metrics kafkaMetrics = new Metrics();
    private final TopicPartition p0 = new TopicPartition("orders", 3);
    private final ReplicationSender sender = new ReplicationSender(new SenderSettings("demo", "node-1",
            "B", CompressionCodec.ZSTD, Duration.ofSeconds(10), Duration.ofMillis(200), 1L << 30,
            SenderIntegrity.OFF, Duration.ZERO, true), List.of(relay),
            new FixedBatchPolicy(new BatchDecision(2, 1 << 20, Duration.ofMillis(20), 100, 64L << 20)),
            System::nanoTime, UnpooledByteBufAllocator.DEFAULT,
            new SourceSiteMetrics(new TaskMetrics(new PluginMetricsRegistration(
                    new PluginMetricsImpl(kafkaMetrics, Map.of())))));

    @AfterEach
    void release() {
        sender.close();
        relay.releaseAll();
        kafkaMetrics.close();
    }

    @Test
    void everyRecordOfARefusedBatchIsReportedAsConnectHandedItOverBeforeTheMarkerLeaves() {
        sender.assign(List.of(p0));
        sender.append(p0, new ReplicatedRecord(40, 1_700_000_000_000L, TimestampType.CREATE_TIME, "k".getBytes(),
                "v".getBytes(), List.of(new RecordHeader("h", "1".getBytes()), new RecordHeader("n", null))));
        sender.append(p0, new ReplicatedRecord(42, -1L, TimestampType.NO_TIMESTAMP_TYPE, null, null, List.of()));
        sender.onFrame(relay, AckFrame.nack(relay.sent.get(0).header(), AckReason.NOT_AUTHORIZED, "topic orders is "
                + "not allowed by topics.allow"));
        List<SinkRecord> reported = new ArrayList<>();
        List<Throwable> errors = new ArrayList<>();
        List<Integer> framesSentWhenReported = new ArrayList<>();
        ErrantRecordReporter reporter = (record, error) -> {
            reported.add(record);
            errors.add(error);
            framesSentWhenReported.add(relay.sent.size());
            return CompletableFuture.completedFuture(null);
        };

        new RefusedBatches(reporter, "dlq").handle(sender);

        assertThat(reported).hasSize(2);
        SinkRecord first = reported.get(0);
        assertThat(first.topic()).isEqualTo("orders");
        assertThat(first.kafkaPartition()).isEqualTo(3);
        assertThat(first.kafkaOffset()).isEqualTo(40);
        assertThat(first.timestamp()).isEqualTo(1_700_000_000_000L);
        assertThat(first.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
        assertThat((byte[]) first.key()).isEqualTo("k".getBytes());
        assertThat((byte[]) first.value()).isEqualTo("v".getBytes());
        assertThat(first.headers()).extracting(h -> h.key()).containsExactly("h", "n");
        assertThat((byte[]) first.headers().lastWithName("h").value()).isEqualTo("1".getBytes());
        assertThat(first.headers().lastWithName("n").value()).isNull();
        SinkRecord second = reported.get(1);
        assertThat(second.kafkaOffset()).isEqualTo(42);
        assertThat(second.key()).isNull();
        assertThat(second.value()).isNull();
        assertThat(second.timestamp()).as("a long for the dead letter queue's record, never null").isEqualTo(-1L);
        assertThat(errors).allSatisfy(e -> assertThat(e).isInstanceOf(DataException.class)
                .hasMessageContaining("orders-3 source offsets 40..42 (2 records)")
                .hasMessageContaining("NOT_AUTHORIZED topic orders is not allowed by topics.allow"));
        assertThat(framesSentWhenReported).as("reported before the marker leaves").containsOnly(1);
        assertThat(relay.sent).hasSize(2);
        assertThat(relay.sent.get(1).header().recordCount()).as("then the marker").isZero();
    }

    @Test
    void withoutAReporterTheBatchIsSkippedWithAWarningOnly() {
        sender.assign(List.of(p0));
        sender.append(p0, new ReplicatedRecord(0, 1L, "k".getBytes(), "v".getBytes()));
        sender.append(p0, new ReplicatedRecord(1, 1L, "k".getBytes(), "v".getBytes()));
        sender.onFrame(relay, AckFrame.nack(relay.sent.get(0).header(), AckReason.OBSOLETE_INCARNATION, "gone"));
        new RefusedBatches(null, null).handle(sender);
        assertThat(relay.sent).hasSize(2);
        assertThat(sender.fatalError()).isNull();
    }
}
