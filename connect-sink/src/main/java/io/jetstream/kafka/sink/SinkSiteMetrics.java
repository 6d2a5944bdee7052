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

    private final PluginMetrics metrics;
    private final Sensor records;
    private final Sensor duplicates;
    private final Sensor overloaded;
    private final Sensor refused;
    private final Sensor malformed;

    SinkSiteMetrics(PluginMetrics metrics) {
        this.metrics = metrics;
        records = sensor("records-out", "Records handed to Connect for writing.", true);
        duplicates = sensor("duplicate-records", "Records received again after they were written; dropped.", false);
        overloaded = sensor("overloaded-nacks", "Batches refused because the task's buffer was full.", false);
        refused = sensor("refused-batches", "Batches of topics outside topics.allow or from this cluster.", false);
        malformed = sensor("malformed-batches", "Batches whose payload failed to decode (CRC, format).", false);
    }

    private Sensor sensor(String base, String doc, boolean withRate) {
        Sensor sensor = newSensor(base);
        sensor.add(name(base + "-total", doc + " Total."), new CumulativeSum());
        if (withRate) {
            sensor.add(name(base + "-rate", doc + " Per second."), new Rate());
        }
        return sensor;
    }

    /**
     * A new sensor; one still held by an orphaned task instance (Connect gave up stopping it) is
     * taken over instead of failing this instance.
     */
    private Sensor newSensor(String sensorName) {
        try {
            return metrics.addSensor(sensorName);
        } catch (IllegalArgumentException alreadyExists) {
            metrics.removeSensor(sensorName);
            return metrics.addSensor(sensorName);
        }
    }

    private MetricName name(String metric, String doc) {
        return metrics.metricName(metric, doc, new LinkedHashMap<>());
    }

    void gauge(String metric, String doc, Supplier<Number> value) {
        MetricName metricName = name(metric, doc);
        // A task instance Connect gave up stopping (an "orphan", e.g. blocked on a broker that is
        // down) may still hold the same metric: take it over rather than fail the new instance.
        try {
            metrics.removeMetric(metricName);
        } catch (IllegalArgumentException notRegistered) {
            // the usual case: nobody holds it
        }
        metrics.addMetric(metricName, (Gauge<Number>) (config, now) -> value.get());
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
