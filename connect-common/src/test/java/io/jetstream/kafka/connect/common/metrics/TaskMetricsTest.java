package io.jetstream.kafka.connect.common.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
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

    private TaskMetrics plugin(String task) {
        return new TaskMetrics(new PluginMetricsRegistration(
                new PluginMetricsImpl(registry, Map.of("connector", "c", "task", task))));
    }

    @Test
    void twoTasksOfOneWorkerCountSeparately() {
        TaskMetrics task0 = plugin("0");
        TaskMetrics task1 = plugin("1");
        task0.counter("records-out", "Records.", true).record(5);
        task1.counter("records-out", "Records.", true).record(2);
        assertThat(value("records-out-total", "0")).isEqualTo(5);
        assertThat(value("records-out-total", "1")).isEqualTo(2);
    }

    @Test
    void aSecondInstanceOfATaskWhoseNamesAreHeldKeepsItsFiguresPrivately() {
        PluginMetricsRegistration shared = new PluginMetricsRegistration(
                new PluginMetricsImpl(registry, Map.of("connector", "c", "task", "0")));
        TaskMetrics orphan = new TaskMetrics(shared);
        orphan.counter("records-out", "Records.", false).record(3);
        TaskMetrics successor = new TaskMetrics(shared);
        successor.counter("records-out", "Records.", false).record(4);
        successor.gauge("buffered-bytes", "Bytes.", () -> 1);
        assertThat(value("records-out-total", "0")).as("the orphan's figure stays exported").isEqualTo(3);
    }

    @Test
    void taggedCountersCountPerTagSet() {
        TaskMetrics task = plugin("0");
        task.counter("offset-gaps", "Gaps.", Map.of("topic", "t", "partition", "0")).record(1);
        task.counter("offset-gaps", "Gaps.", Map.of("topic", "t", "partition", "1")).record(2);
        MetricName p1 = registry.metricName("offset-gaps-total", "plugins", "",
                Map.of("connector", "c", "task", "0", "topic", "t", "partition", "1"));
        assertThat(((Number) registry.metric(p1).metricValue()).doubleValue()).isEqualTo(2);
    }

    @Test
    void usesTheWorkersPluginMetricsWhereItHasThem() {
        PluginMetricsImpl worker = new PluginMetricsImpl(registry, Map.of("connector", "c", "task", "3"));
        TaskMetrics metrics = TaskMetrics.forTask(() -> worker, "c", 3);
        metrics.counter("records-out", "Records.", false).record(7);
        assertThat(metrics.exported()).isTrue();
        assertThat(value("records-out-total", "3")).isEqualTo(7);
    }

    @Test
    void onAWorkerWithoutPluginMetricsExportsOverJmxUnderConnectsNamesUntilClosed() throws Exception {
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("kafka.connect:type=plugins,connector=old-worker,task=2");
        // What a Kafka Connect 3.x task context does when asked for pluginMetrics().
        TaskMetrics metrics = TaskMetrics.forTask(() -> {
            throw new NoSuchMethodError("SinkTaskContext.pluginMetrics()");
        }, "old-worker", 2);
        try {
            metrics.counter("records-out", "Records.", true).record(4);
            metrics.gauge("buffered-bytes", "Bytes.", () -> 12);
            assertThat(metrics.exported()).isTrue();
            assertThat(((Number) jmx.getAttribute(name, "records-out-total")).doubleValue()).isEqualTo(4);
            assertThat(((Number) jmx.getAttribute(name, "buffered-bytes")).doubleValue()).isEqualTo(12);

            TaskMetrics orphaned = TaskMetrics.forTask(() -> {
                throw new NoSuchMethodError("SinkTaskContext.pluginMetrics()");
            }, "old-worker", 2);
            orphaned.counter("records-out", "Records.", true).record(100);
            assertThat(orphaned.exported()).as("a second instance of the task while the first holds the names")
                    .isFalse();
            assertThat(((Number) jmx.getAttribute(name, "records-out-total")).doubleValue()).isEqualTo(4);
            orphaned.close();
        } finally {
            metrics.close();
        }
        assertThat(jmx.isRegistered(name)).as("the MBean goes with the task").isFalse();
    }
}
