package io.jetstream.kafka.sink;

import io.jetstream.kafka.core.metrics.TaskMetrics;
import java.util.function.Supplier;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;

/**
 * Metrics of one destination-site task, registered through Connect's {@link PluginMetrics}
 * (KIP-877, see {@link TaskMetrics}). {@code duplicate-records-total} counts records received again
 * after they were written (re-sent batches): they are dropped, never written twice while the task
 * runs. Names are documented in docs/operations.md.
 */
final class SinkSiteMetrics {

    private final TaskMetrics metrics;
    private final Sensor records;
    private final Sensor duplicates;
    private final Sensor overloaded;
    private final Sensor refused;
    private final Sensor malformed;

    SinkSiteMetrics(PluginMetrics pluginMetrics) {
        metrics = new TaskMetrics(pluginMetrics);
        records = metrics.counter("records-out", "Records handed to Connect for writing.", true);
        duplicates = metrics.counter("duplicate-records", "Records received again after they were written; dropped.",
                false);
        overloaded = metrics.counter("overloaded-nacks", "Batches refused because the task's buffer was full.", false);
        refused = metrics.counter("refused-batches", "Batches of topics outside topics.allow or from this cluster.",
                false);
        malformed = metrics.counter("malformed-batches", "Batches whose payload failed to decode (CRC, format).", false);
    }

    void gauge(String metric, String doc, Supplier<Number> value) {
        metrics.gauge(metric, doc, value);
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
