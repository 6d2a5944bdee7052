package io.jetstream.kafka.source.sender;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;

/**
 * When each partition is due an end-to-end heartbeat ({@code replication.heartbeat.interval.ms}):
 * it made no batch (nor heartbeat) for an interval, and its previous heartbeat was answered or is
 * older than the acknowledgement timeout, so that at most one heartbeat per partition is on the
 * path. Heartbeats are looked for every quarter interval, not at every tick of the sender.
 *
 * <p>A task sends at most {@value #MAX_PER_SECOND} heartbeats a second, whatever its partition
 * count: at each look at most a quarter interval's share of them, to the partitions quiet the
 * longest. Up to {@code 20 x interval} idle partitions per task (100 at the default 5 s) each get
 * one every interval; beyond that each gets one every {@code partitions / 20} seconds (a minute
 * at 1,200), while the task as a whole still sends some every quarter interval, so the
 * task-wide {@code heartbeat-age-seconds} stays within an interval. Idle cost then stops growing
 * with the partition count (issue 30: 240 heartbeat frames a second at 1,200 idle partitions before).
 *
 * <p>Bookkeeping only (what to send is {@link ReplicationSender}'s); not thread-safe: the sender
 * calls it under its lock.
 */
final class HeartbeatSchedule {

    /** A heartbeat on the path: its batch id and when it left. */
    private record Out(long id, long sentNanos) {
    }

    /** Heartbeats a task sends per second at most. */
    static final int MAX_PER_SECOND = 20;

    private final long intervalNanos;
    private final long ackTimeoutNanos;
    private final int maxPerLook;
    private final Map<TopicPartition, Long> lastMadeNanos = new HashMap<>();
    private final Map<TopicPartition, Out> out = new HashMap<>();
    private final Map<Long, TopicPartition> byId = new HashMap<>();
    private long nextLookNanos;

    /** @param interval the heartbeat interval; zero: never due */
    HeartbeatSchedule(Duration interval, Duration ackTimeout) {
        this.intervalNanos = interval.toNanos();
        this.ackTimeoutNanos = ackTimeout.toNanos();
        this.maxPerLook = (int) Math.max(1, Math.min(Integer.MAX_VALUE,
                MAX_PER_SECOND * (intervalNanos / 4) / 1_000_000_000L));
    }

    /** Whether to look for due partitions now (every quarter interval); false when heartbeats are off. */
    boolean lookNow(long nowNanos) {
        if (intervalNanos == 0 || nowNanos - nextLookNanos < 0) {
            return false;
        }
        nextLookNanos = nowNanos + intervalNanos / 4;
        return true;
    }

    /** A batch of the partition was made: it is not idle. */
    void batchMade(TopicPartition partition, long nowNanos) {
        lastMadeNanos.put(partition, nowNanos);
    }

    /** Whether the partition is idle for an interval and has no heartbeat on the path. */
    boolean due(TopicPartition partition, long nowNanos) {
        Long lastMade = lastMadeNanos.get(partition);
        boolean quiet = lastMade == null || nowNanos - lastMade >= intervalNanos;
        Out previous = out.get(partition);
        boolean answered = previous == null || nowNanos - previous.sentNanos() >= ackTimeoutNanos;
        return quiet && answered;
    }

    /**
     * The partitions to send a heartbeat now: of {@code partitions}, those {@link #due} and
     * {@code eligible}, at most a look's share of {@value #MAX_PER_SECOND} a second, the ones quiet
     * the longest (never made a batch: first) first.
     */
    List<TopicPartition> pick(Collection<TopicPartition> partitions, long nowNanos,
                              Predicate<TopicPartition> eligible) {
        List<TopicPartition> due = new ArrayList<>();
        for (TopicPartition partition : partitions) {
            if (due(partition, nowNanos) && eligible.test(partition)) {
                due.add(partition);
            }
        }
        if (due.size() > maxPerLook) {
            due.sort(Comparator.comparingLong(partition -> {
                Long lastMade = lastMadeNanos.get(partition);
                return lastMade == null ? Long.MIN_VALUE : lastMade - nowNanos;
            }));
            return new ArrayList<>(due.subList(0, maxPerLook));
        }
        return due;
    }

    /** At most this many heartbeats leave at one look. */
    int maxPerLook() {
        return maxPerLook;
    }

    /** A heartbeat of the partition left with batch id {@code id}. */
    void sent(TopicPartition partition, long id, long nowNanos) {
        Out previous = out.put(partition, new Out(id, nowNanos));
        if (previous != null) {
            byId.remove(previous.id()); // unanswered within the ack timeout: its answer no longer matters
        }
        byId.put(id, partition);
        lastMadeNanos.put(partition, nowNanos);
    }

    /** The answer to batch {@code id}: true (and the partition's next heartbeat may go) if it was a heartbeat. */
    boolean answered(long id) {
        TopicPartition partition = byId.remove(id);
        if (partition == null) {
            return false;
        }
        out.remove(partition);
        return true;
    }

    /** Forgets an assigned or revoked partition. */
    void forget(TopicPartition partition) {
        lastMadeNanos.remove(partition);
        Out previous = out.remove(partition);
        if (previous != null) {
            byId.remove(previous.id());
        }
    }
}
