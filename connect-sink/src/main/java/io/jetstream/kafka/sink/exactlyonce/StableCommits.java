package io.jetstream.kafka.sink.exactlyonce;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exactly-once: holds the acknowledgement of written records until a {@code read_committed} reader
 * can read them, that is until the destination partition's last stable offset has passed them.
 *
 * <p>Connect reports records committed once the producer's {@code commitTransaction()} returned. The
 * transaction's markers reach the partitions after that, and a destination broker that crashes at
 * that moment can come back with the transaction still open on a partition and unknown to its
 * coordinator (a hanging transaction, seen with Kafka 4.3.1). Its records are then never readable,
 * and the way out, an abort ({@link HangingTransactions}, or {@code kafka-transactions.sh abort}),
 * deletes them. Acknowledging them on
 * Connect's report would let the source forget records the destination then loses; held until they
 * are stable, they stay with the source, which sends them again to the task that replaces this one.
 *
 * <p>Records that stay unstable longer than {@code stuckAfter} after their commit, while the
 * partition's stable offset has been readable all along for that long (a broker that was down and
 * is completing its transactions gets that long from its return), fail the task
 * ({@link #failure()}): only a hanging
 * transaction holds the stable offset back that long, and once it is aborted the offset
 * passes these records too, without telling whether they were committed or deleted. A new task
 * instance resumes from the progress stored in the same transactions as the records.
 *
 * <p>Cost: one {@code ListOffsets} call per check, for every destination partition with records
 * waiting; checks are at least {@code recheck} apart, however often transactions commit.
 *
 * <p>Threads: {@link #written} and {@link #committed} on the task thread; checks on the executor
 * given (one thread, shut down by {@link #close()}); {@link Release} is called on that thread.
 */
final class StableCommits implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(StableCommits.class);
    /** Marks kept per origin partition before new ones are merged into the last (memory bound). */
    static final int MAX_MARKS_PER_PARTITION = 64;

    /** Reads last stable offsets, in one cluster call for all partitions. */
    interface StableOffsets {
        Map<TopicPartition, Long> lastStableOffsets(List<TopicPartition> destinations) throws Exception;

        /**
         * Whether the records of {@code destination} up to {@code heldOffset} are held by no hanging
         * transaction: every transaction open on the partition that started at or before that offset is
         * still having its markers written (its coordinator has it in PrepareCommit or PrepareAbort), or
         * none is open any more (its markers were written after the stable offset was read). Late
         * markers, not a hang: on a saturated broker, transactions over many partitions have taken
         * longer than 30 s. Asked only when records look stuck; false when it cannot tell.
         */
        default boolean markersPending(TopicPartition destination, long heldOffset) throws Exception {
            return false;
        }
    }

    /** Told when an origin partition's records up to an offset are stable. */
    interface Release {
        void stable(TopicPartition origin, long originOffset, Object topicId);
    }

    /**
     * The end of one transaction's records of one origin partition: the last origin offset, the
     * destination partition and offset it was written at, and when its commit was reported.
     */
    private record Mark(long originOffset, Object topicId, TopicPartition destination, long destinationOffset,
                        long committedAtNanos) {
    }

    /** The last record of a partition written in the open transaction. */
    private record Open(long originOffset, Object topicId, TopicPartition destination, long destinationOffset) {
    }

    private final StableOffsets offsets;
    private final Release release;
    private final Duration recheck;
    private final Duration stuckAfter;
    private final LongSupplier nanoTime;
    private final ScheduledExecutorService executor;
    private final Map<TopicPartition, Open> open = new HashMap<>();
    private final Object lock = new Object();
    private final Map<TopicPartition, ArrayDeque<Mark>> marks = new LinkedHashMap<>();
    /**
     * Per destination partition: since when its stable offset has been read, without a failed read
     * and without a release, below the oldest mark waiting for it.
     */
    private final Map<TopicPartition, Long> belowSince = new HashMap<>();
    private ScheduledFuture<?> scheduled;
    /** When the last check started: checks are at least {@link #recheck} apart. */
    private long lastCheckNanos = Long.MIN_VALUE;
    private volatile RuntimeException failure;
    /** Guarded by {@link #lock}. */
    private long markersLate;
    private volatile boolean closed;

    StableCommits(StableOffsets offsets, Release release, Duration recheck, Duration stuckAfter, LongSupplier nanoTime,
                  ScheduledExecutorService executor) {
        this.offsets = Objects.requireNonNull(offsets, "offsets");
        this.release = Objects.requireNonNull(release, "release");
        this.recheck = recheck;
        this.stuckAfter = stuckAfter;
        this.nanoTime = nanoTime;
        this.executor = executor;
    }

    /**
     * A record of {@code origin} was written at {@code destination}/{@code destinationOffset} in the
     * transaction being committed (Connect's {@code commitRecord}); {@code destination} is null when
     * the record was not written (a transformation dropped it). Task thread.
     */
    void written(TopicPartition origin, long originOffset, Object topicId, TopicPartition destination,
                 long destinationOffset) {
        synchronized (lock) {
            Open before = open.get(origin);
            if (destination == null && before != null) {
                // a dropped record after written ones: the transaction's records still need checking
                open.put(origin, new Open(originOffset, topicId, before.destination(), before.destinationOffset()));
            } else {
                open.put(origin, new Open(originOffset, topicId, destination, destinationOffset));
            }
        }
    }

    /** The transaction whose records {@link #written} reported has committed; checks soon. Task thread. */
    void committed() {
        synchronized (lock) {
            if (open.isEmpty()) {
                return;
            }
            long now = nanoTime.getAsLong();
            open.forEach((origin, last) -> {
                ArrayDeque<Mark> queue = marks.computeIfAbsent(origin, tp -> new ArrayDeque<>());
                Mark mark = new Mark(last.originOffset(), last.topicId(), last.destination(),
                        last.destinationOffset(), now);
                Mark tail = queue.peekLast();
                if (queue.size() >= MAX_MARKS_PER_PARTITION && tail != null
                        && Objects.equals(tail.destination(), mark.destination()) && Objects.equals(tail.topicId(), mark.topicId())) {
                    // Merged into the last mark: released a little later than it could be, never earlier;
                    // stuck is judged by the oldest mark, which stays.
                    queue.pollLast();
                    mark = new Mark(mark.originOffset(), mark.topicId(), mark.destination(), mark.destinationOffset(),
                            tail.committedAtNanos());
                }
                queue.addLast(mark);
            });
            open.clear();
            long sinceLast = lastCheckNanos == Long.MIN_VALUE ? Long.MAX_VALUE : now - lastCheckNanos;
            schedule(Math.max(0, (recheck.toNanos() - Math.min(sinceLast, recheck.toNanos())) / 1_000_000));
        }
    }

    /** Schedules a check unless one is scheduled already. Holds {@link #lock}. */
    private void schedule(long delayMs) {
        if (closed || (scheduled != null && !scheduled.isDone())) {
            return;
        }
        try {
            scheduled = executor.schedule(this::check, delayMs, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException stopping) {
            // closed meanwhile: nothing more is acknowledged
        }
    }

    /**
     * The destination topic {@code topic} was deleted (and is being made again): records written to
     * it can never become readable, and waiting for them would fail the task as a hang. They were
     * written; what happened to them after is the deleter's doing. Releases every mark that names it.
     */
    void destinationReplaced(String topic) {
        List<Mark> released = new ArrayList<>();
        List<TopicPartition> releasedOrigins = new ArrayList<>();
        synchronized (lock) {
            for (Iterator<Map.Entry<TopicPartition, ArrayDeque<Mark>>> it = marks.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<TopicPartition, ArrayDeque<Mark>> entry = it.next();
                ArrayDeque<Mark> queue = entry.getValue();
                Mark last = null;
                while (!queue.isEmpty() && (queue.peekFirst().destination() == null
                        || queue.peekFirst().destination().topic().equals(topic))) {
                    last = queue.pollFirst();
                }
                if (last != null) {
                    released.add(last);
                    releasedOrigins.add(entry.getKey());
                }
                if (queue.isEmpty()) {
                    it.remove();
                }
            }
        }
        for (int i = 0; i < released.size(); i++) {
            release.stable(releasedOrigins.get(i), released.get(i).originOffset(), released.get(i).topicId());
        }
    }

    /** Commits reported but not yet stable, over all partitions. */
    int waiting() {
        synchronized (lock) {
            return marks.values().stream().mapToInt(ArrayDeque::size).sum();
        }
    }

    /** Set once records stayed unstable past the bound; the task should fail with it. */
    RuntimeException failure() {
        return failure;
    }

    /** Reads the stable offsets of the partitions with marks and releases what they pass. */
    void check() {
        List<TopicPartition> destinations;
        synchronized (lock) {
            scheduled = null;
            lastCheckNanos = nanoTime.getAsLong();
            if (closed || marks.isEmpty() || failure != null) {
                // once failed, nothing more is released: the stable offset may pass records an abort deleted
                return;
            }
            destinations = marks.values().stream().flatMap(ArrayDeque::stream).map(Mark::destination)
                    .filter(Objects::nonNull).distinct().toList();
        }
        Map<TopicPartition, Long> stable;
        try {
            stable = destinations.isEmpty() ? Map.of() : offsets.lastStableOffsets(destinations);
        } catch (Exception e) {
            log.debug("Last stable offsets of {} not read; acknowledgements wait: {}", destinations, e.toString());
            synchronized (lock) {
                belowSince.clear();
                schedule(Math.max(recheck.toMillis(), 1_000));
            }
            return;
        }
        List<Mark> released = new ArrayList<>();
        List<TopicPartition> releasedOrigins = new ArrayList<>();
        List<Stuck> stuck = new ArrayList<>();
        synchronized (lock) {
            long now = nanoTime.getAsLong();
            belowSince.keySet().retainAll(stable.keySet());
            for (Iterator<Map.Entry<TopicPartition, ArrayDeque<Mark>>> it = marks.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<TopicPartition, ArrayDeque<Mark>> entry = it.next();
                ArrayDeque<Mark> queue = entry.getValue();
                Mark last = null;
                while (!queue.isEmpty()) {
                    Mark mark = queue.peekFirst();
                    Long lso = mark.destination() == null ? null : stable.get(mark.destination());
                    if (mark.destination() != null && (lso == null || lso <= mark.destinationOffset())) {
                        break;
                    }
                    last = queue.pollFirst();
                }
                if (last != null) {
                    released.add(last);
                    releasedOrigins.add(entry.getKey());
                    if (last.destination() != null) {
                        belowSince.remove(last.destination());
                    }
                }
                Mark oldest = queue.peekFirst();
                if (oldest != null && oldest.destination() != null && stable.containsKey(oldest.destination())) {
                    long since = belowSince.computeIfAbsent(oldest.destination(), tp -> now);
                    if (now - since > stuckAfter.toNanos() && now - oldest.committedAtNanos() > stuckAfter.toNanos()
                            && failure == null) {
                        stuck.add(new Stuck(entry.getKey(), oldest, stable.get(oldest.destination())));
                    }
                }
                if (queue.isEmpty()) {
                    it.remove();
                }
            }
            if (!marks.isEmpty() && failure == null) {
                schedule(recheck.toMillis());
            }
        }
        for (int i = 0; i < released.size(); i++) {
            Mark mark = released.get(i);
            release.stable(releasedOrigins.get(i), mark.originOffset(), mark.topicId());
        }
        for (Stuck candidate : stuck) {
            failIfHanging(candidate);
        }
    }

    /** Records that look stuck: the origin partition, its oldest mark and the destination's stable offset. */
    private record Stuck(TopicPartition origin, Mark oldest, long lso) {
    }

    /**
     * Fails the task for records that stayed unreadable past {@code stuckAfter}, unless the broker is
     * still writing the holding transaction's markers: then the wait starts again (logged), since
     * failing would stop replication for records that become readable by themselves. Outside the
     * lock: the question is a cluster call.
     */
    private void failIfHanging(Stuck candidate) {
        TopicPartition destination = candidate.oldest().destination();
        boolean pending;
        try {
            pending = offsets.markersPending(destination, candidate.oldest().destinationOffset());
        } catch (Exception e) {
            log.debug("Could not tell whether the markers of {} are still being written", destination, e);
            pending = false;
        }
        synchronized (lock) {
            if (failure != null || closed) {
                return;
            }
            if (pending) {
                belowSince.put(destination, nanoTime.getAsLong());
                markersLate++;
                log.warn("Records of {} written to {} up to offset {} are still not readable {} ms after their "
                        + "commit, but the transaction holding the stable offset ({}) is still having its markers "
                        + "written (PrepareCommit/PrepareAbort at its coordinator): the destination broker is slow, "
                        + "not hanging; waiting another {} ms", candidate.origin(), destination,
                        candidate.oldest().destinationOffset(),
                        (nanoTime.getAsLong() - candidate.oldest().committedAtNanos()) / 1_000_000, candidate.lso(),
                        stuckAfter.toMillis());
                return;
            }
            failure = stuck(candidate.origin(), candidate.oldest(), candidate.lso());
        }
    }

    /** How often records looked stuck while their transaction's markers were still being written. */
    long markersLate() {
        synchronized (lock) {
            return markersLate;
        }
    }

    private RuntimeException stuck(TopicPartition origin, Mark oldest, long lso) {
        String message = "Records of " + origin + " written to " + oldest.destination() + " up to offset "
                + oldest.destinationOffset() + " are still not readable by read_committed consumers "
                + (nanoTime.getAsLong() - oldest.committedAtNanos()) / 1_000_000 + " ms after Connect reported "
                + "their transaction committed: the partition's last stable offset stays at " + lso + ". A "
                + "hanging transaction holds it (typically after a destination broker crash). Their "
                + "acknowledgements were withheld, so the source still holds them. With exactly-once the "
                + "connector aborts its tasks' hanging transactions by itself and has Connect restart the tasks "
                + "(exactly.once.hanging.check.interval.ms; WARN 'Aborted a hanging transaction'); a transaction "
                + "of another producer needs kafka-transactions.sh find-hanging / abort and a restart of this task "
                + "(docs/operations.md). The new instance resumes from the stored progress and the source sends "
                + "the records again.";
        log.error(message);
        return new IllegalStateException(message);
    }

    @Override
    public void close() {
        closed = true;
        executor.shutdownNow();
        synchronized (lock) {
            marks.clear();
            open.clear();
            belowSince.clear();
        }
    }
}
