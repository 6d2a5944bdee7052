package io.jetstream.kafka.core.metrics;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Rate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registration of one connector task's metrics through Kafka's {@link PluginMetrics} (KIP-877),
 * shared by both connectors.
 *
 * <p>Orphans: after a broker outage Connect may start a new instance of a task while the old one
 * is still alive (it gave up stopping it), and the old one still holds the metric names.
 * {@code PluginMetrics} can neither re-register nor remove another instance's names, so a new
 * instance that finds them taken keeps its figures in a private registry (logged once) instead of
 * failing: metrics are not worth a stalled share of partitions.
 *
 * <p>Sensor names: {@code PluginMetrics} creates sensors in the worker's one registry under the
 * name given, so two tasks asking for the same sensor name would share one sensor and each record
 * would count in both tasks' metrics. Every instance therefore prefixes its sensor names with an
 * id of its own; the exported metric names (with their connector and task tags) are unchanged.
 */
public final class TaskMetrics {

    private static final Logger log = LoggerFactory.getLogger(TaskMetrics.class);
    /** Marker metric each instance holds for its lifetime; taken means another instance is alive. */
    private static final String MARKER_METRIC = "task-instance-id";
    private static final AtomicLong INSTANCES = new AtomicLong();

    private final PluginMetrics metrics;
    private final long instanceId = INSTANCES.incrementAndGet();
    private final String sensorPrefix = "jetstream-task-" + instanceId + "-";

    public TaskMetrics(PluginMetrics pluginMetrics) {
        if (!claim(pluginMetrics)) {
            log.warn("Task metrics are still held by a previous instance of this task; this instance's metrics are "
                    + "not exported until the task restarts");
            this.metrics = new PluginMetricsImpl(new Metrics(), Map.of());
            claim(this.metrics);
        } else {
            this.metrics = pluginMetrics;
        }
    }

    /** Registers this instance's marker metric; false when another instance of the task holds it. */
    private boolean claim(PluginMetrics metrics) {
        try {
            MetricName marker = metrics.metricName(MARKER_METRIC,
                    "Identifies the task instance exporting these metrics (changes when the task restarts).",
                    new LinkedHashMap<>());
            metrics.addMetric(marker, (Gauge<Long>) (config, now) -> instanceId);
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
        return metrics.metricName(metric, doc, new LinkedHashMap<>());
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
}
