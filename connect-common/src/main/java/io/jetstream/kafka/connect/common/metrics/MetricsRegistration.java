package io.jetstream.kafka.connect.common.metrics;

import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.Sensor;

/**
 * Where one task's metrics are registered: the worker's plugin metrics (Kafka Connect 4.1 and
 * later, {@link PluginMetricsRegistration}) or a registry of the task's own
 * ({@link OwnMetricsRegistration}: on older workers, exported over JMX under the same names; or
 * private, for a task instance whose names another instance still holds).
 *
 * <p>The methods are those of Kafka's {@code PluginMetrics} (KIP-877), so that {@link TaskMetrics}
 * reads the same on every worker; only the types of Kafka 3.x clients appear here.
 */
public interface MetricsRegistration extends AutoCloseable {

    /** A metric name in this registration's group, with its fixed tags (connector, task) and {@code tags}. */
    MetricName metricName(String name, String description, Map<String, String> tags);

    /** Registers a metric; {@link IllegalArgumentException} when the name is taken. */
    void addMetric(MetricName name, MetricValueProvider<?> provider);

    /** Removes a metric registered here; nothing when it is not registered. */
    void removeMetric(MetricName name);

    /** The sensor of that name, created on first use. */
    Sensor addSensor(String name);

    /** Whether the metrics reach the worker's JMX (or its metrics reporters). */
    boolean exported();

    /** Removes this registration's metrics where it owns them; idempotent. */
    @Override
    void close();
}
