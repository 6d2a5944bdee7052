package io.jetstream.kafka.source;

import java.util.LinkedHashMap;
import java.util.function.Supplier;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Rate;

/**
 * Metrics of one source-site task, registered through Connect's {@link PluginMetrics} (KIP-877), so
 * they appear in the worker's JMX and metrics reporters tagged with the connector and task. Names
 * are documented in docs/operations.md. Owned by the task and removed with it.
 */
final class SourceSiteMetrics {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(SourceSiteMetrics.class);

    private final PluginMetrics metrics;
    private final Sensor recordsIn;
    private final Sensor bytesIn;
    private final Sensor batches;
    private final Sensor batchRecords;
    private final Sensor wireBytes;
    private final Sensor encodeTime;
    private final Sensor acked;
    private final Sensor latency;
    private final Sensor resent;
    private final Sensor timeouts;
    private final Sensor nacks;

    /**
     * Registers with {@code pluginMetrics}; when an orphaned instance of the same task (one Connect
     * gave up stopping, e.g. blocked on a broker that is down) still holds the names, this instance
     * keeps its figures in a private registry instead of failing, and says so once.
     */
    SourceSiteMetrics(PluginMetrics pluginMetrics) {
        this(pluginMetrics, true);
    }

    private SourceSiteMetrics(PluginMetrics pluginMetrics, boolean exported) {
        PluginMetrics chosen = pluginMetrics;
        if (exported && isTaken(pluginMetrics)) {
            log.warn("Task metrics are still held by a previous instance of this task; this instance's metrics are "
                    + "not exported until the task restarts");
            chosen = new org.apache.kafka.common.metrics.internals.PluginMetricsImpl(
                    new org.apache.kafka.common.metrics.Metrics(), java.util.Map.of());
        }
        this.metrics = chosen;
        recordsIn = sensor("records-in", "Records received from Connect.", true);
        bytesIn = sensor("record-bytes-in", "Bytes of keys, values and headers received from Connect.", true);
        batches = sensor("batches-sent", "Batches encoded and handed to a relay.", true);
        batchRecords = metrics.addSensor("batch-size");
        batchRecords.add(name("batch-records-avg", "Mean records per batch."), new Avg());
        batchRecords.add(name("batch-records-max", "Largest batch in records."), new Max());
        wireBytes = sensor("wire-bytes", "Bytes of encoded (compressed) batches sent.", true);
        encodeTime = metrics.addSensor("encode-time");
        encodeTime.add(name("encode-time-avg-us", "Mean time to encode and compress a batch, in microseconds."),
                new Avg());
        acked = sensor("records-acked", "Records the destination acknowledged as durably written.", true);
        latency = metrics.addSensor("end-to-end-latency");
        latency.add(name("end-to-end-latency-avg-ms",
                "Mean time from a batch's oldest record reaching the task to the destination's ack, in ms."), new Avg());
        latency.add(name("end-to-end-latency-max-ms", "Largest such time, in ms."), new Max());
        resent = sensor("records-resent", "Records sent again after a NACK, a timeout or a lost relay.", false);
        timeouts = sensor("ack-timeouts", "Batches not acknowledged within ack.timeout.ms.", false);
        nacks = sensor("nacks", "Negative acknowledgements received.", false);
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

    /** Registers a gauge read on demand. */
    void gauge(String metric, String doc, Supplier<Number> value) {
        MetricName metricName = name(metric, doc);
        try {
            metrics.addMetric(metricName, (Gauge<Number>) (config, now) -> value.get());
        } catch (IllegalArgumentException alreadyExists) {
            log.warn("Metric {} is still held by a previous instance of this task; not exported", metric);
        }
    }

    void recordsIn(int records, long bytes) {
        recordsIn.record(records);
        bytesIn.record(bytes);
    }

    void batchEncoded(int records, long uncompressedBytes, long wire, long encodeNanos) {
        batches.record(1);
        batchRecords.record(records);
        wireBytes.record(wire);
        encodeTime.record(encodeNanos / 1000.0);
    }

    void batchAcked(int records, long wire, long latencyNanos) {
        acked.record(records);
        latency.record(latencyNanos / 1_000_000.0);
    }

    void resent(int records) {
        resent.record(records);
    }

    void timeout() {
        timeouts.record(1);
    }

    void nack(String reason) {
        nacks.record(1);
    }
}
