package io.jetstream.kafka.sink.exactlyonce;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

class HangingTransactionsTest {

    private static final String CONNECTOR = "jetstream-sink";
    private static final String GROUP = "connect-b";
    private static final String TASK0 = GROUP + "-" + CONNECTOR + "-0";
    private static final TopicPartition DEST = new TopicPartition("A.demo", 1);
    private static final TopicPartition OFFSETS = new TopicPartition("connect-offsets", 7);
    private static final long TIMEOUT_MS = 60_000;
    private static final Duration OBSERVE_FOR = Duration.ofSeconds(40);

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final FakeCluster cluster = new FakeCluster();
    private final HangingTransactions transactions = new HangingTransactions(cluster, CONNECTOR, OBSERVE_FOR, now::get);

    @Test
    void aHangingTransactionOfOurTaskIsAbortedWithItsProducerEpochAndCoordinatorEpochOnceSeenLongEnough() {
        cluster.open(DEST, producer(4001, 3, 120, now.get() - 5 * 60_000, 9));
        cluster.transactionalId(4001, TASK0, coordinator(TransactionState.EMPTY, 4001, 5));

        assertThat(transactions.round()).as("first seen: watched, not yet aborted").isEmpty();
        assertThat(transactions.watched()).isEqualTo(1);
        now.addAndGet(OBSERVE_FOR.toMillis() - 1);
        assertThat(transactions.round()).isEmpty();
        now.addAndGet(1);

        List<HangingTransactions.Aborted> aborted = transactions.round();

        assertThat(cluster.aborts).containsExactly(new AbortTransactionSpec(DEST, 4001, (short) 3, 9));
        assertThat(aborted).singleElement().satisfies(a -> {
            assertThat(a.partition()).isEqualTo(DEST);
            assertThat(a.transactionalId()).isEqualTo(TASK0);
            assertThat(a.startOffset()).isEqualTo(120);
            assertThat(a.toString()).contains("A.demo-1", TASK0, "producer 4001", "epoch 3", "offset 120",
                    "Empty at epoch 5");
        });
        assertThat(transactions.watched()).isZero();
    }

    @Test
    void connectsOffsetsTopicIsScannedLikeAnyPartitionAndACoordinatorWithoutAnEpochGivesZero() {
        cluster.open(OFFSETS, new ProducerState(4001, 3, 10, now.get() - 5 * 60_000, OptionalInt.empty(),
                OptionalLong.of(77)));
        cluster.transactionalId(4001, TASK0, coordinator(TransactionState.COMPLETE_COMMIT, 4001, 4));

        transactions.round();
        now.addAndGet(OBSERVE_FOR.toMillis());
        transactions.round();

        assertThat(cluster.aborts).containsExactly(new AbortTransactionSpec(OFFSETS, 4001, (short) 3, 0));
    }

    @Test
    void theCoordinatorsOngoingTransactionAtThatEpochOnThatPartitionIsLeftAlone() {
        cluster.open(DEST, producer(4001, 3, 120, now.get() - 5 * 60_000, 9));
        cluster.transactionalId(4001, TASK0, new TransactionDescription(1, TransactionState.ONGOING, 4001, 3,
                TIMEOUT_MS, OptionalLong.of(now.get() - 5 * 60_000), Set.of(DEST)));

        transactions.round();
        now.addAndGet(10 * OBSERVE_FOR.toMillis());
        assertThat(transactions.round()).isEmpty();

        assertThat(cluster.aborts).isEmpty();
        assertThat(transactions.watched()).isZero();
    }

    @Test
    void anOngoingTransactionOfTheSameEpochElsewhereDoesNotCoverThisPartition() {
        cluster.open(DEST, producer(4001, 3, 120, now.get() - 5 * 60_000, 9));
        cluster.transactionalId(4001, TASK0, new TransactionDescription(1, TransactionState.ONGOING, 4001, 3,
                TIMEOUT_MS, OptionalLong.of(now.get()), Set.of(new TopicPartition("A.demo", 0))));

        transactions.round();
        now.addAndGet(OBSERVE_FOR.toMillis());

        assertThat(transactions.round()).hasSize(1);
    }

    @Test
    void aYoungOpenTransactionIsLeftAloneHoweverLongItIsWatched() {
        // transactions v2: a live transaction's epoch moves on at each end, so it can look "not the
        // coordinator's" for a moment; its last write is recent
        cluster.open(DEST, producer(4001, 3, 120, now.get() - 1_000, 9));
        cluster.transactionalId(4001, TASK0, coordinator(TransactionState.EMPTY, 4001, 4));

        transactions.round();
        now.addAndGet(OBSERVE_FOR.toMillis());
        cluster.open(DEST, producer(4001, 3, 120, now.get() - TIMEOUT_MS, 9)); // last write: exactly the timeout + 0

        assertThat(transactions.round()).isEmpty();
        assertThat(cluster.aborts).isEmpty();
    }

    @Test
    void anOldTransactionSeenHangingOnlyOnceIsNotAbortedUntilItHasBeenWatchedLongEnough() {
        cluster.open(DEST, producer(4001, 3, 120, now.get() - 10 * 60_000, 9));
        cluster.transactionalId(4001, TASK0, coordinator(TransactionState.EMPTY, 4001, 4));

        assertThat(transactions.round()).isEmpty();

        assertThat(cluster.aborts).as("a task holding its records may not have failed yet").isEmpty();
    }

    @Test
    void otherProducersTransactionsAreNeverTouched() {
        long old = now.get() - 10 * 60_000;
        TopicPartition p = new TopicPartition("orders", 0);
        // another connector of the same Connect cluster, one whose name ends like ours, one of a
        // "group" that is no Connect group, a plain transactional application, and a producer no
        // coordinator attributes
        cluster.open(p, producer(1, 0, 10, old, 1), producer(2, 0, 20, old, 1), producer(3, 0, 30, old, 1),
                producer(4, 0, 40, old, 1), producer(5, 0, 50, old, 1));
        cluster.transactionalId(1, GROUP + "-other-0", coordinator(TransactionState.EMPTY, 1, 1));
        cluster.transactionalId(2, GROUP + "-x-" + CONNECTOR + "-0", coordinator(TransactionState.EMPTY, 2, 1));
        cluster.transactionalId(3, "not-connect-" + CONNECTOR + "-0", coordinator(TransactionState.EMPTY, 3, 1));
        cluster.transactionalId(4, "orders-app", coordinator(TransactionState.EMPTY, 4, 1));

        transactions.round();
        now.addAndGet(10 * OBSERVE_FOR.toMillis());
        transactions.round();

        assertThat(cluster.aborts).isEmpty();
        assertThat(cluster.described).as("only our transactional ids are described").isEmpty();
    }

    @Test
    void everyTaskOfTheConnectorIsOursAndAConnectorNameIsMatchedLiterally() {
        HangingTransactions dotted = new HangingTransactions(cluster, "sink.a+b", OBSERVE_FOR, now::get);
        Set<String> groups = Set.of(GROUP);

        assertThat(dotted.ownedByThisConnector(GROUP + "-sink.a+b-0", groups)).isTrue();
        assertThat(dotted.ownedByThisConnector(GROUP + "-sink.a+b-12", groups)).isTrue();
        assertThat(dotted.ownedByThisConnector(GROUP + "-sinkXaab-0", groups)).isFalse();
        assertThat(dotted.ownedByThisConnector(GROUP + "-sink.a+b-", groups)).isFalse();
        assertThat(dotted.ownedByThisConnector(GROUP + "-sink.a+b", groups)).isFalse();
        assertThat(dotted.ownedByThisConnector("connect-cluster-" + GROUP, groups)).as("the worker's own producer")
                .isFalse();
    }

    @Test
    void aFailedLookIsRetriedNextRoundAndTheWatchStartsAgain() {
        cluster.open(DEST, producer(4001, 3, 120, now.get() - 10 * 60_000, 9));
        cluster.transactionalId(4001, TASK0, coordinator(TransactionState.EMPTY, 4001, 4));
        transactions.round();
        now.addAndGet(OBSERVE_FOR.toMillis());
        cluster.failLooks = true;

        assertThat(transactions.round()).isEmpty();
        assertThat(transactions.watched()).as("seen without a break no more").isZero();

        cluster.failLooks = false;
        assertThat(transactions.round()).isEmpty();
        now.addAndGet(OBSERVE_FOR.toMillis());
        assertThat(transactions.round()).hasSize(1);
    }

    @Test
    void aLookInterruptedByTheStopEndsTheRoundWithTheInterruptKept() {
        cluster.open(DEST, producer(4001, 3, 120, now.get() - 10 * 60_000, 9));
        cluster.transactionalId(4001, TASK0, coordinator(TransactionState.EMPTY, 4001, 4));
        cluster.interruptLooks = true;
        try {
            assertThat(transactions.round()).isEmpty();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(cluster.aborts).isEmpty();
    }

    @Test
    void aPartitionThatDidNotAnswerBreaksItsWatch() {
        cluster.open(DEST, producer(4001, 3, 120, now.get() - 10 * 60_000, 9));
        cluster.transactionalId(4001, TASK0, coordinator(TransactionState.EMPTY, 4001, 4));
        transactions.round();
        cluster.silent.add(DEST);
        now.addAndGet(OBSERVE_FOR.toMillis() / 2);
        transactions.round();
        cluster.silent.clear();
        now.addAndGet(OBSERVE_FOR.toMillis() / 2);

        assertThat(transactions.round()).as("seen again only now").isEmpty();
        now.addAndGet(OBSERVE_FOR.toMillis());
        assertThat(transactions.round()).hasSize(1);
    }

    @Test
    void aFailedAbortIsLoggedAndTriedAgainNextRound() {
        cluster.open(DEST, producer(4001, 3, 120, now.get() - 10 * 60_000, 9));
        cluster.transactionalId(4001, TASK0, coordinator(TransactionState.EMPTY, 4001, 4));
        transactions.round();
        now.addAndGet(OBSERVE_FOR.toMillis());
        cluster.abortFailures = 1;

        assertThat(transactions.round()).isEmpty();
        assertThat(transactions.round()).hasSize(1);

        assertThat(cluster.aborts).hasSize(1);
    }

    @Test
    void aTransactionThatEndsByItselfIsForgotten() {
        cluster.open(DEST, producer(4001, 3, 120, now.get() - 10 * 60_000, 9));
        cluster.transactionalId(4001, TASK0, coordinator(TransactionState.EMPTY, 4001, 4));
        transactions.round();
        cluster.producers.clear();

        assertThat(transactions.round()).isEmpty();
        assertThat(transactions.watched()).isZero();
        assertThat(cluster.idsListed).as("nothing open: no more calls").isEqualTo(1);
    }

    private static ProducerState producer(long id, int epoch, long startOffset, long lastTimestamp, int coordinatorEpoch) {
        return new ProducerState(id, epoch, 5, lastTimestamp, OptionalInt.of(coordinatorEpoch),
                OptionalLong.of(startOffset));
    }

    private TransactionDescription coordinator(TransactionState state, long producerId, int epoch) {
        return new TransactionDescription(1, state, producerId, epoch, TIMEOUT_MS, OptionalLong.empty(), Set.of());
    }

    /** The destination cluster as the rounds see it, set up by each test. */
    private static final class FakeCluster implements HangingTransactions.Cluster {
        final Map<TopicPartition, List<ProducerState>> producers = new HashMap<>();
        final Map<Long, String> ids = new HashMap<>();
        final Map<String, TransactionDescription> descriptions = new HashMap<>();
        final List<TopicPartition> silent = new ArrayList<>();
        final List<AbortTransactionSpec> aborts = new ArrayList<>();
        final List<String> described = new ArrayList<>();
        boolean failLooks;
        boolean interruptLooks;
        int abortFailures;
        int idsListed;

        void open(TopicPartition partition, ProducerState... states) {
            // a producer without an open transaction is listed too: ignored
            List<ProducerState> all = new ArrayList<>(List.of(states));
            all.add(new ProducerState(99, 0, 1, 0, OptionalInt.empty(), OptionalLong.empty()));
            producers.put(partition, all);
        }

        void transactionalId(long producerId, String id, TransactionDescription description) {
            ids.put(producerId, id);
            descriptions.put(id, description);
        }

        @Override
        public List<TopicPartition> partitions() throws InterruptedException {
            if (interruptLooks) {
                throw new InterruptedException();
            }
            if (failLooks) {
                throw new TimeoutException("Timed out waiting for a node assignment. Call: listTopics");
            }
            List<TopicPartition> all = new ArrayList<>(producers.keySet());
            all.add(new TopicPartition("quiet", 0));
            return all;
        }

        @Override
        public Map<TopicPartition, List<ProducerState>> producers(List<TopicPartition> partitions) {
            Map<TopicPartition, List<ProducerState>> out = new HashMap<>();
            for (TopicPartition partition : partitions) {
                if (!silent.contains(partition)) {
                    out.put(partition, producers.getOrDefault(partition, List.of()));
                }
            }
            return out;
        }

        @Override
        public Map<Long, String> transactionalIds() {
            idsListed++;
            return Map.copyOf(ids);
        }

        @Override
        public Set<String> connectGroups() {
            return Set.of(GROUP);
        }

        @Override
        public Map<String, TransactionDescription> describe(Collection<String> transactionalIds) {
            described.addAll(transactionalIds.stream().filter(id -> !id.equals(TASK0)).toList());
            Map<String, TransactionDescription> out = new HashMap<>();
            transactionalIds.forEach(id -> out.put(id, descriptions.get(id)));
            return out;
        }

        @Override
        public void abort(AbortTransactionSpec spec) {
            if (abortFailures > 0) {
                abortFailures--;
                throw new TimeoutException("Timed out waiting for a node assignment. Call: abortTransaction");
            }
            aborts.add(spec);
        }
    }
}
