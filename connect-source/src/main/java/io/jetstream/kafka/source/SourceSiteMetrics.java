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

    SourceSiteMetrics(PluginMetrics metrics) {
        this.metrics = metrics;
        recordsIn = sensor("records-in", "Records received from Connect.", true);
        bytesIn = sensor("record-bytes-in", "Bytes of keys, values and headers received from Connect.", true);
        batches = sensor("batches-sent", "Batches encoded and handed to a relay.", true);
        batchRecords = newSensor("batch-size");
        batchRecords.add(name("batch-records-avg", "Mean records per batch."), new Avg());
        batchRecords.add(name("batch-records-max", "Largest batch in records."), new Max());
        wireBytes = sensor("wire-bytes", "Bytes of encoded (compressed) batches sent.", true);
        encodeTime = newSensor("encode-time");
        encodeTime.add(name("encode-time-avg-us", "Mean time to encode and compress a batch, in microseconds."),
                new Avg());
        acked = sensor("records-acked", "Records the destination acknowledged as durably written.", true);
        latency = newSensor("end-to-end-latency");
        latency.add(name("end-to-end-latency-avg-ms",
                "Mean time from a batch's oldest record reaching the task to the destination's ack, in ms."), new Avg());
        latency.add(name("end-to-end-latency-max-ms", "Largest such time, in ms."), new Max());
        resent = sensor("records-resent", "Records sent again after a NACK, a timeout or a lost relay.", false);
        timeouts = sensor("ack-timeouts", "Batches not acknowledged within ack.timeout.ms.", false);
        nacks = sensor("nacks", "Negative acknowledgements received.", false);
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

    /** Registers a gauge read on demand. */
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
