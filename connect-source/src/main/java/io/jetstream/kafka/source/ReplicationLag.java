package io.jetstream.kafka.source;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.DoubleSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replication lag of the source task's partitions, for operators who page on it:
 *
 * <ul>
 *   <li>{@code replication-lag-records}: origin offsets not yet acknowledged as durably written at the
 *       destination: the partition's end offset (read_committed: its last stable offset) minus the
 *       next offset the destination acknowledged (or, before any acknowledgement, the group's
 *       committed offset). Transaction markers count as offsets.</li>
 *   <li>{@code replication-lag-bytes}: the same times the mean record size this task has read
 *       (keys, values, headers): an estimate, since the origin does not say the size of records
 *       not read yet.</li>
 *   <li>{@code catch-up-seconds}: the lag divided by the net rate at which it shrinks (acknowledged
 *       offsets per second minus the end offset's growth, smoothed); 0 without lag, +Inf while the
 *       lag does not shrink.</li>
 *   <li>{@code data-at-risk-bytes}: bytes read and sent towards the destination (or waiting in an
 *       open batch) that the destination has not acknowledged as durable: what a loss of this task's
 *       state would have to read again, and what the destination does not have yet.</li>
 * </ul>
 *
 * Per partition (tags {@code topic}, {@code partition}) and task-wide (sums; the largest catch-up
 * time). End offsets are read every refresh ({@code replication.heartbeat.interval.ms}) on the
 * caller's thread (a scheduler of the task); a failed read keeps the previous figures and is
 * logged at DEBUG. NaN where a partition's position is not known yet.
 *
 * <p>Thread-safety: {@link #refresh} on one thread, assignment changes on the task thread, gauges
 * read by the metrics reporters; the figures are published in a concurrent map.
 */
final class ReplicationLag {

    private static final Logger log = LoggerFactory.getLogger(ReplicationLag.class);
    /** Weight of the newest rate sample in the smoothed drain rate. */
    private static final double RATE_SMOOTHING = 0.3;

    static final String LAG_RECORDS = "replication-lag-records";
    static final String LAG_BYTES = "replication-lag-bytes";
    static final String CATCH_UP = "catch-up-seconds";
    static final String AT_RISK = "data-at-risk-bytes";

    /** End offsets of origin partitions (read_committed); throws when the cluster does not answer. */
    interface EndOffsets {
        Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions);
    }

    /** Registers and removes the task's gauges ({@link io.jetstream.kafka.connect.common.metrics.TaskMetrics}). */
    interface Gauges {
        void gauge(String metric, String doc, Map<String, String> tags, Supplier<Number> value);

        void remove(String metric, Map<String, String> tags);
    }

    /** One partition's figures, as last computed. */
    record Figures(double lagRecords, double lagBytes, double catchUpSeconds) {
        static final Figures UNKNOWN = new Figures(Double.NaN, Double.NaN, Double.NaN);
    }

    /** What the last refresh saw of a partition, for the drain rate. */
    private record Sample(long endOffset, long position, long nanos, double netRate) {
    }

    private final EndOffsets endOffsets;
    private final Function<Collection<TopicPartition>, Map<TopicPartition, Long>> acknowledged;
    private final OriginCoverage.OriginOffsets committed;
    private final ToLongFunction<TopicPartition> atRiskBytes;
    private final LongSupplier atRiskBytesTotal;
    private final DoubleSupplier meanRecordBytes;
    private final LongSupplier nanoTime;
    private final Gauges gauges;
    private final Set<TopicPartition> assigned = ConcurrentHashMap.newKeySet();
    private final Set<TopicPartition> registered = new HashSet<>();
    private final Map<TopicPartition, Figures> figures = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Sample> samples = new HashMap<>();

    /**
     * @param acknowledged     the next offset to commit of each partition the destination acknowledged
     * @param committed        the consumer group's committed offsets (before any acknowledgement)
     * @param atRiskBytes      per partition: bytes sent and not acknowledged as durable
     * @param atRiskBytesTotal the task's bytes sent or waiting and not acknowledged as durable
     * @param meanRecordBytes  the mean size of the records read so far (NaN before the first)
     */
    ReplicationLag(EndOffsets endOffsets, Function<Collection<TopicPartition>, Map<TopicPartition, Long>> acknowledged,
                   OriginCoverage.OriginOffsets committed, ToLongFunction<TopicPartition> atRiskBytes,
                   LongSupplier atRiskBytesTotal, DoubleSupplier meanRecordBytes, LongSupplier nanoTime,
                   Gauges gauges) {
        this.endOffsets = endOffsets;
        this.acknowledged = acknowledged;
        this.committed = committed;
        this.atRiskBytes = atRiskBytes;
        this.atRiskBytesTotal = atRiskBytesTotal;
        this.meanRecordBytes = meanRecordBytes;
        this.nanoTime = nanoTime;
        this.gauges = gauges;
        Map<String, String> none = Map.of();
        gauges.gauge(LAG_RECORDS, "Origin offsets of the task's partitions not yet acknowledged as durably written"
                + " at the destination (end offset minus acknowledged position; transaction markers count).", none,
                () -> sum(Figures::lagRecords));
        gauges.gauge(LAG_BYTES, "The task's lag in records times the mean record size read (an estimate).", none,
                () -> sum(Figures::lagBytes));
        gauges.gauge(CATCH_UP, "Longest time, in seconds, any of the task's partitions needs to catch up at the"
                + " current rates (0 without lag, +Inf while a lag does not shrink).", none, this::longestCatchUp);
        gauges.gauge(AT_RISK, "Bytes read from the origin and not acknowledged as durable at the destination (sent"
                + " and unanswered, or waiting in an open batch).", none, atRiskBytesTotal::getAsLong);
    }

    /** Partitions assigned to the task (Connect's open); their gauges appear at the next refresh. */
    void assign(Collection<TopicPartition> partitions) {
        assigned.addAll(partitions);
    }

    /** Partitions taken away (Connect's close); their gauges go at the next refresh. */
    void revoke(Collection<TopicPartition> partitions) {
        assigned.removeAll(partitions);
    }

    /** The task's figures as last computed: summed lag, the longest catch-up of its partitions. */
    Figures totals() {
        return new Figures(sum(Figures::lagRecords), sum(Figures::lagBytes), longestCatchUp());
    }

    /** The partition's figures as last computed; {@link Figures#UNKNOWN} before. */
    Figures figures(TopicPartition partition) {
        return figures.getOrDefault(partition, Figures.UNKNOWN);
    }

    /** Reads the end offsets and recomputes every figure. Called periodically on one thread. */
    void refresh() {
        Set<TopicPartition> partitions = Set.copyOf(assigned);
        unregisterGone(partitions);
        if (partitions.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> ends;
        Map<TopicPartition, Long> positions;
        try {
            ends = endOffsets.endOffsets(partitions);
            positions = new HashMap<>(acknowledged.apply(partitions));
            Set<TopicPartition> unacknowledged = new HashSet<>(partitions);
            unacknowledged.removeAll(positions.keySet());
            if (!unacknowledged.isEmpty()) {
                committed.committed(unacknowledged).forEach(positions::putIfAbsent);
            }
        } catch (RuntimeException e) {
            log.debug("Replication lag not refreshed: {}", e.toString());
            return;
        }
        long now = nanoTime.getAsLong();
        double recordBytes = meanRecordBytes.getAsDouble();
        for (TopicPartition tp : partitions) {
            Long end = ends.get(tp);
            Long position = positions.get(tp);
            if (end == null || position == null) {
                figures.put(tp, Figures.UNKNOWN);
                samples.remove(tp);
            } else {
                figures.put(tp, compute(tp, end, position, now, recordBytes));
            }
            register(tp);
        }
    }

    private Figures compute(TopicPartition tp, long end, long position, long now, double recordBytes) {
        long lag = Math.max(0, end - position);
        Sample previous = samples.get(tp);
        double netRate = Double.NaN;
        if (previous != null && now > previous.nanos()) {
            double seconds = (now - previous.nanos()) / 1e9;
            double drained = (position - previous.position()) - (end - previous.endOffset());
            double rate = drained / seconds;
            netRate = Double.isNaN(previous.netRate()) ? rate
                    : RATE_SMOOTHING * rate + (1 - RATE_SMOOTHING) * previous.netRate();
        }
        samples.put(tp, new Sample(end, position, now, netRate));
        double catchUp;
        if (lag == 0) {
            catchUp = 0;
        } else if (netRate > 0) {
            catchUp = lag / netRate;
        } else {
            catchUp = Double.POSITIVE_INFINITY;
        }
        double lagBytes = Double.isNaN(recordBytes) ? (lag == 0 ? 0 : Double.NaN) : lag * recordBytes;
        return new Figures(lag, lagBytes, catchUp);
    }

    private void register(TopicPartition tp) {
        if (!registered.add(tp)) {
            return;
        }
        Map<String, String> tags = tags(tp);
        gauges.gauge(LAG_RECORDS, "Origin offsets of the partition not yet acknowledged as durably written at the"
                + " destination.", tags, () -> figures(tp).lagRecords());
        gauges.gauge(LAG_BYTES, "The partition's lag in records times the mean record size read (an estimate).", tags,
                () -> figures(tp).lagBytes());
        gauges.gauge(CATCH_UP, "Seconds the partition needs to catch up at the current rates (0 without lag, +Inf"
                + " while the lag does not shrink).", tags, () -> figures(tp).catchUpSeconds());
        gauges.gauge(AT_RISK, "Bytes of the partition sent towards the destination and not acknowledged as"
                + " durable.", tags, () -> atRiskBytes.applyAsLong(tp));
    }

    private void unregisterGone(Set<TopicPartition> partitions) {
        for (TopicPartition tp : Set.copyOf(registered)) {
            if (!partitions.contains(tp)) {
                Map<String, String> tags = tags(tp);
                for (String metric : new String[] {LAG_RECORDS, LAG_BYTES, CATCH_UP, AT_RISK}) {
                    gauges.remove(metric, tags);
                }
                registered.remove(tp);
                figures.remove(tp);
                samples.remove(tp);
            }
        }
    }

    private double sum(ToDoubleFunction<Figures> figure) {
        double total = 0;
        for (Figures f : figures.values()) {
            double value = figure.applyAsDouble(f);
            if (!Double.isNaN(value)) {
                total += value;
            }
        }
        return total;
    }

    private double longestCatchUp() {
        double longest = Double.NaN;
        for (Figures f : figures.values()) {
            if (!Double.isNaN(f.catchUpSeconds())) {
                longest = Double.isNaN(longest) ? f.catchUpSeconds() : Math.max(longest, f.catchUpSeconds());
            }
        }
        return longest;
    }

    private static Map<String, String> tags(TopicPartition tp) {
        Map<String, String> tags = new LinkedHashMap<>();
        tags.put("topic", tp.topic());
        tags.put("partition", Integer.toString(tp.partition()));
        return tags;
    }
}
