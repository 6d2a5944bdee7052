package io.jetstream.kafka.connect.common.metrics;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Rate;
import org.apache.kafka.common.utils.AppInfoParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registration of one connector task's metrics, shared by both connectors: through the worker's
 * plugin metrics (KIP-877) on Kafka Connect 4.1 and later, through a JMX registry of the task's own
 * under the same names on older workers ({@link #forTask}).
 *
 * <p>Orphans: after a broker outage Connect may start a new instance of a task while the old one
 * is still alive (it gave up stopping it), and the old one still holds the metric names.
 * Plugin metrics can neither re-register nor remove another instance's names, so a new instance
 * that finds them taken keeps its figures in a private registry (logged once) instead of failing:
 * metrics are not worth a stalled share of partitions.
 *
 * <p>Sensor names: {@code PluginMetrics} creates sensors in the worker's one registry under the
 * name given, so two tasks asking for the same sensor name would share one sensor and each record
 * would count in both tasks' metrics. Every instance therefore prefixes its sensor names with an
 * id of its own; the exported metric names (with their connector and task tags) are unchanged.
 *
 * <p>Lifecycle: made in the task's {@code start}, {@link #close closed} in its {@code stop}.
 */
public final class TaskMetrics implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TaskMetrics.class);
    /** Marker metric each instance holds for its lifetime; taken means another instance is alive. */
    private static final String MARKER_METRIC = "task-instance-id";
    private static final String PLUGIN_METRICS_CLASS = "org.apache.kafka.common.metrics.PluginMetrics";
    private static final AtomicLong INSTANCES = new AtomicLong();
    /** The worker's lack of plugin metrics is logged once per plugin class loader, not per task. */
    private static final AtomicBoolean NO_PLUGIN_METRICS_LOGGED = new AtomicBoolean();

    private final MetricsRegistration metrics;
    private final long instanceId = INSTANCES.incrementAndGet();
    private final String sensorPrefix = "jetstream-task-" + instanceId + "-";

    public TaskMetrics(MetricsRegistration registration) {
        if (!claim(registration)) {
            log.warn("Task metrics are still held by a previous instance of this task; this instance's metrics are "
                    + "not exported until the task restarts");
            this.metrics = OwnMetricsRegistration.unexported(Map.of());
            claim(this.metrics);
        } else {
            this.metrics = registration;
        }
    }

    /**
     * The metrics of task {@code task} of {@code connector}: registered through the worker's plugin
     * metrics, which {@code workerPluginMetrics} returns (the task context's {@code pluginMetrics()},
     * called only where the worker has it); on a worker without them (Kafka Connect before 4.1) in a
     * registry of the task's own, exported over JMX under the same names, with one log line per worker.
     *
     * <p>Pass a lambda, not a method reference: a method reference to a method the worker lacks
     * fails where it is written, a lambda only when called.
     */
    public static TaskMetrics forTask(Supplier<Object> workerPluginMetrics, String connector, int task) {
        MetricsRegistration registration = pluginMetrics(workerPluginMetrics);
        if (registration == null) {
            if (NO_PLUGIN_METRICS_LOGGED.compareAndSet(false, true)) {
                log.info("This Kafka Connect worker ({}) has no plugin metrics (KIP-877, Kafka 4.1): JetStream's task "
                        + "metrics are exported over JMX by the tasks themselves, under the same names "
                        + "(kafka.connect:type=plugins,connector=...,task=...), but do not reach the worker's other "
                        + "metrics reporters", AppInfoParser.getVersion());
            }
            registration = OwnMetricsRegistration.jmx(connector, task);
        }
        return new TaskMetrics(registration);
    }

    /** The worker's plugin metrics, or null when its Kafka clients or Connect API predate them. */
    private static MetricsRegistration pluginMetrics(Supplier<Object> workerPluginMetrics) {
        try {
            Class.forName(PLUGIN_METRICS_CLASS, false, TaskMetrics.class.getClassLoader());
        } catch (ClassNotFoundException absent) {
            return null;
        }
        try {
            return PluginMetricsRegistration.of(workerPluginMetrics.get());
        } catch (NoSuchMethodError | NoClassDefFoundError | AbstractMethodError older) {
            return null; // clients with plugin metrics under an older Connect runtime
        }
    }

    /** Registers this instance's marker metric; false when another instance of the task holds it. */
    private boolean claim(MetricsRegistration registration) {
        try {
            MetricName marker = registration.metricName(MARKER_METRIC,
                    "Identifies the task instance exporting these metrics (changes when the task restarts).",
                    Map.of());
            registration.addMetric(marker, (Gauge<Long>) (config, now) -> instanceId);
            return true;
        } catch (IllegalArgumentException alreadyExists) {
            return false;
        }
    }

    /** A sensor recording {@code <base>-total} and, with {@code withRate}, {@code <base>-rate}. */
    public Sensor counter(String base, String doc, boolean withRate) {
        Sensor sensor = metrics.addSensor(sensorPrefix + base);
        sensor.add(name(base + "-total", doc + " Total."), new CumulativeSum());
        if (withRate) {
            sensor.add(name(base + "-rate", doc + " Per second."), new Rate());
        }
        return sensor;
    }

    /**
     * A sensor recording {@code <base>-total} with tags (e.g. topic and partition); one sensor per
     * distinct set of tags, so call it once per set and keep the sensor.
     */
    public Sensor counter(String base, String doc, Map<String, String> tags) {
        StringBuilder sensorName = new StringBuilder(sensorPrefix).append(base);
        tags.forEach((key, value) -> sensorName.append('|').append(key).append('=').append(value));
        Sensor sensor = metrics.addSensor(sensorName.toString());
        sensor.add(metrics.metricName(base + "-total", doc + " Total.", new LinkedHashMap<>(tags)),
                new CumulativeSum());
        return sensor;
    }

    /** An empty sensor, for the caller's own stats. */
    public Sensor sensor(String sensorName) {
        return metrics.addSensor(sensorPrefix + sensorName);
    }

    public MetricName name(String metric, String doc) {
        return metrics.metricName(metric, doc, Map.of());
    }

    /**
     * A gauge with tags (e.g. topic and partition) read on demand; skipped (logged) when the name and
     * tags are still held elsewhere. Remove it with {@link #remove} when its subject goes away.
     */
    public void gauge(String metric, String doc, Map<String, String> tags, Supplier<Number> value) {
        try {
            metrics.addMetric(metrics.metricName(metric, doc, new LinkedHashMap<>(tags)),
                    (Gauge<Number>) (config, now) -> value.get());
        } catch (IllegalArgumentException alreadyExists) {
            log.warn("Metric {} {} is still held by a previous instance of this task; not exported", metric, tags);
        }
    }

    /** Removes a tagged metric registered by this instance ({@link #gauge(String, String, Map, Supplier)}). */
    public void remove(String metric, Map<String, String> tags) {
        metrics.removeMetric(metrics.metricName(metric, "", new LinkedHashMap<>(tags)));
    }

    /** A gauge read on demand; skipped (logged) when the name is still held elsewhere. */
    public void gauge(String metric, String doc, Supplier<Number> value) {
        try {
            metrics.addMetric(name(metric, doc), (Gauge<Number>) (config, now) -> value.get());
        } catch (IllegalArgumentException alreadyExists) {
            log.warn("Metric {} is still held by a previous instance of this task; not exported", metric);
        }
    }

    /** Whether these metrics reach the worker's JMX. */
    public boolean exported() {
        return metrics.exported();
    }

    /** Removes the metrics this instance registered in a registry of its own; idempotent. */
    @Override
    public void close() {
        metrics.close();
    }
}
