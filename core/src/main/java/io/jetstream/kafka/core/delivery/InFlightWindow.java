package io.jetstream.kafka.core.delivery;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;

/**
 * The source side's ledger of batches sent and not yet acknowledged, and the source of the offsets
 * that may be committed.
 *
 * <p>Invariant (no loss): {@link #committableOffset} of a partition is one past the last offset of
 * the longest run of <em>acknowledged</em> batches at the head of that partition's queue, so a
 * consumer offset never passes a record the destination has not durably written.
 *
 * <p>Memory: the window holds each batch's payload (retained for re-sends) until it is
 * acknowledged or its partition is revoked; {@link #bytes()} is what the caller's byte budget
 * checks. The release callback gives payloads back exactly once.
 *
 * <p>Not thread-safe: the owner serialises calls.
 *
 * @param <P> the payload kept for re-sends (an encoded frame)
 */
public final class InFlightWindow<P> {

    /** One sent batch. Mutable fields are touched only under the owner's lock. */
    public static final class Entry<P> {
        private final long batchId;
        private final TopicPartition partition;
        private final long lastOffset;
        private final int records;
        private final long bytes;
        private final P payload;
        private long sentAtNanos;
        private long deadlineNanos;
        private int attempts;
        private boolean acked;

        Entry(long batchId, TopicPartition partition, long lastOffset, int records, long bytes, P payload,
              long sentAtNanos, long deadlineNanos) {
            this.batchId = batchId;
            this.partition = partition;
            this.lastOffset = lastOffset;
            this.records = records;
            this.bytes = bytes;
            this.payload = payload;
            this.sentAtNanos = sentAtNanos;
            this.deadlineNanos = deadlineNanos;
            this.attempts = 1;
        }

        public long batchId() {
            return batchId;
        }

        public TopicPartition partition() {
            return partition;
        }

        public long lastOffset() {
            return lastOffset;
        }

        public int records() {
            return records;
        }

        public long bytes() {
            return bytes;
        }

        public P payload() {
            return payload;
        }

        public long sentAtNanos() {
            return sentAtNanos;
        }

        public int attempts() {
            return attempts;
        }

        /** Whether the batch was acknowledged (it stays until the batches before it are). */
        public boolean acked() {
            return acked;
        }
    }

    /** Unacknowledged entries by deadline, then id: {@link #due} reads only the ones past it. */
    private static final Comparator<Entry<?>> BY_DEADLINE = (a, b) -> {
        int byDeadline = Long.compare(a.deadlineNanos, b.deadlineNanos);
        return byDeadline != 0 ? byDeadline : Long.compare(a.batchId, b.batchId);
    };

    private final Map<Long, Entry<P>> byId = new HashMap<>();
    /**
     * The unacknowledged entries ordered by {@link #BY_DEADLINE}. An entry's deadline changes only
     * through {@link #resent} and {@link #retryAt}, which take it out and put it back, so the order
     * holds; without it every {@link #due} walked the whole window (200 times a second per task, and
     * a window of thousands of small batches at many partitions: the source worker's largest cost).
     */
    private final TreeSet<Entry<P>> byDeadline = new TreeSet<>(BY_DEADLINE);
    private final Map<TopicPartition, ArrayDeque<Entry<P>>> byPartition = new HashMap<>();
    private final Map<TopicPartition, Long> committable = new HashMap<>();
    private final Consumer<P> release;
    private long bytes;
    private long records;
    /** Of {@link #records}/{@link #bytes}: acknowledged, held until their predecessors are. */
    private long ackedRecords;
    private long ackedBytes;

    public InFlightWindow(Consumer<P> release) {
        this.release = Objects.requireNonNull(release, "release");
    }

    /**
     * Records a batch just sent (or queued to be sent at {@code deadlineNanos}). Batches of a
     * partition must be added in offset order.
     */
    public Entry<P> add(long batchId, TopicPartition partition, long lastOffset, int records, long bytes, P payload,
                        long nowNanos, long deadlineNanos) {
        Entry<P> entry = new Entry<>(batchId, partition, lastOffset, records, bytes, payload, nowNanos, deadlineNanos);
        if (byId.putIfAbsent(batchId, entry) != null) {
            throw new IllegalStateException("batch id " + batchId + " is already in flight");
        }
        byPartition.computeIfAbsent(partition, p -> new ArrayDeque<>()).addLast(entry);
        byDeadline.add(entry);
        this.bytes += bytes;
        this.records += records;
        return entry;
    }

    /**
     * Marks a batch acknowledged (durably written). Returns the entry, or null for an unknown or
     * already acknowledged id (a late duplicate ACK, or a batch of a revoked partition).
     */
    public Entry<P> ack(long batchId) {
        Entry<P> entry = byId.get(batchId);
        if (entry == null || entry.acked) {
            return null;
        }
        byDeadline.remove(entry);
        entry.acked = true;
        ackedRecords += entry.records;
        ackedBytes += entry.bytes;
        ArrayDeque<Entry<P>> queue = byPartition.get(entry.partition);
        while (queue != null && !queue.isEmpty() && queue.peekFirst().acked) {
            Entry<P> done = queue.pollFirst();
            byId.remove(done.batchId);
            bytes -= done.bytes;
            records -= done.records;
            ackedRecords -= done.records;
            ackedBytes -= done.bytes;
            committable.put(done.partition, done.lastOffset + 1);
            release.accept(done.payload);
        }
        return entry;
    }

    /**
     * Puts another batch in an unacknowledged entry's place in its partition's queue, under a new
     * id, with its own size and payload (due at {@code deadlineNanos}); the old payload is released
     * and later answers to the old id are unknown. The sender's skip marker takes the place of a
     * batch the destination refused for good this way, so that the partition's commit position
     * passes the refused batch only once the marker is acknowledged.
     *
     * @return the new entry
     * @throws IllegalStateException when {@code entry} is acknowledged or no longer in the window,
     *                               or {@code batchId} is in flight already
     */
    public Entry<P> replace(Entry<P> entry, long batchId, long lastOffset, int records, long bytes, P payload,
                            long nowNanos, long deadlineNanos) {
        ArrayDeque<Entry<P>> queue = byPartition.get(entry.partition);
        if (entry.acked || byId.get(entry.batchId) != entry || queue == null) {
            throw new IllegalStateException("batch " + entry.batchId + " is not an unacknowledged batch of the window");
        }
        if (byId.containsKey(batchId)) {
            throw new IllegalStateException("batch id " + batchId + " is already in flight");
        }
        Entry<P> next = new Entry<>(batchId, entry.partition, lastOffset, records, bytes, payload, nowNanos,
                deadlineNanos);
        ArrayDeque<Entry<P>> rebuilt = new ArrayDeque<>(queue.size());
        for (Entry<P> e : queue) {
            rebuilt.addLast(e == entry ? next : e);
        }
        byPartition.put(entry.partition, rebuilt);
        byId.remove(entry.batchId);
        byId.put(batchId, next);
        byDeadline.remove(entry);
        byDeadline.add(next);
        this.bytes += bytes - entry.bytes;
        this.records += records - entry.records;
        release.accept(entry.payload);
        return next;
    }

    /** Marks a batch as sent again now, due again at {@code deadlineNanos} unless acknowledged. */
    public void resent(Entry<P> entry, long nowNanos, long deadlineNanos) {
        entry.sentAtNanos = nowNanos;
        moveDeadline(entry, deadlineNanos);
        entry.attempts++;
    }

    /** Moves a batch's next attempt to {@code deadlineNanos} (after a NACK or a lost connection). */
    public void retryAt(Entry<P> entry, long deadlineNanos) {
        moveDeadline(entry, deadlineNanos);
    }

    private void moveDeadline(Entry<P> entry, long deadlineNanos) {
        boolean indexed = byDeadline.remove(entry);
        entry.deadlineNanos = deadlineNanos;
        if (indexed) {
            byDeadline.add(entry);
        }
    }

    /**
     * Unacknowledged batches whose deadline has passed, oldest batch first (ids increase in the
     * order batches were created). Re-sending in creation order matters: the destination holds a
     * batch until its predecessor arrives, so a re-sent predecessor must never queue behind its
     * successors for the in-flight window.
     */
    public List<Entry<P>> due(long nowNanos) {
        List<Entry<P>> out = new ArrayList<>();
        for (Entry<P> entry : byDeadline) {
            if (nowNanos - entry.deadlineNanos < 0) {
                break; // the rest are due later
            }
            out.add(entry);
        }
        // mostly in order already: a batch's first deadline is its creation time, and ids grow with it
        out.sort((a, b) -> Long.compare(a.batchId, b.batchId));
        return out;
    }

    /** Whether any batch of the partition is unacknowledged (an acknowledged head leaves at once). */
    public boolean hasUnacked(TopicPartition partition) {
        ArrayDeque<Entry<P>> queue = byPartition.get(partition);
        return queue != null && !queue.isEmpty();
    }

    /** The partition's entries not yet released, oldest first (a copy). */
    public List<Entry<P>> entries(TopicPartition partition) {
        ArrayDeque<Entry<P>> queue = byPartition.get(partition);
        return queue == null ? List.of() : new ArrayList<>(queue);
    }

    /** Bytes of the partition's unacknowledged batches. */
    public long unackedBytes(TopicPartition partition) {
        ArrayDeque<Entry<P>> queue = byPartition.get(partition);
        long sum = 0;
        if (queue != null) {
            for (Entry<P> entry : queue) {
                if (!entry.acked) {
                    sum += entry.bytes;
                }
            }
        }
        return sum;
    }

    /**
     * Whether an older entry of {@code entry}'s partition is unacknowledged and matches
     * {@code waiting}. Walks the partition's queue in place (no copy): called for every batch sent.
     */
    public boolean hasOlderUnacked(Entry<P> entry, Predicate<P> waiting) {
        ArrayDeque<Entry<P>> queue = byPartition.get(entry.partition);
        if (queue == null) {
            return false;
        }
        for (Entry<P> older : queue) {
            if (older == entry) {
                return false;
            }
            if (!older.acked && waiting.test(older.payload)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code entry} is the oldest unacknowledged entry of its partition: the one the
     * destination waits for before it can write any successor. Cheap: acknowledged entries leave
     * the front of the queue as they are released.
     */
    public boolean isOldestUnacked(Entry<P> entry) {
        return oldestUnacked(entry.partition) == entry;
    }

    /**
     * The partition's oldest unacknowledged entry (the head of its queue: acknowledged entries leave
     * the front as they are released), or null when none is.
     */
    public Entry<P> oldestUnacked(TopicPartition partition) {
        ArrayDeque<Entry<P>> queue = byPartition.get(partition);
        if (queue == null) {
            return null;
        }
        for (Entry<P> entry : queue) {
            if (!entry.acked) {
                return entry;
            }
        }
        return null;
    }

    /** Every entry not yet released, in no particular order. */
    public List<Entry<P>> entries() {
        return new ArrayList<>(byId.values());
    }

    public Entry<P> get(long batchId) {
        return byId.get(batchId);
    }

    /** The offset to commit for a partition (next offset to read), if any batch was acknowledged. */
    public OptionalLong committableOffset(TopicPartition partition) {
        Long offset = committable.get(partition);
        return offset == null ? OptionalLong.empty() : OptionalLong.of(offset);
    }

    /** Forgets revoked partitions: their payloads are released and later ACKs are ignored. */
    public void revoke(Collection<TopicPartition> partitions) {
        for (TopicPartition partition : partitions) {
            ArrayDeque<Entry<P>> queue = byPartition.remove(partition);
            committable.remove(partition);
            if (queue == null) {
                continue;
            }
            for (Iterator<Entry<P>> it = queue.iterator(); it.hasNext(); ) {
                Entry<P> entry = it.next();
                byId.remove(entry.batchId);
                byDeadline.remove(entry);
                bytes -= entry.bytes;
                records -= entry.records;
                if (entry.acked) {
                    ackedRecords -= entry.records;
                    ackedBytes -= entry.bytes;
                }
                release.accept(entry.payload);
            }
        }
    }

    /** Releases everything (task stopping). */
    public void clear() {
        revoke(new ArrayList<>(byPartition.keySet()));
    }

    /** Bytes of unacknowledged and not yet released batches. */
    public long bytes() {
        return bytes;
    }

    /** Records of batches not yet released (unacknowledged, or acknowledged before a predecessor). */
    public long records() {
        return records;
    }

    /** Records of batches not acknowledged yet. */
    public long unackedRecords() {
        return records - ackedRecords;
    }

    /** Bytes of batches not acknowledged yet. */
    public long unackedBytes() {
        return bytes - ackedBytes;
    }

    /** Batches sent and not yet released. */
    public int size() {
        return byId.size();
    }
}
