package io.jetstream.kafka.source;

import io.jetstream.kafka.connect.common.metrics.PluginMetricsRegistration;
import io.jetstream.kafka.connect.common.metrics.TaskMetrics;
import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.environment.CpuLoad;
import io.jetstream.kafka.core.environment.OperatingPointMonitor;
import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.FixedBatchPolicy;
import java.nio.file.Files;
import java.time.Duration;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.Test;

/** Every metric the source-site task's metric classes register is in the table of docs/operations.md. */
class SourceSiteMetricsDocTest {

    @Test
    void everyRegisteredMetricIsDocumented() throws Exception {
        String operations = Files.readString(Path.of("../docs/operations.md"));
        TopicPartition p0 = new TopicPartition("orders", 0);
        try (Metrics registry = new Metrics()) {
            SourceSiteMetrics metrics = new SourceSiteMetrics(new TaskMetrics(new PluginMetricsRegistration(new PluginMetricsImpl(registry, Map.of()))));
            ReplicationLag lag = new ReplicationLag(parts -> Map.of(p0, 10L), parts -> Map.of(p0, 5L), null,
                    tp -> 0L, () -> 0L, metrics::meanRecordBytes, System::nanoTime, metrics);
            lag.assign(List.of(p0));
            lag.refresh();
            FixedBatchPolicy policy = new FixedBatchPolicy(new BatchDecision(10, 1_000, Duration.ofMillis(5), 1,
                    1_000L));
            BatchingGauges.register(metrics::gauge, policy, () -> 0L);
            new TaskEnvironment(new OperatingPointMonitor(policy), () -> 0L, () -> false, () -> 0,
                    () -> CpuLoad.UNKNOWN).registerGauges(metrics::gauge);
            FakeSourceCluster source = new FakeSourceCluster("down");
            metrics.originGauges(new OversizedRecords(null, true, () -> 1_000L), new TopicIncarnations(source),
                    new OriginCoverage(source));

            Set<String> names = new TreeSet<>();
            for (MetricName name : registry.metrics().keySet()) {
                if (name.group().equals("plugins") && !name.name().equals("task-instance-id")) {
                    names.add(name.name());
                }
            }
            assertThat(names).contains(ReplicationLag.LAG_RECORDS, ReplicationLag.CATCH_UP, "heartbeats-sent-total",
                            "batch-linger-seconds", "unvouched-offset-jumps-total", "binding-constraint",
                            "resembles-grid-cell")
                    .allSatisfy(name -> assertThat(operations).as("docs/operations.md documents %s", name)
                            .contains("`" + name + "`"));
        }
    }
}
