package io.jetstream.kafka.sink.exactlyonce;

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
 * <p>The evidence: Connect calls {@code commit()} outside the task thread. A worker with
 * exactly-once calls it on the thread that polls, after each transaction
 * ({@code ExactlyOnceWorkerSourceTask.commitTransaction}, any transaction boundary); a worker
 * without calls it after each periodic offset flush on its {@code SourceTaskOffsetCommitter} thread
 * (only a stopping task's final flush runs on the task thread). The first such call comes within
 * {@code offset.flush.interval.ms} of the start, even without records, and it is the call that
 * would release acknowledgements ({@link StableCommits#committed}): checked there, nothing is
 * acknowledged on the strength of transactions that do not exist. (An earlier second proof, per
 * written record, looked for a later poll's first record right after the previous poll's last with
 * no commit marker between them; it cost work per record and could only fail the task sooner than
 * this one, which already keeps every wrong acknowledgement from going out.)
 *
 * <p>The first evidence is kept ({@link #evidence}) and reported once. Threads: Connect's offset
 * committer thread and the task thread.
 */
final class WorkerTransactionsCheck {

    /** What shows the worker runs without transactions; {@link #message} is the task's failure. */
    record Evidence(String message) {
    }

    private volatile Evidence evidence;

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
