package io.jetstream.kafka.core.delivery;

import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Re-orders and de-duplicates the batches of one origin partition at the destination, and decides
 * when each batch may be acknowledged.
 *
 * <p>Rule: a batch is <em>applicable</em> when {@code prevOffset <= lastWritten}; applying it hands
 * over its records with offsets {@code > lastWritten} (the rest are duplicates) and moves
 * {@code lastWritten} to the batch's last offset. A batch that is not applicable yet is held until
 * its predecessor has been applied. A sender marks the first batch after an assignment with
 * {@code prevOffset = -1}: it is always applicable, which is safe because a source offset is
 * committed only after its record was written, so nothing between the committed offset and the
 * batch can be missing, unless the origin lost offsets before they were read, which the batch's
 * coverage reveals (below).
 *
 * <p>Gaps: a batch whose {@link RecordBatch#coveredFrom()} lies above {@code lastWritten + 1}
 * vouches for fewer offsets than the destination is missing: offsets {@code lastWritten + 1} to
 * {@code coveredFrom - 1} were never written here and the sender cannot tell they were legitimately
 * absent (they may have been deleted by retention before they were read, or skipped by an offset
 * reset). Before such a batch is applied the {@link GapHandler} hears of the range; it accepts the
 * gap by returning, or refuses it by throwing, and then nothing of the batch is applied. A partition
 * without progress ({@code lastWritten = -1}) has no gap: replication starts where the sender starts.
 *
 * <p>Skip markers ({@link RecordBatch#isSkipMarker()}): a marker stands for a batch the sender
 * skipped after the destination refused it for good. It applies like a batch whose records are all
 * absent: {@code lastWritten} moves to its last offset, nothing is handed over, and its offsets are
 * no gap (it vouches for them). Its acknowledgement waits, like any other, until an offset at or
 * after its last one is durable: a record written after it, since the skipped offsets themselves
 * are never stored as progress. Until then the sender keeps the marker, and a restarted task
 * starts before it, so a crash here never leaves a successor waiting for a predecessor nobody sends.
 *
 * <p>Acknowledgements: a batch (applied, duplicate or partly duplicate) is acknowledged only once
 * every record up to its last offset is durable ({@link #onDurable}), so an ACK always means "written".
 *
 * <p>Not thread-safe: the owner serialises calls (the destination task uses one lock per task).
 *
 * @param <A> the caller's handle for acknowledging a batch
 */
public final class PartitionSequencer<A> {

    /** Told of a gap before the batch that reveals it is applied. */
    @FunctionalInterface
    public interface GapHandler {
        /**
         * Offsets {@code from..to} (inclusive) of the partition were never written and the sender
         * cannot vouch that they were absent. Return to accept the gap; throw to refuse it.
         */
        void onGap(String topic, int partition, long from, long to);

        /** Accepts every gap without a word. */
        GapHandler ACCEPT = (topic, partition, from, to) -> { };
    }

    /** A batch waiting for its predecessor, with the bytes it holds. */
    private record Held<A>(RecordBatch batch, A ack, long bytes) {
    }

    /** An acknowledgement waiting until {@code lastOffset} is durable. */
    private record PendingAck<A>(long lastOffset, A ack) {
    }

    private final TreeMap<Long, List<Held<A>>> held = new TreeMap<>();
    private final Deque<PendingAck<A>> pendingAcks = new ArrayDeque<>();
    private long lastWritten;
    private long durable;
    private long heldBytes;
    private long duplicateRecords;
    private long skippedRecords;
    private final GapHandler gaps;

    /**
     * @param lastWritten the last origin offset already written (from stored progress), or -1
     */
    public PartitionSequencer(long lastWritten) {
        this(lastWritten, GapHandler.ACCEPT);
    }

    /**
     * @param lastWritten the last origin offset already written (from stored progress), or -1
     * @param gaps decides about gaps the sender cannot vouch for
     */
    public PartitionSequencer(long lastWritten, GapHandler gaps) {
        this.lastWritten = lastWritten;
        this.durable = lastWritten;
        this.gaps = gaps;
    }

    /** What offering a batch produced: records to write now, and acknowledgements that are due. */
    public record Result<A>(List<ReplicatedRecord> records, List<A> dueAcks, boolean held) {
    }

    /** Whether {@code batch} would be applied now rather than held. */
    public boolean isApplicable(RecordBatch batch) {
        return batch.prevOffset() <= lastWritten;
    }

    /**
     * Offers a batch with its ack handle and size. Returns the records that are now in order (from
     * this batch and any held batches it unblocked) and any acknowledgements already due (a fully
     * duplicate batch whose records are durable).
     */
    public Result<A> offer(RecordBatch batch, A ack, long bytes) {
        boolean applicable = batch.prevOffset() <= lastWritten;
        if (!applicable) {
            held.computeIfAbsent(batch.prevOffset(), k -> new ArrayList<>()).add(new Held<>(batch, ack, bytes));
            heldBytes += bytes;
            return new Result<>(List.of(), List.of(), true);
        }
        List<ReplicatedRecord> out = new ArrayList<>();
        apply(batch, ack, out);
        releaseHeld(out);
        return new Result<>(out, dueAcks(), false);
    }

    private void apply(RecordBatch batch, A ack, List<ReplicatedRecord> out) {
        boolean hasProgress = lastWritten >= 0;
        if (hasProgress && batch.coveredFrom() > lastWritten + 1) {
            gaps.onGap(batch.topic(), batch.partition(), lastWritten + 1, batch.coveredFrom() - 1);
        }
        if (batch.isSkipMarker() && batch.lastOffset() > lastWritten) {
            skippedRecords += batch.skipped().records();
        }
        for (ReplicatedRecord record : batch.records()) {
            if (record.offset() > lastWritten) {
                out.add(record);
                lastWritten = record.offset();
            } else {
                duplicateRecords++;
            }
        }
        lastWritten = Math.max(lastWritten, batch.lastOffset());
        enqueueAck(batch.lastOffset(), ack);
    }

    private void releaseHeld(List<ReplicatedRecord> out) {
        while (!held.isEmpty() && held.firstKey() <= lastWritten) {
            Map.Entry<Long, List<Held<A>>> entry = held.pollFirstEntry();
            for (Held<A> h : entry.getValue()) {
                heldBytes -= h.bytes();
                apply(h.batch(), h.ack(), out);
            }
        }
    }

    private void enqueueAck(long lastOffset, A ack) {
        // The same batch offered again on the same way back (a re-send while its first copy waits for
        // durability: a skip marker on a partition that stays idle is re-sent every ack timeout) needs
        // one acknowledgement, not one per copy: handles equal by the caller's equals are kept once.
        Iterator<PendingAck<A>> fromTail = pendingAcks.descendingIterator();
        while (fromTail.hasNext()) {
            PendingAck<A> pending = fromTail.next();
            if (pending.lastOffset() < lastOffset) {
                break;
            }
            if (pending.lastOffset() == lastOffset && pending.ack().equals(ack)) {
                return;
            }
        }
        // Keep the queue ordered by lastOffset: duplicates may arrive with lower offsets than queued ones.
        if (pendingAcks.isEmpty() || pendingAcks.peekLast().lastOffset() <= lastOffset) {
            pendingAcks.addLast(new PendingAck<>(lastOffset, ack));
            return;
        }
        List<PendingAck<A>> tail = new ArrayList<>();
        while (!pendingAcks.isEmpty() && pendingAcks.peekLast().lastOffset() > lastOffset) {
            tail.add(0, pendingAcks.pollLast());
        }
        pendingAcks.addLast(new PendingAck<>(lastOffset, ack));
        pendingAcks.addAll(tail);
    }

    /**
     * Records that every record up to {@code offset} is durable at the destination, and returns the
     * acknowledgements that became due.
     */
    public List<A> onDurable(long offset) {
        durable = Math.max(durable, offset);
        return dueAcks();
    }

    private List<A> dueAcks() {
        List<A> due = new ArrayList<>();
        Iterator<PendingAck<A>> it = pendingAcks.iterator();
        while (it.hasNext()) {
            PendingAck<A> pending = it.next();
            if (pending.lastOffset() > durable) {
                break;
            }
            due.add(pending.ack());
            it.remove();
        }
        return due;
    }

    /** Drops held batches and pending acknowledgements (task stopping); returns the dropped acks. */
    public List<A> clear() {
        List<A> dropped = new ArrayList<>();
        held.values().forEach(list -> list.forEach(h -> dropped.add(h.ack())));
        pendingAcks.forEach(p -> dropped.add(p.ack()));
        held.clear();
        pendingAcks.clear();
        heldBytes = 0;
        return dropped;
    }

    public long lastWritten() {
        return lastWritten;
    }

    public long durable() {
        return durable;
    }

    public long heldBytes() {
        return heldBytes;
    }

    public int heldBatches() {
        return held.values().stream().mapToInt(List::size).sum();
    }

    public int pendingAcks() {
        return pendingAcks.size();
    }

    /** Records the sender skipped (refused for good, see the class comment) whose markers were applied here. */
    public long skippedRecords() {
        return skippedRecords;
    }

    /** Records received again that were already written (steady-state resends or restarts). */
    public long duplicateRecords() {
        return duplicateRecords;
    }
}
