package io.jetstream.kafka.sink.exactlyonce;

import io.jetstream.kafka.connect.common.config.ClusterClients;
import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.sink.config.SinkSiteTaskConfig;
import io.jetstream.kafka.sink.metrics.SinkSiteMetrics;
import io.jetstream.kafka.sink.progress.SourceOffsets;
import io.jetstream.kafka.sink.receiver.DeliveryGuarantee;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;

/**
 * Exactly-once delivery ({@code exactly.once.support=required}): Connect writes each poll's records
 * and their progress in one transaction. A batch is acknowledged once its records are readable by
 * {@code read_committed} consumers ({@link StableCommits}), not when Connect reports the commit.
 * Whether the worker really runs the task in transactions Connect does not say;
 * {@link WorkerTransactionsCheck} proves it does not from what Connect reports, and the task then
 * fails before acknowledging more. Transactions are paced {@code exactly.once.transaction.gap.ms}
 * apart ({@link #awaitTransactionGap}).
 *
 * <p>Threads: the task thread polls, and on a worker with exactly-once commits and reports records;
 * stability is checked on a thread of its own, which acknowledges.
 */
public final class ExactlyOnceDelivery implements DeliveryGuarantee {

    /**
     * Checks of the stable offsets are at least this far apart. An acknowledgement waits up to this
     * long more; the source's window (max.in.flight.bytes) dwarfs what that holds, and each check costs
     * a ListOffsets call at the destination broker (0.05 cores of connect-B at 50 checks a second,
     * measured).
     */
    static final Duration STABLE_RECHECK = Duration.ofMillis(100);

    /** The task's log: what proves the worker runs without transactions is reported there. */
    private final Logger taskLog;
    /** The time transaction gaps, stability checks and call deadlines go by. */
    private final Clock clock;
    /** Proves the worker writes without transactions. */
    private final WorkerTransactionsCheck transactionsCheck = new WorkerTransactionsCheck();
    /** {@code exactly.once.transaction.gap.ms}, read once at start, not per poll. */
    private final long transactionGapNanos;
    /** When Connect last reported a transaction committed ({@link #committed()}). */
    private volatile long lastCommitNanos;
    /** The thread Connect polls the task on (null before the first poll): with exactly-once it commits there too. */
    private volatile Thread pollThread;
    private final Admin stableOffsetsAdmin;
    /** Holds acknowledgements until the records are readable. */
    private final StableCommits stableCommits;

    private ExactlyOnceDelivery(SinkSiteTaskConfig config, ClusterClients targetCluster, String nodeId,
                                ReplicationReceiver receiver, Clock clock, long startNanos, Logger taskLog) {
        this.taskLog = taskLog;
        this.clock = clock;
        this.lastCommitNanos = startNanos;
        this.transactionGapNanos = config.transactionGap().toNanos();
        this.stableOffsetsAdmin = targetCluster.admin(nodeId + "-stable");
        this.stableCommits = new StableCommits(new AdminStableOffsets(stableOffsetsAdmin, config.clusterCallTimeout(),
                clock),
                (origin, offset, topicId) -> {
                    // nothing is acknowledged once the worker is known to write without transactions
                    if (transactionsCheck.evidence() == null) {
                        receiver.onDurable(origin.topic(), origin.partition(), offset, topicId);
                    }
                },
                STABLE_RECHECK, config.stableTimeout(), clock::nanoTime, Executors.newSingleThreadScheduledExecutor(
                        new DefaultThreadFactory("jetstream-stable-" + nodeId, true)));
    }

    /**
     * Starts the stability checks of a task; {@code startNanos} is when the task was made, the first
     * transaction gap's start; {@code taskLog} is the task's log, where an operator looks for why it failed.
     */
    public static ExactlyOnceDelivery start(SinkSiteTaskConfig config, ClusterClients targetCluster, String nodeId,
                                            ReplicationReceiver receiver, SinkSiteMetrics metrics, Clock clock,
                                            long startNanos, Logger taskLog) {
        ExactlyOnceDelivery delivery = new ExactlyOnceDelivery(config, targetCluster, nodeId, receiver, clock,
                startNanos, taskLog);
        metrics.stableCommitsGauges(delivery.stableCommits::waiting);
        return delivery;
    }

    @Override
    public boolean exactlyOnce() {
        return true;
    }

    @Override
    public void beforePoll() {
        pollThread = Thread.currentThread();
        WorkerTransactionsCheck.Evidence withoutTransactions = transactionsCheck.evidence();
        if (withoutTransactions != null) {
            throw new ConnectException(withoutTransactions.message());
        }
        RuntimeException unstable = stableCommits.failure();
        if (unstable != null) {
            throw new ConnectException(unstable.getMessage());
        }
    }

    /**
     * Exactly-once: lets {@code exactly.once.transaction.gap.ms} pass since the last commit before the
     * next transaction's records go to Connect, so that their writes find the commit markers written.
     */
    @Override
    public void awaitTransactionGap() throws InterruptedException {
        if (transactionGapNanos == 0) {
            return;
        }
        long since = clock.nanoTime() - lastCommitNanos;
        if (since < transactionGapNanos) {
            TimeUnit.NANOSECONDS.sleep(transactionGapNanos - since);
        }
    }

    /** No destination offset is stored: the transactions make the records' progress exact. */
    @Override
    public long predictedDestinationOffset(TopicPartition origin) {
        return SourceOffsets.UNKNOWN_DESTINATION_OFFSET;
    }

    @Override
    public void written(TopicPartition origin, long originOffset, Object topicId, RecordMetadata metadata) {
        boolean written = metadata != null && metadata.hasOffset();
        TopicPartition destination = written ? new TopicPartition(metadata.topic(), metadata.partition()) : null;
        long destinationOffset = written ? metadata.offset() : -1L;
        stableCommits.written(origin, originOffset, topicId, destination, destinationOffset);
    }

    /**
     * A transaction committed (Connect calls this after each, on the task thread); its records are
     * acknowledged once stable. Called from another thread, it follows an offset flush of a worker
     * without transactions: nothing is acknowledged and the task fails ({@link WorkerTransactionsCheck}).
     */
    @Override
    public boolean committed() {
        Thread caller = Thread.currentThread();
        Thread polling = pollThread;
        WorkerTransactionsCheck.Evidence found = polling == null ? null // never polled: nothing written
                : transactionsCheck.committed(caller == polling, caller.getName());
        if (found != null) {
            taskLog.error(found.message());
        }
        if (transactionsCheck.evidence() != null) {
            return false; // acknowledges nothing: poll() fails the task
        }
        lastCommitNanos = clock.nanoTime();
        stableCommits.committed();
        return true;
    }

    @Override
    public void destinationTopicRecreated(String topic) {
        stableCommits.destinationReplaced(topic);
    }

    @Override
    public LongSupplier commitsAwaitingStability() {
        return stableCommits::waiting;
    }

    @Override
    public void close() {
        stableCommits.close();
        stableOffsetsAdmin.close(Duration.ZERO);
    }
}
