package io.jetstream.kafka.sink.metrics;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;

/**
 * What the destination task knows of the source's liveness and of each origin partition's
 * freshness, exported as gauges:
 *
 * <ul>
 *   <li>{@code heartbeat-age-seconds}: seconds since the newest batch or end-to-end heartbeat that
 *       arrived here was made at the source (its {@code createdAtMillis}, the source task's clock).
 *       Source tasks send a heartbeat (an empty batch) on every idle partition each
 *       {@code replication.heartbeat.interval.ms}, so this stays near that interval plus the path's
 *       transit while everything works, idle topics included, and grows while the source, a relay,
 *       every route or this task's subscription is down. Task-wide (the freshest word from any
 *       source task) and per origin partition (tags {@code topic}, {@code partition}).</li>
 *   <li>{@code record-age-seconds} per origin partition: for the newest record written, the time
 *       from its timestamp at the origin to its write being acknowledged here.</li>
 * </ul>
 *
 * Only authenticated batches count (the receiver reports them after their integrity check). Both
 * figures compare two sites' clocks and include their skew. NaN until the first batch. Series are
 * per origin partition this task received (bounded by the partitions of the allowed topics); a
 * tag per source task instance is avoided on purpose: source node ids change at every restart.
 *
 * <p>Thread-safety: reports arrive on the task thread and Netty threads, gauges are read by the
 * metrics reporters; all state is in atomics.
 */
public final class EndToEndLiveness {

    public static final String HEARTBEAT_AGE = "heartbeat-age-seconds";
    static final String RECORD_AGE = "record-age-seconds";

    /** Registers a gauge read on demand (the task's {@link io.jetstream.kafka.connect.common.metrics.TaskMetrics}). */
    interface Gauges {
        void gauge(String metric, String doc, Map<String, String> tags, Supplier<Number> value);
    }

    private static final long NEVER = Long.MIN_VALUE;

    /** Per origin partition: newest source clock heard, newest record timestamp written and its age then. */
    private static final class PartitionState {
        final AtomicLong heardMillis = new AtomicLong(NEVER);
        final AtomicLong newestRecordMillis = new AtomicLong(NEVER);
        volatile double recordAgeSeconds = Double.NaN;
    }

    private final LongSupplier clockMillis;
    private final Gauges gauges;
    private final AtomicLong heardMillis = new AtomicLong(NEVER);
    private final Map<TopicPartition, PartitionState> partitions = new ConcurrentHashMap<>();

    public EndToEndLiveness(LongSupplier clockMillis, Gauges gauges) {
        this.clockMillis = clockMillis;
        this.gauges = gauges;
        gauges.gauge(HEARTBEAT_AGE, "Seconds since the newest batch or end-to-end heartbeat that arrived was made"
                + " at the source (source task's clock; skew included): grows while the source, the relays or the"
                + " routes are down, idle topics included. NaN before the first.", Map.of(), () -> age(heardMillis));
    }

    /** An authenticated batch or heartbeat of {@code origin}, made at {@code sourceMillis} by the source's clock. */
    void heard(TopicPartition origin, long sourceMillis) {
        heardMillis.accumulateAndGet(sourceMillis, Math::max);
        partition(origin).heardMillis.accumulateAndGet(sourceMillis, Math::max);
    }

    /** A record of {@code origin} with timestamp {@code recordMillis} was acknowledged as written here now. */
    void written(TopicPartition origin, long recordMillis) {
        PartitionState state = partition(origin);
        long before = state.newestRecordMillis.getAndAccumulate(recordMillis, Math::max);
        if (recordMillis >= before) {
            state.recordAgeSeconds = (clockMillis.getAsLong() - recordMillis) / 1000.0;
        }
    }

    /** Seconds since the newest word from the source, task-wide; NaN before the first. */
    double heartbeatAgeSeconds() {
        return age(heardMillis);
    }

    /** Seconds since the newest word of one origin partition; NaN before the first. */
    double heartbeatAgeSeconds(TopicPartition origin) {
        PartitionState state = partitions.get(origin);
        return state == null ? Double.NaN : age(state.heardMillis);
    }

    /** Timestamp to written, for the partition's newest record written; NaN before the first. */
    double recordAgeSeconds(TopicPartition origin) {
        PartitionState state = partitions.get(origin);
        return state == null ? Double.NaN : state.recordAgeSeconds;
    }

    private PartitionState partition(TopicPartition origin) {
        PartitionState state = partitions.get(origin);
        if (state != null) {
            return state;
        }
        PartitionState created = new PartitionState();
        PartitionState raced = partitions.putIfAbsent(origin, created);
        if (raced != null) {
            return raced;
        }
        Map<String, String> tags = new LinkedHashMap<>();
        tags.put("topic", origin.topic());
        tags.put("partition", Integer.toString(origin.partition()));
        gauges.gauge(HEARTBEAT_AGE, "Seconds since the newest batch or end-to-end heartbeat of the origin partition"
                + " was made at the source (source task's clock; skew included).", tags,
                () -> age(created.heardMillis));
        gauges.gauge(RECORD_AGE, "For the origin partition's newest record written: seconds from its timestamp at"
                + " the origin to its write being acknowledged here (skew included).", tags,
                () -> created.recordAgeSeconds);
        return created;
    }

    private double age(AtomicLong sourceMillis) {
        long heard = sourceMillis.get();
        return heard == NEVER ? Double.NaN : Math.max(0, clockMillis.getAsLong() - heard) / 1000.0;
    }
}
