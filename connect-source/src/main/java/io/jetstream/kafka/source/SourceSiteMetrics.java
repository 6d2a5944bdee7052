package io.jetstream.kafka.source;

import io.jetstream.kafka.connect.common.metrics.TaskMetrics;
import io.jetstream.kafka.source.sender.SenderEvents;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.Max;

/**
 * Metrics of one source-site task, registered through Connect's plugin metrics (KIP-877; on workers
 * before Kafka 4.1 exported over JMX under the same names, see {@link TaskMetrics}), so they appear
 * tagged with the connector and task. Names
 * are documented in docs/operations.md. Owned by the task and removed with it (see
 * {@link TaskMetrics} for a task instance that outlives its replacement).
 */
final class SourceSiteMetrics implements ReplicationLag.Gauges, SenderEvents {

    private final TaskMetrics metrics;
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
    private final Sensor unverifiedAcks;
    private final Sensor heartbeats;
    private final Sensor skippedBatches;
    private final Sensor skippedRecords;
    private final LongAdder recordsRead = new LongAdder();
    private final LongAdder recordBytesRead = new LongAdder();
    /** Running totals and recent figures for the task's view ({@link SourceTaskView}). */
    private final Deliveries deliveries = new Deliveries();

    SourceSiteMetrics(TaskMetrics metrics) {
        this.metrics = metrics;
        recordsIn = metrics.counter("records-in", "Records received from Connect.", true);
        bytesIn = metrics.counter("record-bytes-in", "Bytes of keys, values and headers received from Connect.", true);
        batches = metrics.counter("batches-sent", "Batches encoded and handed to a relay.", true);
        batchRecords = metrics.sensor("batch-size");
        batchRecords.add(metrics.name("batch-records-avg", "Mean records per batch."), new Avg());
        batchRecords.add(metrics.name("batch-records-max", "Largest batch in records."), new Max());
        wireBytes = metrics.counter("wire-bytes", "Bytes of encoded (compressed) batches sent.", true);
        encodeTime = metrics.sensor("encode-time");
        encodeTime.add(metrics.name("encode-time-seconds-avg", "Mean time to encode and compress a batch, in seconds."),
                new Avg());
        acked = metrics.counter("records-acked", "Records the destination acknowledged as durably written.", true);
        latency = metrics.sensor("end-to-end-latency");
        latency.add(metrics.name("end-to-end-latency-seconds-avg",
                "Mean time from a batch's oldest record reaching the task to the destination's ack, in seconds."),
                new Avg());
        latency.add(metrics.name("end-to-end-latency-seconds-max", "Largest such time, in seconds."), new Max());
        resent = metrics.counter("records-resent", "Records sent again after a NACK, a timeout or a lost relay.", false);
        timeouts = metrics.counter("ack-timeouts", "Batches not acknowledged within ack.timeout.ms.", false);
        nacks = metrics.counter("nacks", "Negative acknowledgements received.", false);
        unverifiedAcks = metrics.counter("unverified-acks", "With integrity.key: answers that would commit a "
                + "batch or stop the task (OK, or a NACK that re-sending cannot help) but lack the destination's valid "
                + "MAC (a relay's own refusal, one made up or altered on the way, or different keys). Taken for a "
                + "retriable NACK: the batch is sent again.", false);
        heartbeats = metrics.counter("heartbeats-sent", "End-to-end heartbeats sent: empty batches on partitions "
                + "idle for replication.heartbeat.interval.ms, so the destination hears from this task while the "
                + "topics are idle.", false);
        skippedBatches = metrics.counter("skipped-refused-batches", "With errors.tolerance=all: batches the "
                + "destination refused for good (a topic it does not allow, a failed integrity check, ...), skipped: "
                + "their records were reported to the dead letter queue, if the connector has one, and a skip marker "
                + "took their place.", false);
        skippedRecords = metrics.counter("skipped-refused-records", "Records of the batches counted in "
                + "skipped-refused-batches-total.", false);
    }

    @Override
    public void refusedBatchSkipped(int records) {
        skippedBatches.record(1);
        skippedRecords.record(records);
    }

    @Override
    public void heartbeatSent() {
        heartbeats.record(1);
    }

    @Override
    public void unverifiedAck() {
        unverifiedAcks.record(1);
    }

    /** Registers a gauge read on demand. */
    void gauge(String metric, String doc, Supplier<Number> value) {
        metrics.gauge(metric, doc, value);
    }

    /**
     * The sender's buffer and window, and whether the task paused its partitions for backpressure,
     * read from the suppliers given (the metrics never call the sender).
     */
    void senderGauges(LongSupplier bufferedBytes, IntSupplier inFlightBatches, BooleanSupplier paused) {
        gauge("buffered-bytes", "Bytes held in open and unacknowledged batches.", bufferedBytes::getAsLong);
        gauge("in-flight-batches", "Batches sent and not yet acknowledged.", inFlightBatches::getAsInt);
        gauge("paused", "1 while partitions are paused for backpressure.", () -> paused.getAsBoolean() ? 1 : 0);
    }

    /** What the task found reading the source cluster: oversized records, recreated topics, offset jumps. */
    void originGauges(OversizedRecords oversized, TopicIncarnations incarnations, OriginCoverage coverage) {
        gauge("oversized-records-total", "Records too large for a batch frame to the relays, skipped under "
                + "errors.tolerance=all (and reported to the dead letter queue when the connector has one).",
                oversized::skipped);
        gauge("topic-recreations-total", "Partitions whose topic was found deleted and recreated (a new "
                + "topic id): replicated as a new incarnation from its first record.", incarnations::recreations);
        gauge("offset-truncations-total", "Times a partition's offsets went backwards within one topic "
                + "incarnation (a truncated log, e.g. after an unclean leader election): the destination takes the "
                + "records at offsets it already wrote for duplicates.", incarnations::truncations);
        gauge("origin-offset-checks-total", "Times the task asked the source cluster whether offsets its "
                + "consumer skipped were legitimately absent (a put with offset jumps, or a partition's first records "
                + "after an assignment).", coverage::checks);
        gauge("unvouched-offset-jumps-total", "Offset jumps over offsets the source cluster no longer holds "
                + "(deleted before they were read, or a committed offset below the log start): the destination "
                + "reports a gap unless it already wrote them.", coverage::unvouched);
        gauge("consumer-started-past-log-start-total", "Partitions without a committed offset whose consumer "
                + "started above the log start offset: the worker's consumer.auto.offset.reset is not earliest (the "
                + "records below were skipped), or the head of the log was compacted away or aborted (nothing "
                + "skipped). Logged at WARN with the offsets.", coverage::startedPastLogStart);
    }

    @Override
    public void recordsIn(int records, long bytes) {
        recordsIn.record(records);
        bytesIn.record(bytes);
        recordsRead.add(records);
        recordBytesRead.add(bytes);
    }

    /** Mean size (keys, values, headers) of the records read so far; NaN before the first. */
    double meanRecordBytes() {
        long records = recordsRead.sum();
        return records == 0 ? Double.NaN : (double) recordBytesRead.sum() / records;
    }

    @Override
    public void gauge(String metric, String doc, Map<String, String> tags, Supplier<Number> value) {
        metrics.gauge(metric, doc, tags, value);
    }

    @Override
    public void remove(String metric, Map<String, String> tags) {
        metrics.remove(metric, tags);
    }

    @Override
    public void batchEncoded(int records, long uncompressedBytes, long wire, long encodeNanos) {
        deliveries.batchSent(records, uncompressedBytes, wire);
        batches.record(1);
        batchRecords.record(records);
        wireBytes.record(wire);
        encodeTime.record(encodeNanos / 1e9);
    }

    @Override
    public void batchAcked(int records, long wire, long latencyNanos) {
        deliveries.batchAcked(records, latencyNanos);
        acked.record(records);
        latency.record(latencyNanos / 1e9);
    }

    @Override
    public void resent(int records) {
        deliveries.resent(records);
        resent.record(records);
    }

    @Override
    public void timeout() {
        deliveries.timeout();
        timeouts.record(1);
    }

    @Override
    public void nack(String reason) {
        deliveries.nack();
        nacks.record(1);
    }

    /** What the task sent and the destination acknowledged, for its view. */
    Deliveries deliveries() {
        return deliveries;
    }

    /** Removes the task's metrics where it registered them itself (workers before Kafka 4.1). */
    void close() {
        metrics.close();
    }
}
