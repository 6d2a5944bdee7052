package io.jetstream.kafka.sink.exactlyonce;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.Test;

class HangingTransactionAborterTest {

    private static final TopicPartition DEST = new TopicPartition("A.demo", 0);
    private static final String TASK0 = "connect-b-jetstream-sink-0";

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final List<List<HangingTransactions.Aborted>> told = new ArrayList<>();
    private final AtomicInteger closedResources = new AtomicInteger();
    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();

    /** A cluster with one hanging transaction of task 0, open for 10 minutes. */
    private final HangingTransactions.Cluster cluster = new HangingTransactions.Cluster() {
        @Override
        public List<TopicPartition> partitions() {
            return List.of(DEST);
        }

        @Override
        public Map<TopicPartition, List<ProducerState>> producers(List<TopicPartition> partitions) {
            return Map.of(DEST, List.of(new ProducerState(7, 2, 4, now.get() - 600_000, OptionalInt.of(1),
                    OptionalLong.of(50))));
        }

        @Override
        public Map<Long, String> transactionalIds() {
            return Map.of(7L, TASK0);
        }

        @Override
        public Set<String> connectGroups() {
            return Set.of("connect-b");
        }

        @Override
        public Map<String, TransactionDescription> describe(Collection<String> transactionalIds) {
            return Map.of(TASK0, new TransactionDescription(0, TransactionState.EMPTY, 7, 3, 60_000,
                    OptionalLong.empty(), Set.of()));
        }

        @Override
        public void abort(AbortTransactionSpec spec) {
        }
    };

    private final AtomicLong nanos = new AtomicLong();
    /** Whether the cluster answers, and whether task 0's transaction is still open. */
    private final AtomicBoolean clusterUp = new AtomicBoolean(true);
    private final AtomicBoolean open = new AtomicBoolean(true);
    private final HangingTransactionAborter.Listener holder = told::add;

    /** The cluster above, down or without the open transaction on demand. */
    private final HangingTransactions.Cluster switchable = new HangingTransactions.Cluster() {
        @Override
        public List<TopicPartition> partitions() throws Exception {
            if (!clusterUp.get()) {
                throw new org.apache.kafka.common.errors.TimeoutException("no broker");
            }
            return cluster.partitions();
        }

        @Override
        public Map<TopicPartition, List<ProducerState>> producers(List<TopicPartition> partitions) throws Exception {
            return open.get() ? cluster.producers(partitions) : Map.of(DEST, List.of());
        }

        @Override
        public Map<Long, String> transactionalIds() throws Exception {
            return cluster.transactionalIds();
        }

        @Override
        public Set<String> connectGroups() throws Exception {
            return cluster.connectGroups();
        }

        @Override
        public Map<String, TransactionDescription> describe(Collection<String> ids) throws Exception {
            return cluster.describe(ids);
        }

        @Override
        public void abort(AbortTransactionSpec spec) {
            open.set(false);
        }
    };

    private HangingTransactionAborter aborter() {
        return aborter(cluster);
    }

    private HangingTransactionAborter aborter(HangingTransactions.Cluster on) {
        return new HangingTransactionAborter(
                new HangingTransactions(on, "jetstream-sink", Duration.ZERO, now::get), Duration.ofHours(1),
                holder, closedResources::incrementAndGet, executor, Duration.ofSeconds(10), nanos::get,
                "jetstream-sink");
    }

    @Test
    void aRoundThatAbortedTellsTheListenerAndCounts() {
        try (HangingTransactionAborter aborter = aborter()) {
            aborter.round();

            assertThat(told).singleElement().satisfies(round -> assertThat(round).hasSize(1));
            assertThat(aborter.abortedTotal()).isEqualTo(1);
        }
    }

    @Test
    void theCountIsTheConnectorsMetricUntilRemoved() throws Exception {
        try (Metrics registry = new Metrics(); HangingTransactionAborter aborter = aborter()) {
            PluginMetricsImpl pluginMetrics = new PluginMetricsImpl(registry, Map.of("connector", "jetstream-sink"));
            Runnable remove = aborter.registerMetric(() -> pluginMetrics);
            aborter.round();
            MetricName name = registry.metrics().keySet().stream()
                    .filter(n -> n.name().equals(HangingTransactionAborter.ABORTED_METRIC)).findFirst().orElseThrow();
            assertThat(registry.metric(name).metricValue()).isEqualTo(1L);

            remove.run();
            assertThat(registry.metrics()).doesNotContainKey(name);
        }
    }

    @Test
    void closeStopsTheThreadAndClosesTheAdminClientOnce() {
        HangingTransactionAborter aborter = aborter();

        aborter.close();
        aborter.close();

        assertThat(executor.isTerminated()).isTrue();
        assertThat(closedResources.get()).isEqualTo(1);
    }

    @Test
    void releasedItGoesOnAloneAbortsForTheNextHolderAndEndsOnceTheDestinationIsSettled() {
        HangingTransactionAborter aborter = aborter(switchable);
        AtomicInteger ended = new AtomicInteger();
        aborter.onEnd(ended::incrementAndGet);
        aborter.release(holder);

        clusterUp.set(false); // the destination broker is down
        aborter.round();
        assertThat(aborter.ended()).as("not settled while the cluster does not answer").isFalse();

        clusterUp.set(true); // back, with task 0's transaction hanging
        aborter.round();
        assertThat(aborter.abortedTotal()).as("unheld, it waits two intervals longer than a held check")
                .isZero();
        now.addAndGet(Duration.ofHours(2).toMillis()); // the interval is an hour here
        aborter.round(); // aborted without a holder
        assertThat(aborter.abortedTotal()).isEqualTo(1);
        assertThat(told).isEmpty();
        assertThat(aborter.ended()).as("a round that aborted has not yet seen the destination settled").isFalse();

        aborter.round(); // nothing of ours hanging any more
        assertThat(aborter.ended()).isTrue();
        assertThat(ended.get()).isEqualTo(1);
        assertThat(closedResources.get()).isEqualTo(1);
        assertThat(executor.isShutdown()).isTrue();
        assertThat(aborter.takeAbortedUnheld()).as("kept for the next instance").isEqualTo(1);
        assertThat(aborter.hold(holder)).as("an ended check cannot be held again").isFalse();
    }

    @Test
    void unheldItEndsAfterTheLimitEvenIfTheDestinationNeverAnswers() {
        HangingTransactionAborter aborter = aborter(switchable);
        aborter.release(holder);
        clusterUp.set(false);

        nanos.addAndGet(HangingTransactionAborter.UNHELD_LIMIT.toNanos() - 1);
        aborter.round();
        assertThat(aborter.ended()).isFalse();
        nanos.addAndGet(1_000_000);
        aborter.round();
        assertThat(aborter.ended()).isTrue();
    }

    @Test
    void aNewHolderIsToldAndALateReleaseOfTheOldOneChangesNothing() {
        HangingTransactionAborter aborter = aborter(switchable);
        List<List<HangingTransactions.Aborted>> toldNew = new ArrayList<>();
        HangingTransactionAborter.Listener newHolder = toldNew::add;
        aborter.release(holder);
        assertThat(aborter.hold(newHolder)).isTrue();
        aborter.release(holder); // the old instance's stop, late

        aborter.round();
        aborter.round();

        assertThat(toldNew).singleElement().satisfies(round -> assertThat(round).hasSize(1));
        assertThat(told).isEmpty();
        assertThat(aborter.ended()).as("held: the rounds go on").isFalse();
        aborter.close();
    }
}
