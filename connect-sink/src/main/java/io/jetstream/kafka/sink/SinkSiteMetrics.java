package io.jetstream.kafka.sink;

import java.util.LinkedHashMap;
import java.util.function.Supplier;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Rate;

/**
 * Metrics of one destination-site task, registered through Connect's {@link PluginMetrics}
 * (KIP-877). {@code duplicate-records-total} counts records received again after they were written
 * (re-sent batches): they are dropped, never written twice while the task runs. Names are
 * documented in docs/operations.md.
 */
final class SinkSiteMetrics {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(SinkSiteMetrics.class);

    private final PluginMetrics metrics;
    private final Sensor records;
    private final Sensor duplicates;
    private final Sensor overloaded;
    private final Sensor refused;
    private final Sensor malformed;

    /**
     * Registers with {@code pluginMetrics}; when an orphaned instance of the same task (one Connect
     * gave up stopping, e.g. blocked on a broker that is down) still holds the names, this instance
     * keeps its figures in a private registry instead of failing, and says so once.
     */
    SinkSiteMetrics(PluginMetrics pluginMetrics) {
        this(pluginMetrics, true);
    }

    private SinkSiteMetrics(PluginMetrics pluginMetrics, boolean exported) {
        PluginMetrics chosen = pluginMetrics;
        if (exported && isTaken(pluginMetrics)) {
            log.warn("Task metrics are still held by a previous instance of this task; this instance's metrics are "
                    + "not exported until the task restarts");
            chosen = new org.apache.kafka.common.metrics.internals.PluginMetricsImpl(
                    new org.apache.kafka.common.metrics.Metrics(), java.util.Map.of());
        }
        this.metrics = chosen;
        records = sensor("records-out", "Records handed to Connect for writing.", true);
        duplicates = sensor("duplicate-records", "Records received again after they were written; dropped.", false);
        overloaded = sensor("overloaded-nacks", "Batches refused because the task's buffer was full.", false);
        refused = sensor("refused-batches", "Batches of topics outside topics.allow or from this cluster.", false);
        malformed = sensor("malformed-batches", "Batches whose payload failed to decode (CRC, format).", false);
    }

    private Sensor sensor(String base, String doc, boolean withRate) {
        Sensor sensor = metrics.addSensor(base);
        sensor.add(name(base + "-total", doc + " Total."), new CumulativeSum());
        if (withRate) {
            sensor.add(name(base + "-rate", doc + " Per second."), new Rate());
        }
        return sensor;
    }

    /**
     * Whether another instance of this task holds the metric names: each instance keeps a marker
     * sensor registered for its lifetime (removed with the task's plugin metrics).
     */
    private static boolean isTaken(PluginMetrics metrics) {
        try {
            metrics.addSensor(PROBE_SENSOR);
            return false;
        } catch (IllegalArgumentException alreadyExists) {
            return true;
        }
    }

    private static final String PROBE_SENSOR = "jetstream-instance-probe";

    private MetricName name(String metric, String doc) {
        return metrics.metricName(metric, doc, new LinkedHashMap<>());
    }

    void gauge(String metric, String doc, Supplier<Number> value) {
        MetricName metricName = name(metric, doc);
        try {
            metrics.addMetric(metricName, (Gauge<Number>) (config, now) -> value.get());
        } catch (IllegalArgumentException alreadyExists) {
            log.warn("Metric {} is still held by a previous instance of this task; not exported", metric);
        }
    }

    void recordsOut(int count) {
        records.record(count);
    }

    void duplicates(long count) {
        if (count > 0) {
            duplicates.record(count);
        }
    }

    void overloaded() {
        overloaded.record(1);
    }

    void refused() {
        refused.record(1);
    }

    void malformed() {
        malformed.record(1);
    }
}
