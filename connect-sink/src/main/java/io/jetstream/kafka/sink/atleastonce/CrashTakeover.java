package io.jetstream.kafka.sink.atleastonce;

import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import io.jetstream.kafka.sink.progress.SourceOffsets;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At-least-once: the takeover of origin partitions after a predecessor task instance, and the
 * destination offsets of this instance's records ({@link DestinationOffsets}).
 *
 * <p>When an origin partition's first records reach this instance, it counts what a crashed
 * predecessor wrote after its last stored progress (those records come again and are written twice:
 * counted in {@code rewritten-records-total}), from the stored destination offset when the progress
 * has one, else by finding the first records among the destination's last ones
 * ({@link DestinationTail}). Then it predicts the destination offset of each record it creates, which
 * the record's stored progress carries for the next takeover. A partition whose destination cannot
 * be read is taken over without counting (logged); nothing here ever fails the task.
 *
 * <p>Threads: {@link #takeOverNewPartitions} and {@link #predictNext} on the task thread;
 * {@link #onWritten}/{@link #onSkipped} on the producer's thread.
 */
public final class CrashTakeover {

    private static final Logger log = LoggerFactory.getLogger(CrashTakeover.class);

    /** What the takeover reads of the destination cluster and of Connect's stored progress. */
    interface Destination {
        /** The end offset of a destination partition. */
        long endOffset(String topic, int partition) throws Exception;

        /** The stored source offset of an origin partition, or null when none is stored. */
        Map<String, Object> storedOffset(TopicPartition origin);

        /** Fingerprints of the last records of a destination partition, up to {@code endOffset}. */
        DestinationTail.Window tail(TopicPartition destination, long endOffset, boolean withTimestamps);
    }

    private final TopicNamingPolicy naming;
    private final Destination destination;
    private final LongConsumer rewritten;
    private final Map<TopicPartition, DestinationOffsets> cursors = new ConcurrentHashMap<>();

    /**
     * @param rewritten told how many records a predecessor wrote after its stored progress, per
     *                  partition taken over ({@code SinkSiteMetrics#rewritten})
     */
    public CrashTakeover(TopicNamingPolicy naming, Destination destination, LongConsumer rewritten) {
        this.naming = naming;
        this.destination = destination;
        this.rewritten = rewritten;
    }

    /** Takes over every origin partition that appears for the first time in this poll. */
    void takeOverNewPartitions(List<ReplicationReceiver.Delivery> deliveries) {
        Map<TopicPartition, List<ReplicatedRecord>> firstRuns = new HashMap<>();
        for (ReplicationReceiver.Delivery delivery : deliveries) {
            TopicPartition origin = new TopicPartition(delivery.originTopic(), delivery.partition());
            if (!cursors.containsKey(origin)) {
                firstRuns.computeIfAbsent(origin, tp -> new ArrayList<>()).add(delivery.record());
            }
        }
        firstRuns.forEach((origin, run) -> cursors.put(origin, takeOver(origin, run)));
    }

    /** The destination offset the next record of {@code origin} will get, or {@link DestinationOffsets#UNKNOWN}. */
    long predictNext(TopicPartition origin) {
        DestinationOffsets cursor = cursors.get(origin);
        return cursor == null ? DestinationOffsets.UNKNOWN : cursor.predictNext();
    }

    /** A record of {@code origin} was written at {@code destinationOffset}. */
    void onWritten(TopicPartition origin, long destinationOffset) {
        DestinationOffsets cursor = cursors.get(origin);
        if (cursor != null) {
            cursor.onWritten(destinationOffset);
        }
    }

    /** A record of {@code origin} was not written (dropped by a transformation). */
    void onSkipped(TopicPartition origin) {
        DestinationOffsets cursor = cursors.get(origin);
        if (cursor != null) {
            cursor.onSkipped();
        }
    }

    /**
     * The first records of an origin partition for this task instance: counts what a crashed
     * predecessor wrote after its stored progress, and starts predicting destination offsets.
     * Runs before anything of this partition is written by this instance.
     */
    private DestinationOffsets takeOver(TopicPartition origin, List<ReplicatedRecord> firstRun) {
        String topic = naming.destinationTopic(origin.topic());
        long endOffset;
        try {
            endOffset = destination.endOffset(topic, origin.partition());
        } catch (Exception e) {
            log.warn("Cannot read the end offset of {}-{}; records written twice after a crash are not counted "
                    + "for this partition: {}", topic, origin.partition(), e.toString());
            return DestinationOffsets.unknown();
        }
        Map<String, Object> stored;
        try {
            stored = destination.storedOffset(origin);
        } catch (RuntimeException e) {
            log.warn("Cannot read the stored progress of {}; records written twice after a crash are not counted "
                    + "for this partition: {}", origin, e.toString());
            return DestinationOffsets.unknown();
        }
        long count;
        if (stored != null) {
            long storedDestination = stored.get(SourceOffsets.DESTINATION_OFFSET) instanceof Number n
                    ? n.longValue() : DestinationOffsets.UNKNOWN;
            count = DestinationOffsets.rewrittenAfter(storedDestination, endOffset);
        } else {
            count = rewrittenWithoutProgress(origin, topic, endOffset, firstRun);
        }
        if (count > 0) {
            rewritten.accept(count);
            log.info("{}-{}: the previous task instance wrote {} records after its last stored progress; they are "
                    + "written again (at-least-once duplicates, counted in rewritten-records-total)", topic,
                    origin.partition(), count);
        }
        return DestinationOffsets.startingAt(endOffset);
    }

    /**
     * No progress stored for the partition, yet the destination holds records: a predecessor may have
     * crashed before its first offset flush. What it wrote first is what arrives first now, so that
     * run is searched among the destination's last records ({@link DestinationTail}).
     */
    private long rewrittenWithoutProgress(TopicPartition origin, String topic, long endOffset,
                                          List<ReplicatedRecord> firstRun) {
        if (endOffset == 0 || firstRun.isEmpty()) {
            return 0;
        }
        boolean withTimestamps = DestinationTail.useTimestamps(firstRun.get(0));
        long[] redelivered = firstRun.stream().mapToLong(r -> DestinationTail.fingerprint(r, withTimestamps))
                .toArray();
        try {
            DestinationTail.Window window = destination.tail(new TopicPartition(topic, origin.partition()), endOffset,
                    withTimestamps);
            int at = DestinationTail.locate(window.fingerprints(), redelivered);
            return at < 0 ? 0 : endOffset - (window.start() + at);
        } catch (RuntimeException e) {
            log.warn("Cannot read the last records of {}-{}; records written twice after a crash are not counted "
                    + "for this partition: {}", topic, origin.partition(), e.toString());
            return 0;
        }
    }
}
