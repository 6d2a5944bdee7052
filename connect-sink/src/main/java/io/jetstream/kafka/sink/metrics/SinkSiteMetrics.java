package io.jetstream.kafka.sink.metrics;

import io.jetstream.kafka.connect.common.metrics.TaskMetrics;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.Max;

/**
 * Metrics of one destination-site task, registered through Connect's plugin metrics (KIP-877; on
 * workers before Kafka 4.1 over JMX under the same names, see {@link TaskMetrics}).
 * {@code duplicate-records-total} counts records received again
 * after they were written (re-sent batches): they are dropped, never written twice while the task
 * runs. {@code rewritten-records-total} counts, in at-least-once mode, the records written twice
 * because a task instance crashed before its progress was stored ({@link io.jetstream.kafka.sink.atleastonce.DestinationOffsets}).
 * Names are documented in docs/operations.md.
 */
public final class SinkSiteMetrics {

    private final TaskMetrics metrics;
    private final Sensor records;
    private final Sensor duplicates;
    private final Sensor overloaded;
    private final Sensor refused;
    private final Sensor skippedAtSourceBatches;
    private final Sensor skippedAtSourceRecords;
    private final Sensor malformed;
    private final Sensor rewritten;
    private final Sensor destinationTopicsRecreated;
    private final Sensor integrityFailures;
    private final Sensor staleMetadata;
    private final Sensor topicCreationsRefused;
    private final Sensor incarnationRefusals;
    private final Sensor replicationLatency;
    private final Sensor batchTransit;
    private final Map<TopicPartition, Sensor[]> gaps = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Sensor> recreations = new ConcurrentHashMap<>();
    private final EndToEndLiveness liveness;
    /** Totals and recent figures for the task's view ({@link SinkTaskView}). */
    private final SinkActivity activity = new SinkActivity();

    public SinkSiteMetrics(TaskMetrics metrics) {
        this.metrics = metrics;
        records = metrics.counter("records-out", "Records handed to Connect for writing.", true);
        duplicates = metrics.counter("duplicate-records", "Records received again after they were written; dropped.",
                false);
        overloaded = metrics.counter("overloaded-nacks", "Batches refused because the task's buffer was full.", false);
        refused = metrics.counter("refused-batches", "Batches of topics outside topics.allow or from this cluster.",
                false);
        skippedAtSourceBatches = metrics.counter("skipped-at-source-batches", "Skip markers applied: batches "
                + "this destination refused for good (or would refuse) that the source-site connector skipped under "
                + "errors.tolerance=all; nothing of them is written, the batches after them follow.", false);
        skippedAtSourceRecords = metrics.counter("skipped-at-source-records", "Records of the batches counted in "
                + "skipped-at-source-batches-total: at the source site in its dead letter queue, if it has one, "
                + "never written here.", false);
        malformed = metrics.counter("malformed-batches", "Batches whose payload failed to decode (CRC, format).", false);
        rewritten = metrics.counter("rewritten-records", "At-least-once only: records a previous task instance "
                + "wrote after its last stored progress (a crash), written again after the takeover: duplicates at "
                + "the destination.", false);
        destinationTopicsRecreated = metrics.counter("destination-topics-recreated", "Destination topics found "
                + "deleted (or recreated by someone else with fewer partitions) under the running connector, and "
                + "created again with the origin's partition count and configs.", false);
        integrityFailures = metrics.counter("integrity-failures", "Batches and topic metadata refused because "
                + "their end-to-end MAC was missing (with integrity.required) or wrong: altered or made up on the "
                + "way, or the connectors' integrity.key differ. Never written.", false);
        staleMetadata = metrics.counter("stale-topic-metadata", "Topic metadata not applied because it is older "
                + "than a description of the same topic applied already (re-sent by a relay, or overtaken on "
                + "another route), or older than topic.metadata.max.age.ms.", false);
        topicCreationsRefused = metrics.counter("topic-creations-refused", "Destination topics not created because "
                + "create.topics.unsigned.max topics were created in the last create.topics.unsigned.interval.ms "
                + "from metadata without a MAC (no integrity.key).", false);
        incarnationRefusals = metrics.counter("incarnation-refusals", "Batches refused because they may not "
                + "belong to the incarnation (topic id) of their topic replicated now: of an incarnation left behind "
                + "(OBSOLETE_INCARNATION, for good), or without a topic id where one cannot tell (retriably, never "
                + "held). A count that grows while no topic is deleted at the source means replayed batches.", false);
        replicationLatency = metrics.sensor("replication-latency");
        replicationLatency.add(metrics.name("replication-latency-seconds-avg", "Mean time in seconds from a "
                + "record's timestamp (at the origin) to its write being acknowledged here, over the last 30 s "
                + "(MirrorMaker 2's replication-latency-ms-avg in seconds; the two sites' clocks differ by their "
                + "skew)."), new Avg());
        replicationLatency.add(metrics.name("replication-latency-seconds-max", "Longest of the same, over the "
                + "last 30 s."), new Max());
        batchTransit = metrics.sensor("batch-transit");
        batchTransit.add(metrics.name("batch-transit-seconds-avg", "Mean time in seconds from the source task "
                + "making a batch to its arrival here (relays, WAN and queues on the way; clock skew included), over the last 30 s."),
                new Avg());
        batchTransit.add(metrics.name("batch-transit-seconds-max", "Longest of the same, over the last 30 s: stalls "
                + "on the path show here before the records' latency."), new Max());
        liveness = new EndToEndLiveness(System::currentTimeMillis, metrics::gauge);
    }

    /** An authenticated batch or end-to-end heartbeat of {@code origin}, made at {@code sourceMillis}. */
    public void heard(TopicPartition origin, long sourceMillis) {
        liveness.heard(origin, sourceMillis);
    }

    /** A record of {@code origin} with timestamp {@code recordMillis} was written (acknowledged) now. */
    public void written(TopicPartition origin, long recordMillis) {
        liveness.written(origin, recordMillis);
    }

    /** A record's write acknowledged {@code millis} after its timestamp. */
    public void replicationLatency(long millis) {
        activity.written(millis);
        replicationLatency.record(millis / 1000.0);
    }

    /** A batch arrived {@code millis} after the source task made it. */
    public void batchTransit(long millis) {
        activity.batchTransit(millis);
        batchTransit.record(millis / 1000.0);
    }

    public void integrityFailure() {
        integrityFailures.record(1);
    }

    public void destinationTopicRecreated() {
        destinationTopicsRecreated.record(1);
    }

    /** A gap of {@code offsets} origin offsets in one partition. */
    public void gap(TopicPartition origin, long offsets) {
        Sensor[] sensors = gaps.computeIfAbsent(origin, tp -> {
            Map<String, String> tags = new LinkedHashMap<>();
            tags.put("topic", tp.topic());
            tags.put("partition", Integer.toString(tp.partition()));
            return new Sensor[] {
                metrics.counter("offset-gaps", "Gaps in an origin partition that the source could not vouch "
                        + "for (records deleted by retention before they were replicated, an offset reset).", tags),
                metrics.counter("offset-gap-offsets", "Origin offsets inside those gaps (an upper bound of the "
                        + "records lost: some may have been transaction markers or aborted records).", tags)};
        });
        sensors[0].record(1);
        sensors[1].record(offsets);
    }

    /** Records of a recreated origin topic arrived for a partition. */
    public void recreation(TopicPartition origin) {
        recreations.computeIfAbsent(origin, tp -> {
            Map<String, String> tags = new LinkedHashMap<>();
            tags.put("topic", tp.topic());
            tags.put("partition", Integer.toString(tp.partition()));
            return metrics.counter("topic-recreations", "Times records of a recreated origin topic (a new topic id) "
                    + "arrived for the partition: a new incarnation, replicated from its first record.", tags);
        }).record(1);
    }

    public void gauge(String metric, String doc, Supplier<Number> value) {
        metrics.gauge(metric, doc, value);
    }

    /** The receiver's buffer. */
    public void receiverGauges(Supplier<Number> bufferedBytes) {
        gauge("buffered-bytes", "Bytes of batches queued or held for re-ordering.", bufferedBytes);
    }

    /** Exactly-once: the commits whose acknowledgements wait for their records to become readable. */
    public void stableCommitsGauges(Supplier<Number> waiting) {
        gauge("commits-awaiting-stability", "Exactly-once: committed transactions (per origin partition) whose "
                + "records are not yet readable by read_committed consumers; their batches are not acknowledged "
                + "yet.", waiting);
    }

    /** The offset map's entries, corrections and records written without an entry. */
    public void offsetMapGauges(Supplier<Number> entries, Supplier<Number> corrections, Supplier<Number> unmappedRecords) {
        gauge("offset-map-entries-total", "Offset map entries written: one per origin partition per poll.",
                entries);
        gauge("offset-map-corrections-total", "Offset map entries corrected after the write: records that "
                + "did not land at the predicted destination offsets (another producer on the destination partition, "
                + "a dropped record).", corrections);
        gauge("offset-map-unmapped-records-total", "Records written without an offset map entry (the "
                + "destination's end offset could not be read when the task took the partition over).",
                unmappedRecords);
    }

    public void recordsOut(int count) {
        activity.recordsOut(count);
        records.record(count);
    }

    public void duplicates(long count) {
        if (count > 0) {
            activity.duplicates(count);
            duplicates.record(count);
        }
    }

    public void overloaded() {
        overloaded.record(1);
    }

    public void refused() {
        refused.record(1);
    }

    public void staleMetadata() {
        staleMetadata.record(1);
    }

    public void topicCreationRefused() {
        topicCreationsRefused.record(1);
    }

    public void skippedAtSource(long records) {
        skippedAtSourceBatches.record(1);
        skippedAtSourceRecords.record(records);
    }

    public void incarnationRefused() {
        incarnationRefusals.record(1);
    }

    public void malformed() {
        malformed.record(1);
    }

    public void rewritten(long count) {
        if (count > 0) {
            rewritten.record(count);
        }
    }

    /** Progress was stored (an offset flush or a committed transaction). */
    public void committed() {
        activity.committed();
    }

    /** Seconds since the newest batch or end-to-end heartbeat from the source, task-wide; NaN before the first. */
    public double heartbeatAgeSeconds() {
        return liveness.heartbeatAgeSeconds();
    }

    /** What the task wrote and committed, for its view. */
    public SinkActivity activity() {
        return activity;
    }

    /** Removes the task's metrics where it registered them itself (workers before Kafka 4.1). */
    public void close() {
        metrics.close();
    }
}
