package io.jetstream.kafka.sink;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.TopicPartition;

/**
 * Exactly-once: proves from what Connect reports that the worker does not run this task in
 * transactions, although the connector asks for them ({@code exactly.once.support=required}).
 * Connect refuses that key when the config is submitted to a worker without
 * {@code exactly.once.source.support=enabled}
 * ({@code DistributedHerder.validateSourceConnectorExactlyOnceSupport}), but a stored config is not
 * checked again: each worker runs source tasks in transactions or not after its own setting
 * ({@code DistributedHerder.startTask}), so after exactly-once is disabled on the workers, or on a
 * worker that joins without it or is still {@code preparing} in a rolling upgrade, the task runs
 * at-least-once and is told nothing. A task that believed it would acknowledge batches upstream on
 * the strength of transactions that do not exist, without the at-least-once safeguards (reading
 * its stored progress back first, counting what a crashed predecessor wrote).
 *
 * <p>Two kinds of evidence, each definite:
 * <ul>
 *   <li><b>No commit marker between two polls</b> ({@link #written}, only with
 *   {@code transaction.boundary=poll}): each poll's records are then one transaction; each commit
 *   writes a control marker into every partition the transaction wrote, and a write of the next
 *   transaction before the markers are written is answered {@code CONCURRENT_TRANSACTIONS} and
 *   retried ({@code exactly.once.transaction.gap.ms}). So in a destination partition the first
 *   record of a later poll lands at least 2 offsets after the last record of the poll that wrote it
 *   before, and exactly 1 after it when the producer writes without transactions. Other producers
 *   writing the same partition (not expected) only widen the gap: only the contiguous case counts.
 *   Records of one poll are contiguous either way; records Connect reports as not written (dropped
 *   by a transformation) take no offset and are ignored.</li>
 *   <li><b>{@code commit()} outside the task thread</b> ({@link #committed}): a worker with
 *   exactly-once calls it on the thread that polls, after each transaction
 *   ({@code ExactlyOnceWorkerSourceTask.commitTransaction}, any transaction boundary); a worker
 *   without calls it after each periodic offset flush on its {@code SourceTaskOffsetCommitter}
 *   thread (only a stopping task's final flush runs on the task thread). The first such call comes
 *   within {@code offset.flush.interval.ms} of the start, even without records, and it is the call
 *   that would release acknowledgements ({@link StableCommits#committed}): checked there, nothing
 *   is acknowledged on the strength of transactions that do not exist.</li>
 * </ul>
 *
 * <p>Polls are told apart by a token per poll and origin partition (the task uses the record's
 * source partition map, made afresh for every poll and handed back by Connect's
 * {@code commitRecord}). Connect reports the written records of one destination partition in the
 * order they were written (one producer, in order per partition), so a token that differs from the
 * previous record's belongs to a later poll.
 *
 * <p>The first evidence is kept ({@link #evidence}) and reported once. Threads: producer threads
 * and the task thread; the state is guarded by this object.
 */
final class WorkerTransactionsCheck {

    /** What shows the worker runs without transactions; {@link #message} is the task's failure. */
    record Evidence(String message) {
    }

    /** The last record written to a destination partition: its poll's token and its offset. */
    private static final class Last {
        Object poll;
        long offset;
    }

    private final boolean transactionPerPoll;
    private final Map<TopicPartition, Last> last = new HashMap<>();
    private volatile Evidence evidence;

    /**
     * @param transactionPerPoll whether each poll's records are one transaction (Connect's
     *                           {@code transaction.boundary=poll}); otherwise only {@link #committed} proves anything
     */
    WorkerTransactionsCheck(boolean transactionPerPoll) {
        this.transactionPerPoll = transactionPerPoll;
    }

    /**
     * Connect reports a record of poll {@code poll} written at {@code destination}/{@code offset}, or
     * not written ({@code destination} null or {@code offset} negative).
     *
     * @return the evidence if this record is the first to show the worker writes without
     *         transactions, else null
     */
    synchronized Evidence written(Object poll, TopicPartition destination, long offset) {
        Objects.requireNonNull(poll, "poll");
        if (!transactionPerPoll || destination == null || offset < 0) {
            return null;
        }
        Last before = last.computeIfAbsent(destination, tp -> new Last());
        boolean laterPoll = before.poll != null && before.poll != poll;
        boolean noMarkerBetween = laterPoll && offset == before.offset + 1;
        long previous = before.offset;
        before.poll = poll;
        before.offset = offset;
        if (!noMarkerBetween) {
            return null;
        }
        return found("in " + destination + " the first record of a poll landed at offset " + offset
                + ", right after offset " + previous + " where the previous poll's last record is: no "
                + "commit marker between them, while every transaction commit writes one");
    }

    /**
     * Connect called the task's {@code commit()}, on the task thread or not ({@code thread} names it).
     *
     * @return the evidence if this call is the first to show the worker runs without transactions, else null
     */
    synchronized Evidence committed(boolean onTaskThread, String thread) {
        if (onTaskThread) {
            return null;
        }
        return found("Connect called the task's commit() from thread '" + thread + "' after an offset flush, "
                + "not from the task thread after a transaction commit as a worker with exactly-once does");
    }

    /** The first evidence found, or null while none was. */
    Evidence evidence() {
        return evidence;
    }

    private Evidence found(String what) {
        if (evidence != null) {
            return null;
        }
        evidence = new Evidence("The destination-site connector is configured exactly-once (exactly.once.support="
                + "required), but this Connect worker runs its tasks without transactions: " + what + ". Connect "
                + "runs source tasks in transactions only on workers with exactly.once.source.support=enabled, "
                + "whatever the connector asks (it checks exactly.once.support only when a config is submitted). "
                + "The task stops before it acknowledges anything "
                + "more to the source on the strength of transactions (records written stay; the source keeps "
                + "every batch not acknowledged and sends it again). Either set exactly.once.source.support="
                + "enabled on every worker of this Connect cluster (docs/operations.md), or set "
                + "exactly.once.support=requested on the connector to run it at-least-once.");
        return evidence;
    }
}
