package io.jetstream.kafka.sink.progress;

import io.jetstream.kafka.core.batch.RecordHeader;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import io.jetstream.kafka.sink.offsetmap.OffsetMapWriter;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The records a destination-site task hands Connect for the receiver's deliveries: each with its
 * origin key, value, headers, timestamp and partition number, its source partition
 * {@code {cluster, topic, partition}} and its stored progress ({@link SourceOffsets}); and, when the
 * offset map is on, the map entries of the poll's records (and corrections of earlier polls), in the
 * same transaction with exactly-once. Task thread only.
 */
public final class SourceRecords {

    private final String sourceAlias;
    private final TopicNamingPolicy naming;
    /** The destination offset each record's progress carries (at-least-once), or -1. */
    private final ToLongFunction<TopicPartition> predictedDestinationOffset;
    /** The offset map's entries (null when offset.map.enabled=false), and their topic. */
    private final OffsetMapWriter offsetMap;
    private final String offsetMapTopic;
    /**
     * Source partition maps by origin partition: one per partition, not one per record (immutable,
     * shared by the records of every poll).
     */
    private final Map<TopicPartition, Map<String, Object>> sourcePartitions = new HashMap<>();
    /** The last source offset returned per origin partition, carried by map records. */
    private final Map<TopicPartition, Map<String, Object>> lastSourceOffsets = new HashMap<>();

    public SourceRecords(String sourceAlias, TopicNamingPolicy naming,
                         ToLongFunction<TopicPartition> predictedDestinationOffset, OffsetMapWriter offsetMap,
                         String offsetMapTopic) {
        this.sourceAlias = sourceAlias;
        this.naming = naming;
        this.predictedDestinationOffset = predictedDestinationOffset;
        this.offsetMap = offsetMap;
        this.offsetMapTopic = offsetMapTopic;
    }

    /** The records of a poll's deliveries, followed by their offset map entries. */
    public List<SourceRecord> of(List<ReplicationReceiver.Delivery> deliveries) {
        List<SourceRecord> records = new ArrayList<>(deliveries.size() + 16);
        for (ReplicationReceiver.Delivery delivery : deliveries) {
            records.add(toSourceRecord(delivery));
        }
        if (offsetMap != null) {
            addOffsetMapEntries(deliveries, records);
        }
        return records;
    }

    /** Whether {@code record} is an entry of the offset map, not a replicated record. */
    public boolean isOffsetMapEntry(SourceRecord record) {
        return offsetMap != null && offsetMapTopic.equals(record.topic());
    }

    /**
     * Appends the map entries of this poll's records (and corrections of earlier polls): in the same
     * transaction with exactly-once. Each carries the stored progress of its origin partition's last
     * record, so it commits no progress of its own.
     */
    private void addOffsetMapEntries(List<ReplicationReceiver.Delivery> deliveries, List<SourceRecord> records) {
        for (int i = 0; i < records.size(); i++) {
            Map<String, ?> partition = records.get(i).sourcePartition();
            boolean lastOfItsRun = i == records.size() - 1 || records.get(i + 1).sourcePartition() != partition;
            if (lastOfItsRun) {
                @SuppressWarnings("unchecked")
                Map<String, Object> offset = (Map<String, Object>) records.get(i).sourceOffset();
                lastSourceOffsets.put(SourceOffsets.origin(partition), offset);
            }
        }
        for (OffsetMapWriter.MapRecord entry : offsetMap.entriesFor(deliveries)) {
            Map<String, Object> progress = lastSourceOffsets.get(entry.origin());
            if (progress == null) {
                continue; // a correction of a run this instance no longer tracks
            }
            records.add(new SourceRecord(sourcePartition(entry.origin()), progress,
                    offsetMapTopic, null, Schema.BYTES_SCHEMA, entry.key(), Schema.BYTES_SCHEMA, entry.value()));
        }
    }

    private SourceRecord toSourceRecord(ReplicationReceiver.Delivery delivery) {
        ReplicatedRecord record = delivery.record();
        ConnectHeaders headers = new ConnectHeaders();
        for (RecordHeader header : record.headers()) {
            headers.addBytes(header.key(), header.value());
        }
        Long timestamp = record.timestampType() == TimestampType.NO_TIMESTAMP_TYPE ? null : record.timestamp();
        TopicPartition origin = new TopicPartition(delivery.originTopic(), delivery.partition());
        return new SourceRecord(sourcePartition(origin),
                sourceOffset(origin, delivery), naming.destinationTopic(delivery.originTopic()),
                delivery.partition(), Schema.OPTIONAL_BYTES_SCHEMA, record.key(), Schema.OPTIONAL_BYTES_SCHEMA,
                record.value(), timestamp, headers);
    }

    /** The shared, immutable source partition of an origin partition. */
    private Map<String, Object> sourcePartition(TopicPartition origin) {
        return sourcePartitions.computeIfAbsent(origin, tp -> Collections.unmodifiableMap(
                SourceOffsets.sourcePartition(sourceAlias, tp.topic(), tp.partition())));
    }

    /**
     * The record's progress: its origin offset with the incarnation of the origin topic, and in
     * at-least-once mode its predicted destination offset.
     */
    private Map<String, Object> sourceOffset(TopicPartition origin, ReplicationReceiver.Delivery delivery) {
        return SourceOffsets.sourceOffset(delivery.record().offset(), delivery.incarnation(),
                predictedDestinationOffset.applyAsLong(origin));
    }
}
