package io.jetstream.kafka.source;

import io.jetstream.kafka.core.batch.RecordHeader;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.source.sender.IncomingRecord;
import io.jetstream.kafka.source.sender.RelayChoice;
import io.jetstream.kafka.source.sender.ReplicationSender;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The way of one {@code put}'s records into the {@link ReplicationSender}, check by check:
 *
 * <ol>
 *   <li>the relays' record limit must be known ({@link ReplicationSender#maxRecordBytes()});</li>
 *   <li>records of topics that came from the destination ({@code <target alias>.*}) are left out;</li>
 *   <li>each topic is shown to the metadata publisher, each record converted ({@link #toReplicated})
 *       and held to the limit ({@link OversizedRecords});</li>
 *   <li>schema ids looked up and shipped ({@link SourceSiteSchemas}, with schema translation);</li>
 *   <li>topic incarnations ({@link TopicIncarnations}): a recreated topic starts a new chain, or its
 *       partition rewinds to the new log's start;</li>
 *   <li>origin coverage ({@link OriginCoverage}): where records must start batches that vouch for
 *       fewer offsets;</li>
 *   <li>the records handed to the sender, each partition's incarnation told right before the first
 *       record that carries it.</li>
 * </ol>
 *
 * <p>A check the source cluster or registry cannot answer now throws a {@link RetriableException}
 * (after {@code context.timeout}): Connect hands the same records over again, and nothing reached
 * the sender. Task thread only.
 */
final class RecordIntake {

    private static final Logger log = LoggerFactory.getLogger(RecordIntake.class);
    /** Pause before Connect hands the same records over again after the source cluster did not answer. */
    private static final long ORIGIN_RETRY_MILLIS = 1_000;

    /** What the intake reads and feeds, besides the sender. */
    record Checks(TopicMetadataPublisher metadata, OversizedRecords oversized, SourceSiteSchemas schemas,
                  TopicIncarnations incarnations, OriginCoverage coverage) {
    }

    private final String replicaPrefix;
    private final Checks checks;
    private final ReplicationSender sender;
    private final SinkTaskContext context;
    private final Duration retryBackoff;
    private final Set<TopicPartition> skipped = new HashSet<>();

    /**
     * @param targetAlias  topics named {@code <targetAlias>.*} came from the destination: never sent back
     * @param retryBackoff the pause before records are handed over again while a check cannot answer
     */
    RecordIntake(String targetAlias, Checks checks, ReplicationSender sender, SinkTaskContext context,
                 Duration retryBackoff) {
        this.replicaPrefix = targetAlias + ".";
        this.checks = checks;
        this.sender = sender;
        this.context = context;
        this.retryBackoff = retryBackoff;
    }

    /** Topics named {@code <target alias>.*} came from the destination: never send them back. */
    boolean isReplicaOfTarget(String topic) {
        return topic.startsWith(replicaPrefix);
    }

    /** Partitions of such topics the task read: their offsets are committed as read. */
    Set<TopicPartition> skipped() {
        return skipped;
    }

    void revoke(Collection<TopicPartition> partitions) {
        skipped.removeAll(partitions);
    }

    /** Checks one {@code put}'s records and hands them to the sender. */
    void put(Collection<SinkRecord> records) {
        if (records.isEmpty()) {
            return;
        }
        requireRecordLimit(records.size());
        List<TopicPartition> partitions = new ArrayList<>(records.size());
        List<ReplicatedRecord> replicated = new ArrayList<>(records.size());
        List<Integer> sizes = new ArrayList<>(records.size());
        convert(records, partitions, replicated, sizes);
        if (checks.schemas() != null) {
            shipSchemas(partitions, replicated);
        }
        List<TopicIncarnations.Change> changes = incarnationChanges(partitions, replicated);
        if (!changes.isEmpty()) {
            dropRewound(changes, partitions, replicated, sizes);
        }
        Map<Integer, Long> restarts = coverageRestarts(partitions, replicated);
        checks.incarnations().commit(); // nothing can fail the put from here on
        List<IncomingRecord> incoming = new ArrayList<>(replicated.size());
        for (int i = 0; i < replicated.size(); i++) {
            Long coveredFrom = restarts.get(i);
            incoming.add(new IncomingRecord(partitions.get(i), replicated.get(i),
                    coveredFrom == null ? IncomingRecord.CONTIGUOUS : coveredFrom, sizes.get(i)));
        }
        if (changes.isEmpty()) {
            sender.appendAll(incoming);
        } else {
            appendAcrossIncarnations(incoming, changes);
        }
    }

    /**
     * Sizes are checked against the relays' frame limits, which arrive with their handshakes:
     * checked against a guess, a record too large for them would fail the task at the send.
     */
    private void requireRecordLimit(int records) {
        if (sender.maxRecordBytes() == RelayChoice.RECORD_LIMIT_UNKNOWN) {
            long backoff = Math.max(100, retryBackoff.toMillis());
            context.timeout(backoff);
            throw new RetriableException("No relay has completed its handshake yet, so the largest record the "
                    + "relays take is not known: these " + records + " records are delivered again in "
                    + backoff + " ms");
        }
    }

    /** The records to replicate, converted, with their partitions and sizes; the others left out or reported. */
    private void convert(Collection<SinkRecord> records, List<TopicPartition> partitions,
                         List<ReplicatedRecord> replicated, List<Integer> sizes) {
        String lastTopic = null;
        for (SinkRecord record : records) {
            String topic = record.originalTopic();
            TopicPartition partition = new TopicPartition(topic, record.originalKafkaPartition());
            if (isReplicaOfTarget(topic)) {
                skipped.add(partition);
                continue;
            }
            if (!topic.equals(lastTopic)) {
                checks.metadata().onTopicSeen(topic);
                lastTopic = topic;
            }
            ReplicatedRecord converted = toReplicated(record);
            int dataBytes = converted.dataBytes();
            if (!checks.oversized().fits(record, dataBytes)) {
                continue; // reported to Connect's errant record reporter: the tolerance allows skipping it
            }
            partitions.add(partition);
            replicated.add(converted);
            sizes.add(dataBytes);
        }
    }

    /**
     * Looks up the schema ids of the records' keys and values; a topic that gained one has its
     * metadata (and schemas) shipped again. Records whose id the source registry cannot be asked
     * about now are handed over again by Connect: nothing leaves without its schema.
     */
    private void shipSchemas(List<TopicPartition> partitions, List<ReplicatedRecord> records) {
        for (String topic : checks.schemas().observe(partitions, records, retryBackoff, context::timeout)) {
            checks.metadata().onSchemasChanged(topic);
        }
    }

    /**
     * Which incarnation of its topic each record belongs to; Connect hands the records over again
     * when the source cluster cannot say.
     */
    private List<TopicIncarnations.Change> incarnationChanges(List<TopicPartition> partitions,
                                                              List<ReplicatedRecord> records) {
        try {
            return checks.incarnations().check(partitions, offsets(records));
        } catch (RuntimeException e) {
            context.timeout(ORIGIN_RETRY_MILLIS);
            throw new RetriableException("Cannot read the ids of the source topics (to tell a recreated topic from "
                    + "the one replicated so far); the records are handed over again: " + e.getMessage(), e);
        }
    }

    /**
     * Where records must start batches that vouch for fewer offsets ({@link OriginCoverage}). When the
     * source cluster cannot answer, Connect hands the same records over again after a pause.
     */
    private Map<Integer, Long> coverageRestarts(List<TopicPartition> partitions, List<ReplicatedRecord> records) {
        try {
            return checks.coverage().check(partitions, offsets(records));
        } catch (RuntimeException e) {
            context.timeout(ORIGIN_RETRY_MILLIS);
            throw new RetriableException("Cannot tell whether skipped source offsets were legitimately absent; "
                    + "the records are handed over again: " + e.getMessage(), e);
        }
    }

    private static long[] offsets(List<ReplicatedRecord> records) {
        long[] offsets = new long[records.size()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = records.get(i).offset();
        }
        return offsets;
    }

    /**
     * A partition found reading a recreated topic under its old id is moved back to the new log's
     * start: its records from the change on are dropped here (they come again after the rewind), and
     * the changes' indexes are re-based on the records kept.
     */
    private void dropRewound(List<TopicIncarnations.Change> changes, List<TopicPartition> partitions,
                             List<ReplicatedRecord> records, List<Integer> sizes) {
        Map<TopicPartition, Integer> rewoundFrom = new HashMap<>();
        for (TopicIncarnations.Change change : changes) {
            if (change.rewinds()) {
                rewoundFrom.put(change.partition(), change.index());
                context.offset(change.partition(), change.rewindTo());
                log.warn("Source topic {} was deleted and recreated (topic id {} -> {}) while partition {} kept "
                        + "reading: it starts again from offset {} of the new topic; the records read from the new "
                        + "topic under the old id are replicated twice", change.partition().topic(), change.from(),
                        change.to(), change.partition().partition(), change.rewindTo());
            }
        }
        if (rewoundFrom.isEmpty()) {
            return;
        }
        int[] newIndex = new int[records.size() + 1];
        int kept = 0;
        for (int i = 0; i < records.size(); i++) {
            newIndex[i] = kept;
            Integer from = rewoundFrom.get(partitions.get(i));
            if (from == null || i < from) {
                partitions.set(kept, partitions.get(i));
                records.set(kept, records.get(i));
                sizes.set(kept, sizes.get(i));
                kept++;
            }
        }
        newIndex[records.size()] = kept;
        partitions.subList(kept, partitions.size()).clear();
        records.subList(kept, records.size()).clear();
        sizes.subList(kept, sizes.size()).clear();
        changes.replaceAll(c -> new TopicIncarnations.Change(newIndex[c.index()], c.partition(), c.from(), c.to(),
                c.rewindTo()));
    }

    /**
     * Appends the records in runs, telling the sender each partition's incarnation right before the
     * first record that carries it: a partition's first id, or a new one that starts a new chain.
     */
    private void appendAcrossIncarnations(List<IncomingRecord> incoming, List<TopicIncarnations.Change> changes) {
        int from = 0;
        for (TopicIncarnations.Change change : changes) {
            if (change.index() > from) {
                sender.appendAll(incoming.subList(from, change.index()));
                from = change.index();
            }
            long dropped = sender.incarnation(change.partition(), change.to());
            if (!change.first() && !change.rewinds()) {
                log.warn("Source topic {} was deleted and recreated (topic id {} -> {}): partition {} is replicated "
                        + "as a new incarnation from offset {}{}", change.partition().topic(), change.from(),
                        change.to(), change.partition().partition(),
                        from < incoming.size() ? incoming.get(from).record().offset() : "(next record)",
                        dropped > 0 ? "; " + dropped + " unacknowledged records of the old incarnation are dropped"
                                : "");
            }
        }
        if (from < incoming.size()) {
            sender.appendAll(incoming.subList(from, incoming.size()));
        }
    }

    /** The record as the sender carries it: offset, timestamp, key, value and headers as bytes. */
    static ReplicatedRecord toReplicated(SinkRecord record) {
        byte[] key = bytes(record.key(), "key", "key.converter", record);
        byte[] value = bytes(record.value(), "value", "value.converter", record);
        List<RecordHeader> headers = new ArrayList<>();
        for (Header header : record.headers()) {
            headers.add(new RecordHeader(header.key(), bytes(header.value(), "header " + header.key(),
                    "header.converter", record)));
        }
        Long timestamp = record.timestamp();
        TimestampType type = timestamp == null ? TimestampType.NO_TIMESTAMP_TYPE : record.timestampType();
        return new ReplicatedRecord(record.originalKafkaOffset(), timestamp == null ? -1L : timestamp,
                type == null ? TimestampType.NO_TIMESTAMP_TYPE : type, key, value, headers);
    }

    private static byte[] bytes(Object data, String what, String converterKey, SinkRecord record) {
        if (data == null || data instanceof byte[]) {
            return (byte[]) data;
        }
        throw new DataException("The " + what + " of " + record.originalTopic() + "-"
                + record.originalKafkaPartition() + "@" + record.originalKafkaOffset() + " is a "
                + data.getClass().getSimpleName() + ", not bytes: set " + converterKey
                + "=org.apache.kafka.connect.converters.ByteArrayConverter in the connector config");
    }
}
