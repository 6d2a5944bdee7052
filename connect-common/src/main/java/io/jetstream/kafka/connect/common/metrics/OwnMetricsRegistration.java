package io.jetstream.kafka.connect.common.metrics;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.utils.Sanitizer;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A registry of the task's own, for workers without plugin metrics (Kafka Connect before 4.1) and
 * for a task instance whose metric names another instance still holds.
 *
 * <p>{@link #jmx} exports the metrics over JMX under the names Connect 4.1 gives plugin metrics,
 * {@code kafka.connect:type=plugins,connector=<name>,task=<id>}, so dashboards and the tests read
 * them the same way on 3.x workers; they do not reach the worker's other metrics reporters.
 * {@link #unexported} keeps them private. Closing removes them (and their MBean).
 */
public final class OwnMetricsRegistration implements MetricsRegistration {

    private static final Logger log = LoggerFactory.getLogger(OwnMetricsRegistration.class);

    /** JMX domain and group of Connect's plugin metrics (KIP-877). */
    static final String JMX_DOMAIN = "kafka.connect";
    static final String GROUP = "plugins";

    private final Metrics metrics;
    private final Map<String, String> fixedTags;
    private final boolean exported;

    private OwnMetricsRegistration(Metrics metrics, Map<String, String> fixedTags, boolean exported) {
        this.metrics = metrics;
        this.fixedTags = fixedTags;
        this.exported = exported;
    }

    /**
     * Metrics of task {@code task} of {@code connector}, exported over JMX; private (not exported)
     * when that MBean is registered already, i.e. another instance of the task is still alive here.
     */
    public static OwnMetricsRegistration jmx(String connector, int task) {
        Map<String, String> tags = taskTags(connector, task);
        if (registered(tags)) {
            log.warn("Task metrics of {} are still held by a previous instance of this task; this instance's metrics "
                    + "are not exported until the task restarts", tags);
            return unexported(tags);
        }
        JmxReporter reporter = new JmxReporter();
        // Every registry counts its metrics in kafka.connect:type=kafka-metrics-count: leave the worker's own.
        reporter.configure(Map.of(JmxReporter.EXCLUDE_CONFIG, JMX_DOMAIN + ":type=kafka-metrics-count"));
        Metrics metrics = new Metrics(new MetricConfig(), List.<MetricsReporter>of(reporter), Time.SYSTEM,
                new KafkaMetricsContext(JMX_DOMAIN));
        return new OwnMetricsRegistration(metrics, tags, true);
    }

    /** Metrics that nothing exports, with {@code tags} on every name. */
    public static OwnMetricsRegistration unexported(Map<String, String> tags) {
        return new OwnMetricsRegistration(new Metrics(), new LinkedHashMap<>(tags), false);
    }

    /** Connect's tags of a task's plugin metrics, in Connect's order. */
    static Map<String, String> taskTags(String connector, int task) {
        Map<String, String> tags = new LinkedHashMap<>();
        tags.put("connector", connector);
        tags.put("task", Integer.toString(task));
        return tags;
    }

    /** Whether the MBean JmxReporter would make of metrics with these tags is registered (as JmxReporter names it). */
    private static boolean registered(Map<String, String> tags) {
        StringBuilder name = new StringBuilder(JMX_DOMAIN).append(":type=").append(GROUP);
        tags.forEach((key, value) -> name.append(',').append(key).append('=').append(Sanitizer.jmxSanitize(value)));
        try {
            return ManagementFactory.getPlatformMBeanServer().isRegistered(new ObjectName(name.toString()));
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("No JMX name for the metrics of " + tags + ": " + e.getMessage(), e);
        }
    }

    @Override
    public MetricName metricName(String name, String description, Map<String, String> tags) {
        Map<String, String> all = new LinkedHashMap<>(fixedTags);
        all.putAll(tags);
        return metrics.metricName(name, GROUP, description, all);
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
        return metrics.sensor(name);
    }

    @Override
    public boolean exported() {
        return exported;
    }

    @Override
    public void close() {
        metrics.close();
    }
}
