package io.jetstream.kafka.connect.common.metrics;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;

/**
 * Metrics registered through the worker's {@link PluginMetrics} (KIP-877, Kafka 4.1): they appear in
 * the worker's JMX and in every metrics reporter it runs, tagged with the connector and task, and
 * the worker removes them when the task stops.
 *
 * <p>The only class of JetStream that names {@code PluginMetrics}: it is loaded only on workers
 * whose Kafka clients have it ({@link TaskMetrics#forTask}).
 */
public final class PluginMetricsRegistration implements MetricsRegistration {

    private final PluginMetrics metrics;

    public PluginMetricsRegistration(PluginMetrics metrics) {
        this.metrics = metrics;
    }

    /** {@code pluginMetrics} as a {@link PluginMetrics}; callers that cannot name the type pass it untyped. */
    static PluginMetricsRegistration of(Object pluginMetrics) {
        return new PluginMetricsRegistration((PluginMetrics) pluginMetrics);
    }

    @Override
    public MetricName metricName(String name, String description, Map<String, String> tags) {
        return metrics.metricName(name, description, new LinkedHashMap<>(tags));
    }

    @Override
    public void addMetric(MetricName name, MetricValueProvider<?> provider) {
        metrics.addMetric(name, provider);
    }

    @Override
    public void removeMetric(MetricName name) {
        metrics.removeMetric(name);
    }

    @Override
    public Sensor addSensor(String name) {
        return metrics.addSensor(name);
    }

    @Override
    public boolean exported() {
        return true;
    }

    /** Nothing to do: the worker closes a task's plugin metrics when the task stops. */
    @Override
    public void close() {
    }
}
