package io.jetstream.kafka.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TaskMetricsTest {

    private final Metrics registry = new Metrics();

    @AfterEach
    void close() {
        registry.close();
    }

    private double value(String metric, String task) {
        MetricName name = registry.metricName(metric, "plugins", "", Map.of("connector", "c", "task", task));
        return ((Number) registry.metric(name).metricValue()).doubleValue();
    }

    @Test
    void twoTasksOfOneWorkerCountSeparately() {
        TaskMetrics task0 = new TaskMetrics(new PluginMetricsImpl(registry, Map.of("connector", "c", "task", "0")));
        TaskMetrics task1 = new TaskMetrics(new PluginMetricsImpl(registry, Map.of("connector", "c", "task", "1")));
        task0.counter("records-out", "Records.", true).record(5);
        task1.counter("records-out", "Records.", true).record(2);
        assertThat(value("records-out-total", "0")).isEqualTo(5);
        assertThat(value("records-out-total", "1")).isEqualTo(2);
    }

    @Test
    void aSecondInstanceOfATaskWhoseNamesAreHeldKeepsItsFiguresPrivately() {
        PluginMetricsImpl shared = new PluginMetricsImpl(registry, Map.of("connector", "c", "task", "0"));
        TaskMetrics orphan = new TaskMetrics(shared);
        orphan.counter("records-out", "Records.", false).record(3);
        TaskMetrics successor = new TaskMetrics(shared);
        successor.counter("records-out", "Records.", false).record(4);
        successor.gauge("buffered-bytes", "Bytes.", () -> 1);
        assertThat(value("records-out-total", "0")).as("the orphan's figure stays exported").isEqualTo(3);
    }

    @Test
    void taggedCountersCountPerTagSet() {
        TaskMetrics task = new TaskMetrics(new PluginMetricsImpl(registry, Map.of("connector", "c", "task", "0")));
        task.counter("offset-gaps", "Gaps.", Map.of("topic", "t", "partition", "0")).record(1);
        task.counter("offset-gaps", "Gaps.", Map.of("topic", "t", "partition", "1")).record(2);
        MetricName p1 = registry.metricName("offset-gaps-total", "plugins", "",
                Map.of("connector", "c", "task", "0", "topic", "t", "partition", "1"));
        assertThat(((Number) registry.metric(p1).metricValue()).doubleValue()).isEqualTo(2);
    }
}
