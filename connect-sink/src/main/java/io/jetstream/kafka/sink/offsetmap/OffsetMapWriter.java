package io.jetstream.kafka.sink.offsetmap;

import io.jetstream.kafka.core.offsets.OffsetMapCodec;
import io.jetstream.kafka.core.offsets.OffsetMapEntry;
import io.jetstream.kafka.sink.metrics.SinkSiteMetrics;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver;
import io.jetstream.kafka.sink.topics.DestinationTopics;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the offset map entries of a destination-site task: for each poll, one entry per origin
 * partition with the origin offsets of the poll's records and the destination offsets they will
 * land at. The entries are returned with the records, so under exactly-once they commit in the same
 * transaction (and an aborted transaction takes its entries with it).
 *
 * <p>Prediction: the task is the only writer of its destination partitions. When it first writes a
 * partition it reads the partition's end offset {@code E} (under exactly-once the worker has already
 * completed the previous instance's transactions); its records then land at {@code E, E+1, ...},
 * and under exactly-once each transaction that wrote the partition adds one commit marker after its
 * records (Connect's {@code transaction.boundary=poll}: one transaction per poll).
 *
 * <p>Verification: Connect reports each record's real offset ({@link #verify}). A run whose records
 * did not all land where predicted (another producer wrote the partition, a record was dropped, a
 * transaction was split) gets a <em>correction</em> entry with the real offsets, written with the
 * next poll, and the following predictions move by the error. The map is never silently wrong: until
 * the correction is written, the entry is wrong only if the task dies in between, and every
 * correction is logged and counted ({@code offset-map-corrections-total}).
 *
 * <p>Threads: {@link #entriesFor} on the task thread; {@link #verify} on the task thread
 * (exactly-once) or producer threads (at-least-once), in per-partition order for written records.
 */
public final class OffsetMapWriter {

    private static final Logger log = LoggerFactory.getLogger(OffsetMapWriter.class);

    /** What the writer reads from the destination at takeover. */
    public interface Positions {
        /** The destination partition's end offset (blocking, bounded by the caller's timeout). */
        long endOffset(String destinationTopic, int partition) throws Exception;

        /** The stored progress of an origin partition. */
        ReplicationReceiver.Progress stored(TopicPartition origin);
    }

    /** One record of the offset map topic. */
    public record MapRecord(TopicPartition origin, byte[] key, byte[] value, OffsetMapEntry entry) {
    }

    private final String sourceAlias;
    private final TopicNamingPolicy naming;
    private final boolean transactional;
    private final Positions positions;
    private final Map<TopicPartition, Cursor> cursors = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<OffsetMapEntry> corrections = new ConcurrentLinkedQueue<>();
    /**
     * The last origin offset of runs written without an entry, per partition not taken over yet: the
     * first entry after them starts its chain there, so a reader sees the hole instead of taking the
     * unmapped records for legitimate gaps. Task thread only.
     */
    private final Map<TopicPartition, Long> unmappedUpTo = new HashMap<>();
    private final AtomicLong entries = new AtomicLong();
    private final AtomicLong correctionCount = new AtomicLong();
    private final AtomicLong unmappedRecords = new AtomicLong();

    /** The writer of a task, reading end offsets of {@code topics} and stored progress; its gauges registered. */
    public static OffsetMapWriter start(String sourceAlias, TopicNamingPolicy naming, boolean transactional,
                                        DestinationTopics topics, ReplicationReceiver.ProgressStore stored,
                                        SinkSiteMetrics metrics) {
        OffsetMapWriter writer = new OffsetMapWriter(sourceAlias, naming, transactional, new Positions() {
            @Override
            public long endOffset(String destinationTopic, int partition) throws Exception {
                return topics.endOffset(destinationTopic, partition);
            }

            @Override
            public ReplicationReceiver.Progress stored(TopicPartition origin) {
                return stored.progress(origin.topic(), origin.partition());
            }
        });
        metrics.offsetMapGauges(writer::entries, writer::corrections, writer::unmappedRecords);
        return writer;
    }

    public OffsetMapWriter(String sourceAlias, TopicNamingPolicy naming, boolean transactional, Positions positions) {
        this.sourceAlias = Objects.requireNonNull(sourceAlias, "sourceAlias");
        this.naming = Objects.requireNonNull(naming, "naming");
        this.transactional = transactional;
        this.positions = Objects.requireNonNull(positions, "positions");
    }

    /**
     * The map records to write with {@code deliveries} (in their order): corrections of earlier
     * runs first, then one entry per origin partition of this poll. Task thread.
     */
    public List<MapRecord> entriesFor(List<ReplicationReceiver.Delivery> deliveries) {
        List<MapRecord> out = new ArrayList<>();
        OffsetMapEntry correction;
        while ((correction = corrections.poll()) != null) {
            out.add(record(correction));
        }
        Map<TopicPartition, List<ReplicationReceiver.Delivery>> runs = new LinkedHashMap<>();
        for (ReplicationReceiver.Delivery delivery : deliveries) {
            runs.computeIfAbsent(new TopicPartition(delivery.originTopic(), delivery.partition()),
                    tp -> new ArrayList<>()).add(delivery);
        }
        runs.forEach((origin, run) -> {
            OffsetMapEntry entry = predict(origin, run);
            if (entry != null) {
                entries.incrementAndGet();
                out.add(record(entry));
            }
        });
        return out;
    }

    private MapRecord record(OffsetMapEntry entry) {
        return new MapRecord(new TopicPartition(entry.originTopic(), entry.partition()),
                OffsetMapCodec.key(entry.sourceAlias(), entry.originTopic(), entry.partition()),
                OffsetMapCodec.value(entry), entry);
    }

    private OffsetMapEntry predict(TopicPartition origin, List<ReplicationReceiver.Delivery> run) {
        ReplicationReceiver.Incarnation incarnation = run.get(0).incarnation();
        Cursor cursor = cursors.get(origin);
        if (cursor == null) {
            cursor = takeOver(origin, incarnation);
            if (cursor == null) {
                unmappedRecords.addAndGet(run.size());
                unmappedUpTo.put(origin, run.get(run.size() - 1).record().offset());
                return null;
            }
            Long unmapped = unmappedUpTo.remove(origin);
            if (unmapped != null && unmapped > cursor.previous) {
                cursor.previous = unmapped;
            }
            cursors.put(origin, cursor);
        }
        synchronized (cursor) {
            if (incarnation.known() && cursor.topicId.known() && !incarnation.topicId.equals(cursor.topicId.topicId)) {
                cursor.previous = -1; // a recreated origin topic: its offsets start again
            }
            if (incarnation.known()) {
                cursor.topicId = incarnation;
            }
            OffsetMapEntry.Builder builder = new OffsetMapEntry.Builder();
            for (ReplicationReceiver.Delivery delivery : run) {
                builder.add(delivery.record().offset(), cursor.next++);
            }
            int markers = transactional ? 1 : 0;
            cursor.next += markers;
            OffsetMapEntry entry = builder.build(sourceAlias, origin.topic(), origin.partition(),
                    cursor.topicId.topicId, naming.destinationTopic(origin.topic()), cursor.previous, markers, false);
            cursor.previous = entry.lastOrigin();
            cursor.pending.add(new PendingRun(entry, cursor.shift));
            return entry;
        }
    }

    /** The first run of a partition for this task instance: where its records will land. */
    private Cursor takeOver(TopicPartition origin, ReplicationReceiver.Incarnation incarnation) {
        String destination = naming.destinationTopic(origin.topic());
        try {
            long end = positions.endOffset(destination, origin.partition());
            ReplicationReceiver.Progress stored = positions.stored(origin);
            boolean storedOtherIncarnation = incarnation.known() && !Uuid.ZERO_UUID.equals(stored.topicId())
                    && !stored.topicId().equals(incarnation.topicId);
            return new Cursor(end, storedOtherIncarnation ? -1 : stored.lastWritten(), incarnation);
        } catch (Exception e) {
            log.warn("Cannot read where {}-{} ends or the stored progress of {}: this poll's records of it are written "
                    + "without an offset map entry (translation reports a hole there); trying again with the next: {}",
                    destination, origin.partition(), origin, e.toString());
            return null;
        }
    }

    /**
     * Connect reports where a record of {@code origin} landed ({@code actualOffset}, or -1 when it was
     * not written). Records reported here must be records of runs this writer made.
     */
    public void verify(TopicPartition origin, long originOffset, long actualOffset) {
        Cursor cursor = cursors.get(origin);
        if (cursor == null) {
            return;
        }
        OffsetMapEntry corrected = null;
        int misplaced = 0;
        long records = 0;
        synchronized (cursor) {
            PendingRun run = null;
            for (PendingRun candidate : cursor.pending) {
                if (originOffset > candidate.entry.previous() && originOffset <= candidate.entry.lastOrigin()) {
                    run = candidate;
                    break;
                }
            }
            if (run == null) {
                return; // a run of a previous incarnation, or written before this instance
            }
            long predicted = run.entry.destinationAt(originOffset);
            if (actualOffset != predicted) {
                run.actual.put(originOffset, actualOffset);
                long error = actualOffset - predicted;
                long unapplied = error - (cursor.shift - run.shiftAtCreation);
                if (actualOffset >= 0 && unapplied != 0) {
                    cursor.next += unapplied;
                    cursor.shift += unapplied;
                }
            }
            if (++run.verified == run.entry.records()) {
                cursor.pending.remove(run);
                if (!run.actual.isEmpty()) {
                    misplaced = run.actual.size();
                    records = run.entry.records();
                    corrected = correction(run);
                }
            }
        }
        if (corrected != null) {
            correctionCount.incrementAndGet();
            corrections.add(corrected);
            log.warn("Offset map: {} of {} records of {} origin offsets {}..{} did not land where predicted in {} "
                    + "(elsewhere or not written: another producer on the partition, or a dropped record); a "
                    + "correction entry mapping them from destination offset {} follows (counted in "
                    + "offset-map-corrections-total)", misplaced, records, origin, corrected.firstOrigin(),
                    corrected.lastOrigin(), corrected.destinationTopic(), corrected.firstDestination());
        }
    }

    /** The run as it really landed; null (and logged) when none of its records was written. */
    private OffsetMapEntry correction(PendingRun run) {
        OffsetMapEntry entry = run.entry;
        OffsetMapEntry.Builder builder = new OffsetMapEntry.Builder();
        for (OffsetMapEntry.Segment segment : entry.segments()) {
            for (int i = 0; i < segment.length(); i++) {
                long origin = segment.originStart() + i;
                long actual = run.actual.getOrDefault(origin, segment.destinationStart() + i);
                if (actual >= 0) {
                    builder.add(origin, actual);
                }
            }
        }
        if (builder.isEmpty()) {
            log.warn("Offset map: no record of {}-{} origin offsets {}..{} was written; its entry stays until the next "
                    + "entry of the partition replaces it", entry.originTopic(), entry.partition(),
                    entry.firstOrigin(), entry.lastOrigin());
            return null;
        }
        return builder.build(entry.sourceAlias(), entry.originTopic(), entry.partition(), entry.topicId(),
                entry.destinationTopic(), entry.previous(), entry.markers(), true);
    }

    /** Whether corrections wait to be written. */
    public boolean hasCorrections() {
        return !corrections.isEmpty();
    }

    /** Entries made (corrections not included). */
    public long entries() {
        return entries.get();
    }

    public long corrections() {
        return correctionCount.get();
    }

    /** Records written without an entry (the destination could not be read at takeover). */
    public long unmappedRecords() {
        return unmappedRecords.get();
    }

    /** Where an origin partition's records will land next. Guarded by itself. */
    private static final class Cursor {
        long next;
        long previous;
        /** Sum of the prediction errors applied to {@link #next} so far. */
        long shift;
        ReplicationReceiver.Incarnation topicId;
        final ArrayDeque<PendingRun> pending = new ArrayDeque<>();

        Cursor(long next, long previous, ReplicationReceiver.Incarnation topicId) {
            this.next = next;
            this.previous = previous;
            this.topicId = topicId;
        }
    }

    /** A run written but not yet verified record by record. */
    private static final class PendingRun {
        final OffsetMapEntry entry;
        final long shiftAtCreation;
        /** Records that landed elsewhere than predicted (-1: not written), by origin offset. */
        final Map<Long, Long> actual = new HashMap<>();
        long verified;

        PendingRun(OffsetMapEntry entry, long shiftAtCreation) {
            this.entry = entry;
            this.shiftAtCreation = shiftAtCreation;
        }
    }
}
