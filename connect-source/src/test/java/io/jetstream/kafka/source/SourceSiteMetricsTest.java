package io.jetstream.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.connect.common.metrics.PluginMetricsRegistration;
import io.jetstream.kafka.connect.common.metrics.TaskMetrics;
import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.FixedBatchPolicy;
import io.jetstream.kafka.source.sender.Relay;
import io.jetstream.kafka.source.sender.ReplicationSender;
import io.jetstream.kafka.source.sender.SenderIntegrity;
import io.jetstream.kafka.source.sender.SenderSettings;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SourceSiteMetricsTest {

    private final Metrics registry = new Metrics();
    private final SourceSiteMetrics metrics = new SourceSiteMetrics(new TaskMetrics(new PluginMetricsRegistration(
            new PluginMetricsImpl(registry, Map.of()))));

    @AfterEach
    void close() {
        metrics.close();
        registry.close();
    }

    @Test
    void senderGaugesReadTheSendersBufferAndThePauseFlag() {
        ReplicationSender sender = new ReplicationSender(new SenderSettings("demo", "node-1", "B",
                CompressionCodec.NONE, Duration.ofSeconds(10), Duration.ofMillis(200), 1 << 20, SenderIntegrity.OFF),
                List.of(new IdleRelay()), new FixedBatchPolicy(new BatchDecision(10, 1 << 16, Duration.ofMillis(5), 4,
                1L << 20)), () -> 0L, UnpooledByteBufAllocator.DEFAULT, metrics);
        AtomicBoolean paused = new AtomicBoolean();
        metrics.senderGauges(sender::bufferedBytes, sender::inFlightBatches, paused::get);

        assertThat(gauge("buffered-bytes")).isEqualTo(0L);
        assertThat(gauge("in-flight-batches")).isEqualTo(0);
        assertThat(gauge("paused")).isEqualTo(0);
        paused.set(true);
        assertThat(gauge("paused")).isEqualTo(1);
        sender.close();
    }

    @Test
    void originGaugesReadWhatTheTaskFoundInTheSourceCluster() {
        FakeSourceCluster source = new FakeSourceCluster("down");
        metrics.originGauges(new OversizedRecords(null, true, () -> 1_000L), new TopicIncarnations(source),
                new OriginCoverage(source));

        assertThat(gauge("oversized-records-total")).isEqualTo(0L);
        assertThat(gauge("topic-recreations-total")).isEqualTo(0L);
        assertThat(gauge("offset-truncations-total")).isEqualTo(0L);
        assertThat(gauge("origin-offset-checks-total")).isEqualTo(0L);
        assertThat(gauge("unvouched-offset-jumps-total")).isEqualTo(0L);
    }

    /** A relay that never becomes ready. */
    private static final class IdleRelay implements Relay {
        @Override
        public String name() {
            return "idle";
        }

        @Override
        public boolean isReady() {
            return false;
        }

        @Override
        public boolean send(io.jetstream.kafka.core.protocol.Frame frame) {
            io.netty.util.ReferenceCountUtil.release(frame);
            return false;
        }

        @Override
        public int maxBatchPayloadBytes() {
            return 0;
        }
    }

    private Object gauge(String name) {
        for (Map.Entry<MetricName, ? extends org.apache.kafka.common.Metric> e : registry.metrics().entrySet()) {
            if (e.getKey().name().equals(name)) {
                return e.getValue().metricValue();
            }
        }
        throw new AssertionError("no gauge " + name);
    }
}
