package io.jetstream.kafka.source;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which origin offsets a source-site task can vouch for, so that the destination can tell
 * a real gap (records it never wrote and that nobody will send) from a legitimate one.
 *
 * <p>The consumer skips offsets for good reasons: transaction markers, records of aborted
 * transactions ({@code read_committed}), records removed by compaction. It also skips them for bad
 * ones: its position fell below the log start offset (retention or {@code deleteRecords} removed
 * records before they were read) and it was reset, or the consumer group's offsets were reset
 * while the connector was stopped. The task cannot see the consumer, but it sees offsets jump. For
 * a jump from the expected offset {@code E} to a record at {@code F > E} it asks the origin for the
 * partition's log start offset {@code L} <em>after</em> the record was fetched: if {@code E >= L},
 * offset {@code E} was still in the log when the consumer fetched past it, so the consumer was not
 * reset and every offset in between was skipped for a good reason. Otherwise the offsets below
 * {@code L} are gone and nobody can say whether they held records: the record starts a batch that
 * vouches only for offsets from {@code min(F, L)} on ({@link io.jetstream.kafka.core.batch.RecordBatch#coveredFrom()}).
 * The check is conservative: offsets a consumer skipped legitimately and that retention deleted in
 * the moment before the question count as unvouched too.
 *
 * <p>After an assignment the expected offset is the consumer group's committed offset; a partition
 * without one starts where the consumer starts (its first record), and the destination decides with
 * what it has written.
 *
 * <p>Cost: the origin is asked only when a put holds a jump or a partition's first record, once per
 * put for all of them. Not thread-safe: the task thread calls it.
 */
final class OriginCoverage {

    private static final Logger log = LoggerFactory.getLogger(OriginCoverage.class);

    /** What the origin cluster says; implementations bound their waits and throw when they cannot answer. */
    interface OriginOffsets {
        /** Committed offsets of the connector's consumer group; partitions without one are left out. */
        Map<TopicPartition, Long> committed(Collection<TopicPartition> partitions);

        /** The partitions' log start offsets now. */
        Map<TopicPartition, Long> logStart(Collection<TopicPartition> partitions);
    }

    /** A record whose preceding offsets need a verdict. */
    private record Suspect(int index, TopicPartition partition, long expected, long offset, boolean first) {
    }

    private final OriginOffsets origin;
    private final Map<TopicPartition, Long> expectedNext = new HashMap<>();
    private final Set<TopicPartition> awaitingFirst = new HashSet<>();
    /** Metrics, read by other threads. */
    private volatile long checks;
    private volatile long unvouched;
    private volatile long startedPastLogStart;

    OriginCoverage(OriginOffsets origin) {
        this.origin = origin;
    }

    /** Newly assigned partitions: their first record is checked against the committed offset. */
    void assign(Collection<TopicPartition> partitions) {
        for (TopicPartition partition : partitions) {
            expectedNext.remove(partition);
            awaitingFirst.add(partition);
        }
    }

    void revoke(Collection<TopicPartition> partitions) {
        for (TopicPartition partition : partitions) {
            expectedNext.remove(partition);
            awaitingFirst.remove(partition);
        }
    }

    /**
     * Checks the records of one put, given as partition and offset in arrival order. Returns, by
     * index into the list, the coverage start of each record that must begin a batch vouching only
     * from there; empty when every skipped offset is accounted for. Nothing changes when the origin
     * cannot be asked (the exception propagates and the same records can be checked again).
     */
    Map<Integer, Long> check(List<TopicPartition> partitions, long[] offsets) {
        Map<TopicPartition, Long> next = new HashMap<>();
        Set<TopicPartition> firstSeen = new HashSet<>();
        List<Suspect> suspects = new ArrayList<>();
        for (int i = 0; i < offsets.length; i++) {
            TopicPartition tp = partitions.get(i);
            long offset = offsets[i];
            Long expected = next.containsKey(tp) ? next.get(tp) : expectedNext.get(tp);
            if (awaitingFirst.contains(tp) && firstSeen.add(tp)) {
                suspects.add(new Suspect(i, tp, -1, offset, true));
            } else if (expected != null && offset > expected) {
                suspects.add(new Suspect(i, tp, expected, offset, false));
            }
            next.put(tp, offset + 1);
        }
        Map<Integer, Long> restarts = suspects.isEmpty() ? Map.of() : verdicts(suspects, firstSeen);
        awaitingFirst.removeAll(firstSeen);
        expectedNext.putAll(next);
        return restarts;
    }

    /**
     * Partitions whose consumer, without a committed offset, started above the log start offset:
     * a reset other than {@code earliest} (the worker's {@code consumer.auto.offset.reset}), or a
     * log that begins with records the consumer rightly skips (compacted away, aborted).
     */
    long startedPastLogStart() {
        return startedPastLogStart;
    }

    /** Times the origin was asked (one per put with jumps or first records). */
    long checks() {
        return checks;
    }

    /** Jumps over offsets the task could not vouch for: the destination decides whether they are gaps. */
    long unvouched() {
        return unvouched;
    }

    /**
     * The connector cannot see the worker's {@code consumer.auto.offset.reset}; this is where a reset
     * other than {@code earliest} shows. Not an error for the task: a compacted or aborted head of the
     * log looks the same, and the destination has nothing to compare with.
     */
    private void reportStartPastLogStart(TopicPartition partition, long logStart, long first) {
        startedPastLogStart++;
        log.warn("{} has no committed offset and the consumer started it at offset {}, above its log start offset {}:"
                + " if the Connect worker sets consumer.auto.offset.reset to anything but earliest (latest, "
                + "by_duration), the records at offsets {}..{} were skipped and will not be replicated; set it to "
                + "earliest on the source site's workers (or consumer.override.auto.offset.reset=earliest on this "
                + "connector) and reset the connector's consumer group offsets for {} to {}. If the head of this "
                + "partition was compacted away or holds only aborted transactions, nothing is missing.",
                partition, first, logStart, logStart, first - 1, partition, logStart);
    }

    private Map<Integer, Long> verdicts(List<Suspect> suspects, Set<TopicPartition> firstSeen) {
        Set<TopicPartition> jumped = new HashSet<>();
        suspects.forEach(s -> jumped.add(s.partition()));
        Map<TopicPartition, Long> committed = firstSeen.isEmpty() ? Map.of() : origin.committed(firstSeen);
        // Asked after the records were fetched: a start offset at or below an expected offset proves
        // that offset was still in the log when the consumer fetched past it.
        Map<TopicPartition, Long> logStart = origin.logStart(jumped);
        checks++;
        Map<Integer, Long> restarts = new HashMap<>();
        for (Suspect s : suspects) {
            Long start = logStart.get(s.partition());
            if (s.first()) {
                Long position = committed.get(s.partition());
                long from;
                if (position == null) {
                    from = s.offset(); // no committed offset: replication of this group starts here
                    boolean pastLogStart = start != null && s.offset() > start;
                    if (pastLogStart) {
                        reportStartPastLogStart(s.partition(), start, s.offset());
                    }
                } else if (start != null && position >= start) {
                    from = position;
                } else {
                    from = start == null ? s.offset() : start;
                    unvouched++;
                }
                restarts.put(s.index(), Math.min(s.offset(), from));
            } else {
                boolean stillInLog = start != null && s.expected() >= start;
                if (!stillInLog) {
                    unvouched++;
                    restarts.put(s.index(), Math.min(s.offset(), start == null ? s.offset() : start));
                }
            }
        }
        return restarts;
    }
}
