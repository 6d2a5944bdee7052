package io.jetstream.kafka.sink.exactlyonce;

import io.jetstream.kafka.core.model.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeProducersOptions;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * {@link StableCommits.StableOffsets} read from the destination cluster with an Admin client: last
 * stable offsets by {@code ListOffsets} at {@code read_committed}, and whether a held partition's
 * transactions are having their markers written by {@code DescribeProducers} and
 * {@code ListTransactions}. Each call is bounded by {@code cluster.call.timeout.ms}.
 */
final class AdminStableOffsets implements StableCommits.StableOffsets {

    private final Admin admin;
    private final Duration callTimeout;
    private final Clock clock;

    AdminStableOffsets(Admin admin, Duration callTimeout, Clock clock) {
        this.admin = admin;
        this.callTimeout = callTimeout;
        this.clock = clock;
    }

    @Override
    public Map<TopicPartition, Long> lastStableOffsets(List<TopicPartition> destinations) throws Exception {
        return lastStableOffsets(admin, destinations, callTimeout, clock);
    }

    @Override
    public boolean markersPending(TopicPartition destination, long heldOffset) throws Exception {
        return markersPending(admin, destination, heldOffset, callTimeout);
    }

    /**
     * The last stable offsets of {@code destinations}: what read_committed consumers can read up to.
     */
    private static Map<TopicPartition, Long> lastStableOffsets(Admin admin, List<TopicPartition> destinations,
                                                               Duration timeout, Clock clock) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        destinations.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        ListOffsetsResult result = admin.listOffsets(latest,
                new ListOffsetsOptions(IsolationLevel.READ_COMMITTED).timeoutMs((int) timeout.toMillis()));
        // Partition by partition: one that cannot be read (its topic deleted) holds back only its own.
        Map<TopicPartition, Long> out = new HashMap<>();
        Exception failure = null;
        long deadline = clock.nanoTime() + timeout.toNanos();
        for (TopicPartition tp : destinations) {
            try {
                out.put(tp, result.partitionResult(tp).get(Math.max(0, deadline - clock.nanoTime()),
                        TimeUnit.NANOSECONDS).offset());
            } catch (ExecutionException | TimeoutException e) {
                failure = e;
            }
        }
        if (out.isEmpty() && failure != null) {
            throw failure;
        }
        return out;
    }

    /**
     * {@link StableCommits.StableOffsets#markersPending}: the transactions open on {@code destination} that
     * started at or before {@code heldOffset} (only those can hold its records back) are all in
     * PrepareCommit/PrepareAbort; or there is none; or they changed between two readings of the
     * partition's producers around the coordinator's answer (markers written meanwhile, or a producer
     * moved on to a later transaction): then the stable offset read before was stale, not held. A
     * hanging transaction stays open on the partition across both readings and is not being prepared.
     */
    static boolean markersPending(Admin admin, TopicPartition destination, long heldOffset, Duration timeout)
            throws Exception {
        int timeoutMs = (int) timeout.toMillis();
        Map<Long, Long> holding = holdingTransactions(admin, destination, heldOffset, timeoutMs);
        if (holding.isEmpty()) {
            return true;
        }
        int preparing = 0;
        for (TransactionListing listing : admin.listTransactions(new ListTransactionsOptions()
                .filterProducerIds(holding.keySet()).timeoutMs(timeoutMs)).all().get(timeoutMs, TimeUnit.MILLISECONDS)) {
            if (listing.state() == TransactionState.PREPARE_COMMIT || listing.state() == TransactionState.PREPARE_ABORT) {
                preparing++;
            }
        }
        return preparing == holding.size()
                || !holding.equals(holdingTransactions(admin, destination, heldOffset, timeoutMs));
    }

    /** Producer id to start offset of the transactions open on {@code destination} that started at or before {@code heldOffset}. */
    private static Map<Long, Long> holdingTransactions(Admin admin, TopicPartition destination, long heldOffset,
                                                       int timeoutMs) throws Exception {
        Map<Long, Long> holding = new HashMap<>();
        for (ProducerState producer : admin.describeProducers(List.of(destination),
                new DescribeProducersOptions().timeoutMs(timeoutMs)).partitionResult(destination)
                .get(timeoutMs, TimeUnit.MILLISECONDS).activeProducers()) {
            if (producer.currentTransactionStartOffset().isPresent()
                    && producer.currentTransactionStartOffset().getAsLong() <= heldOffset) {
                holding.put(producer.producerId(), producer.currentTransactionStartOffset().getAsLong());
            }
        }
        return holding;
    }
}
