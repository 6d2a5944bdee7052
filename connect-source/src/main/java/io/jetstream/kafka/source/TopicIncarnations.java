package io.jetstream.kafka.source;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * Which incarnation of its topic each record a source-site task reads belongs to, so that a topic
 * deleted and recreated under the same name is replicated as a new incarnation from its first
 * record instead of being taken, offset for offset, for records already replicated.
 *
 * <p>An incarnation is the topic's id (Kafka's topic id, which a recreated topic does not keep).
 * A partition's id is read from the source cluster with its first record after an assignment. The
 * consumer meets a recreated topic in one of three ways, and each is caught:
 * <ul>
 *   <li>the partitions are revoked when the topic disappears and assigned again when it returns:
 *       the first record after the assignment reads the new id;
 *   <li>the consumer keeps the partition and its position falls outside the new log, so it resets
 *       to the start: offsets go <em>backwards</em>, and the id is read again; a new id starts the
 *       new incarnation at that record (the same id means the log was truncated, e.g. by an unclean
 *       leader election: counted, nothing else changes);
 *   <li>the consumer keeps the partition and its position lies inside the new log, so it reads on
 *       from there: only the topic's id shows it. The metadata publisher's periodic description
 *       reports ids ({@link #observed}); a partition whose id differs is checked once more and, if it
 *       changed, <em>rewound</em> to the new log's start: records read between the recreation and
 *       the refresh are then replicated twice (once as the old incarnation's), never lost. (Whenever
 *       the new id is read and the partition's offsets go backwards later in the same put, the
 *       records before that point are the old topic's and the change happens there, without a rewind.)
 * </ul>
 *
 * <p>Cost: the source cluster is asked once per put that holds a partition's first record, an
 * offset going backwards or a refreshed id that differs, never otherwise. Not thread-safe but for
 * {@link #observed}: the task thread calls everything else.
 */
final class TopicIncarnations {

    /** What the source cluster says; implementations bound their waits and throw when they cannot answer. */
    interface TopicIds {
        /** The topics' ids now; a topic that does not exist maps to {@link Uuid#ZERO_UUID}. */
        Map<String, Uuid> topicIds(Collection<String> topics);

        /** The partitions' log start offsets now. */
        Map<TopicPartition, Long> logStart(Collection<TopicPartition> partitions);
    }

    /**
     * A partition's records take another id from record {@code index} of the checked put on. With
     * {@code from} null it is the partition's first id since its assignment. With {@code rewindTo}
     * of 0 or more the records from {@code index} on were read from the new incarnation under the
     * old id: the task drops them and moves the consumer to {@code rewindTo}.
     */
    record Change(int index, TopicPartition partition, Uuid from, Uuid to, long rewindTo) {
        static final long NO_REWIND = -1;

        boolean first() {
            return from == null;
        }

        boolean rewinds() {
            return rewindTo != NO_REWIND;
        }
    }

    private static final class State {
        Uuid id;
        long lastOffset;

        State(Uuid id, long lastOffset) {
            this.id = id;
            this.lastOffset = lastOffset;
        }
    }

    private final TopicIds source;
    private final Map<TopicPartition, State> states = new HashMap<>();
    /** What the last {@link #check} found, applied by {@link #commit}: new states (or null) ... */
    private Map<TopicPartition, State> pending;
    /** ... or, in the common case, only the last offset of each partition of the put. */
    private final Map<TopicPartition, Long> pendingLastOffsets = new HashMap<>();
    private long pendingRecreations;
    private long pendingTruncations;
    /** Ids last seen by anyone (the metadata publisher, this class), by topic. */
    private final Map<String, Uuid> observed = new ConcurrentHashMap<>();
    private volatile long recreations;
    private volatile long truncations;

    TopicIncarnations(TopicIds source) {
        this.source = source;
    }

    /** Newly assigned partitions: their id is read again with their first record. */
    void assign(Collection<TopicPartition> partitions) {
        partitions.forEach(states::remove);
        pending = null;
        pendingLastOffsets.clear();
    }

    void revoke(Collection<TopicPartition> partitions) {
        assign(partitions);
    }

    /** A description of {@code topic} read elsewhere (any thread) carried {@code topicId}. */
    void observed(String topic, Uuid topicId) {
        if (!Uuid.ZERO_UUID.equals(topicId)) {
            observed.put(topic, topicId);
        }
    }

    /**
     * Checks the records of one put, given as partition and offset in arrival order, and returns the
     * id changes in index order; empty when every record belongs to the incarnation its partition
     * had. Nothing changes until {@link #commit}: when the source cluster cannot answer, or the put
     * fails later, the same records are checked again from the same state (Connect hands them over
     * again), and are not taken for offsets going backwards.
     */
    List<Change> check(List<TopicPartition> partitions, long[] offsets) {
        pending = null;
        pendingLastOffsets.clear();
        Set<String> ask = topicsToAsk(partitions, offsets);
        if (ask.isEmpty()) {
            // the common case: only the partitions' last offsets move
            for (int i = 0; i < offsets.length; i++) {
                pendingLastOffsets.put(partitions.get(i), offsets[i]);
            }
            return List.of();
        }
        Map<String, Uuid> current = source.topicIds(ask);
        current.forEach(this::observed);
        Map<TopicPartition, State> working = new HashMap<>();
        states.forEach((tp, s) -> working.put(tp, new State(s.id, s.lastOffset)));
        Set<TopicPartition> goBackwards = partitionsGoingBackwards(partitions, offsets);
        Set<TopicPartition> seen = new HashSet<>();
        Set<TopicPartition> rewound = new HashSet<>();
        List<Change> changes = new ArrayList<>();
        long recreated = 0;
        long truncated = 0;
        for (int i = 0; i < offsets.length; i++) {
            TopicPartition tp = partitions.get(i);
            long offset = offsets[i];
            if (rewound.contains(tp)) {
                continue;
            }
            State state = working.get(tp);
            boolean firstInPut = seen.add(tp);
            if (state == null) {
                Uuid id = current.getOrDefault(tp.topic(), Uuid.ZERO_UUID);
                working.put(tp, new State(id, offset));
                changes.add(new Change(i, tp, null, id, Change.NO_REWIND));
                continue;
            }
            Uuid now = current.get(tp.topic());
            boolean changed = now != null && !Uuid.ZERO_UUID.equals(now) && !now.equals(state.id);
            if (firstInPut && changed && !goBackwards.contains(tp)) {
                // read on into the new log under the old id: start the new incarnation from its beginning
                changes.add(new Change(i, tp, state.id, now, 0));
                rewound.add(tp);
                state.id = now;
                state.lastOffset = -1;
                recreated++;
            } else if (offset <= state.lastOffset) {
                if (changed) {
                    changes.add(new Change(i, tp, state.id, now, Change.NO_REWIND));
                    state.id = now;
                    recreated++;
                } else {
                    truncated++;
                }
                state.lastOffset = offset;
            } else {
                state.lastOffset = offset;
            }
        }
        if (!rewound.isEmpty()) {
            Map<TopicPartition, Long> starts = source.logStart(rewound);
            for (int i = 0; i < changes.size(); i++) {
                Change c = changes.get(i);
                if (c.rewinds()) {
                    changes.set(i, new Change(c.index(), c.partition(), c.from(), c.to(),
                            Math.max(0, starts.getOrDefault(c.partition(), 0L))));
                }
            }
        }
        pending = working;
        pendingRecreations = recreated;
        pendingTruncations = truncated;
        return changes;
    }

    /** Applies what the last {@link #check} found: call once the put has accepted the records. */
    void commit() {
        pendingLastOffsets.forEach((tp, offset) -> states.get(tp).lastOffset = offset);
        pendingLastOffsets.clear();
        if (pending == null) {
            return;
        }
        states.clear();
        states.putAll(pending);
        recreations += pendingRecreations;
        truncations += pendingTruncations;
        pending = null;
    }

    /** Partitions with a state whose offsets go backwards somewhere in this put. */
    private Set<TopicPartition> partitionsGoingBackwards(List<TopicPartition> partitions, long[] offsets) {
        Set<TopicPartition> out = new HashSet<>();
        Map<TopicPartition, Long> last = new HashMap<>();
        for (int i = 0; i < offsets.length; i++) {
            TopicPartition tp = partitions.get(i);
            State state = states.get(tp);
            Long before = last.put(tp, offsets[i]);
            if (before == null && state != null) {
                before = state.lastOffset;
            }
            if (before != null && offsets[i] <= before) {
                out.add(tp);
            }
        }
        return out;
    }

    /**
     * Topics whose id must be read for this put: those of partitions without an id since their
     * assignment, of partitions whose offsets go backwards, and of partitions whose refreshed id
     * differs from theirs.
     */
    private Set<String> topicsToAsk(List<TopicPartition> partitions, long[] offsets) {
        Set<String> ask = new HashSet<>();
        Map<TopicPartition, Long> last = new HashMap<>();
        for (int i = 0; i < offsets.length; i++) {
            TopicPartition tp = partitions.get(i);
            State state = states.get(tp);
            if (state == null) {
                ask.add(tp.topic());
                continue;
            }
            Long before = last.put(tp, offsets[i]);
            if (before == null) {
                Uuid seen = observed.get(tp.topic());
                if (seen != null && !seen.equals(state.id)) {
                    ask.add(tp.topic());
                }
                before = state.lastOffset;
            }
            if (offsets[i] <= before) {
                ask.add(tp.topic());
            }
        }
        return ask;
    }

    /** Partitions whose topic was found recreated (a new id after records of another). */
    long recreations() {
        return recreations;
    }

    /** Offsets that went backwards within one incarnation (a truncated log): records the destination drops as duplicates. */
    long truncations() {
        return truncations;
    }
}
