package io.jetstream.kafka.sink.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.connect.common.metrics.PluginMetricsRegistration;
import io.jetstream.kafka.connect.common.metrics.TaskMetrics;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import io.jetstream.kafka.sink.offsetmap.OffsetMapWriter;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.Test;

/** Every metric the destination-site task's metric class registers is in the table of docs/operations.md. */
class SinkSiteMetricsDocTest {

    @Test
    void everyRegisteredMetricIsDocumented() throws Exception {
        String operations = Files.readString(Path.of("../docs/operations.md"));
        TopicPartition p0 = new TopicPartition("orders", 0);
        try (Metrics registry = new Metrics()) {
            SinkSiteMetrics metrics = new SinkSiteMetrics(new TaskMetrics(new PluginMetricsRegistration(new PluginMetricsImpl(registry, Map.of()))));
            metrics.heard(p0, System.currentTimeMillis());
            metrics.written(p0, System.currentTimeMillis());
            metrics.gap(p0, 3);
            metrics.recreation(p0);
            OffsetMapWriter offsetMap = new OffsetMapWriter("A", TopicNamingPolicy.create("prefix", "A", "."), false,
                    new OffsetMapWriter.Positions() {
                        @Override
                        public long endOffset(String destinationTopic, int partition) {
                            return 0;
                        }

                        @Override
                        public ReplicationReceiver.Progress stored(TopicPartition origin) {
                            return ReplicationReceiver.Progress.NONE;
                        }
                    });
            metrics.offsetMapGauges(offsetMap::entries, offsetMap::corrections, offsetMap::unmappedRecords);

            Set<String> names = new TreeSet<>();
            for (MetricName name : registry.metrics().keySet()) {
                if (name.group().equals("plugins") && !name.name().equals("task-instance-id")) {
                    names.add(name.name());
                }
            }
            assertThat(names).contains(EndToEndLiveness.HEARTBEAT_AGE, EndToEndLiveness.RECORD_AGE,
                            "offset-map-entries-total", "offset-map-unmapped-records-total")
                    .allSatisfy(name -> assertThat(operations).as("docs/operations.md documents %s", name)
                            .contains("`" + name + "`"));
        }
    }
}
