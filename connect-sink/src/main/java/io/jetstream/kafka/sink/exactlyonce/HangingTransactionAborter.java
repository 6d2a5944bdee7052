package io.jetstream.kafka.sink.exactlyonce;

import io.jetstream.kafka.sink.config.HangingTransactionConfigs;
import io.jetstream.kafka.sink.config.SinkSiteConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.AbortTransactionOptions;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeProducersOptions;
import org.apache.kafka.clients.admin.DescribeProducersResult;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.DescribeTransactionsOptions;
import org.apache.kafka.clients.admin.DescribeTransactionsResult;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.utils.ThreadUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@link HangingTransactions} every {@code exactly.once.hanging.check.interval.ms} on one thread
 * of the destination-site connector (one per connector, not per task: tasks can be stuck in start-up
 * behind a hanging transaction in the offsets topic), exactly-once only. After a round that aborted
 * something it tells the {@link Listener} holding it, which has Connect restart the tasks (a task whose
 * records a hanging transaction held has failed; see {@link io.jetstream.kafka.sink.SinkSiteConnector}). Counts the aborts in
 * the connector metric {@value #ABORTED_METRIC} where the worker offers plugin metrics (KIP-877).
 *
 * <p>Held and unheld: the connector instance that started it holds it. When that instance stops
 * ({@link #release}), the rounds go on without a holder until one finds the destination settled
 * ({@link HangingTransactions#settled()}: every partition answered, nothing of the connector's tasks
 * hanging), or for {@link #UNHELD_LIMIT} at most, and a later instance of the connector in this worker
 * may take it over ({@link #hold}, through {@link HangingTransactionWatches}). Kafka Connect reads the
 * offsets topic {@code read_committed} to its end before it starts a source connector, so a hanging
 * transaction there keeps the next instance from ever starting: only a watch that outlives the
 * stopped one can abort it. Aborts made unheld are kept for the next holder
 * ({@link #takeAbortedUnheld}), which restarts the tasks.
 *
 * <p>Lifecycle: runs from construction; ends by itself when unheld and settled, or by {@link #close()},
 * which stops the thread (waiting for a round in progress, whose Admin calls are bounded) and closes the
 * Admin client; idempotent.
 */
public final class HangingTransactionAborter implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HangingTransactionAborter.class);
    public static final String ABORTED_METRIC = "hanging-transactions-aborted-total";
    /** Beyond exactly.once.stable.timeout.ms, before a transaction seen hanging is aborted. */
    static final Duration OBSERVE_MARGIN = Duration.ofSeconds(10);
    /**
     * How long the rounds go on without a holder while the destination is not settled (down, or a hanging
     * transaction not yet old enough to abort): long enough for a destination broker's restart and the
     * abort rules' timeouts; bounded so that the watch of a deleted connector ends.
     */
    static final Duration UNHELD_LIMIT = Duration.ofMinutes(30);
    /**
     * Unheld, a transaction must be seen hanging this many check intervals longer before it is aborted:
     * if the connector runs on another worker meanwhile, its check, which saw the transaction from about
     * the same time (the broker's return), aborts it first and restarts the tasks there, which this one
     * cannot. A connector kept from starting by a hanging transaction on the offsets topic waits that
     * much longer for it.
     */
    static final int UNHELD_EXTRA_ROUNDS = 2;
    private static final String PLUGIN_METRICS_CLASS = "org.apache.kafka.common.metrics.PluginMetrics";

    /** Told after each round that aborted at least one transaction, while it holds the watch. */
    public interface Listener {
        void aborted(List<HangingTransactions.Aborted> aborted);
    }

    private final HangingTransactions transactions;
    private final AutoCloseable resources;
    private final ScheduledExecutorService executor;
    private final Duration stopTimeout;
    private final LongSupplier nanoClock;
    private final String name;
    /** Unheld, how much longer a transaction must be seen hanging: {@link #UNHELD_EXTRA_ROUNDS} intervals. */
    private final Duration unheldExtraObserve;
    private final AtomicLong abortedTotal = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Object lock = new Object();
    /** The connector instance holding the watch; null while unheld. Guarded by {@link #lock}. */
    private Listener holder;
    /** Guarded by {@link #lock}. */
    private long unheldSinceNanos;
    /** Aborted while unheld, not yet taken by a holder. Guarded by {@link #lock}. */
    private long abortedUnheld;
    /** Run once when the watch ends unheld (its registry forgets it). */
    private volatile Runnable onEnd = () -> { };

    /**
     * Starts the rounds on {@code executor} (one thread, shut down by {@link #close()}), the first
     * one {@code interval} from now, held by {@code listener}.
     *
     * @param resources   closed after the thread stopped (the Admin client behind {@code transactions})
     * @param stopTimeout how long {@link #close()} waits for a round in progress
     * @param nanoClock   the time {@link #UNHELD_LIMIT} goes by
     * @param name        for the log: the connector's name
     */
    public HangingTransactionAborter(HangingTransactions transactions, Duration interval, Listener listener,
                              AutoCloseable resources, ScheduledExecutorService executor, Duration stopTimeout,
                              LongSupplier nanoClock, String name) {
        this.transactions = transactions;
        this.holder = listener;
        this.resources = resources;
        this.executor = executor;
        this.stopTimeout = stopTimeout;
        this.nanoClock = nanoClock;
        this.name = name;
        this.unheldExtraObserve = interval.multipliedBy(UNHELD_EXTRA_ROUNDS);
        executor.scheduleWithFixedDelay(this::round, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The aborter of the connector named {@code connectorName}, with an Admin client of the destination cluster. */
    public static HangingTransactionAborter start(SinkSiteConfig config, String connectorName, Listener listener) {
        Duration callTimeout = config.clusterCallTimeout();
        Admin admin = config.targetCluster().admin(connectorName + "-hanging-transactions");
        HangingTransactions transactions = new HangingTransactions(new AdminCluster(admin, callTimeout),
                connectorName, config.stableTimeout().plus(OBSERVE_MARGIN), System::currentTimeMillis);
        Duration interval = HangingTransactionConfigs.checkInterval(config);
        log.info("Looking for hanging transactions of connector {}'s tasks in {} every {} ms", connectorName,
                config.targetCluster(), interval.toMillis());
        // a round makes 6 bounded calls at most, and one per abort
        return new HangingTransactionAborter(transactions, interval, listener, () -> admin.close(Duration.ZERO),
                Executors.newSingleThreadScheduledExecutor(ThreadUtils.createThreadFactory(
                        "jetstream-hanging-transactions-" + connectorName + "-%d", true)),
                callTimeout.multipliedBy(2), System::nanoTime, connectorName);
    }

    /**
     * Taken over by a new instance of the connector.
     *
     * @return false when the watch has ended (the caller starts another)
     */
    boolean hold(Listener listener) {
        synchronized (lock) {
            if (closed.get()) {
                return false;
            }
            holder = listener;
            return true;
        }
    }

    /**
     * The instance holding the watch stops: the rounds go on unheld until the destination is settled, or
     * for {@link #UNHELD_LIMIT}. A release by an instance that no longer holds it changes nothing.
     */
    public void release(Listener listener) {
        synchronized (lock) {
            if (holder == listener && holder != null) {
                holder = null;
                unheldSinceNanos = nanoClock.getAsLong();
            }
        }
    }

    /** Transactions aborted while unheld, since the last call. */
    public long takeAbortedUnheld() {
        synchronized (lock) {
            long taken = abortedUnheld;
            abortedUnheld = 0;
            return taken;
        }
    }

    /** Whether the watch has ended (closed, or ended unheld). */
    boolean ended() {
        return closed.get();
    }

    /** Run once when the watch ends unheld. */
    void onEnd(Runnable action) {
        this.onEnd = action;
    }

    void round() {
        boolean held;
        synchronized (lock) {
            held = holder != null;
        }
        List<HangingTransactions.Aborted> aborted;
        try {
            aborted = transactions.round(held ? Duration.ZERO : unheldExtraObserve);
        } catch (RuntimeException e) {
            // a failure must not end the rounds (scheduleWithFixedDelay stops after a throw)
            log.warn("A look for hanging transactions failed; trying again next round", e);
            aborted = List.of();
        }
        abortedTotal.addAndGet(aborted.size());
        Listener tell = null;
        String end = null;
        long meanwhile;
        synchronized (lock) {
            if (closed.get()) {
                return;
            }
            if (holder != null) {
                tell = aborted.isEmpty() ? null : holder;
            } else {
                abortedUnheld += aborted.size();
                long unheldMs = (nanoClock.getAsLong() - unheldSinceNanos) / 1_000_000;
                if (transactions.settled()) {
                    end = "the destination settled " + unheldMs + " ms after the connector stopped here";
                } else if (unheldMs >= UNHELD_LIMIT.toMillis()) {
                    end = "the destination not settled " + unheldMs + " ms after the connector stopped here; if it "
                            + "does not start again, look for hanging transactions by hand (docs/operations.md)";
                }
                if (end != null) {
                    closed.set(true);
                }
            }
            meanwhile = abortedUnheld;
        }
        if (tell != null) {
            tell.aborted(aborted);
        }
        if (end != null) {
            log.info("Hanging transaction check of connector {} ended: {} ({} aborted meanwhile)", name, end,
                    meanwhile);
            executor.shutdown(); // from its own thread: no waiting for it
            closeResources();
            onEnd.run();
        }
    }

    /** Hanging transactions aborted since the start. */
    long abortedTotal() {
        return abortedTotal.get();
    }

    /**
     * Registers {@value #ABORTED_METRIC} in the connector's plugin metrics ({@code pluginMetrics}
     * returns them; a lambda, so that a worker without them fails only when it is called); on a
     * worker without plugin metrics (Kafka Connect before 4.1) the count is only logged.
     *
     * @return removes the metric, or does nothing when none was registered
     */
    public Runnable registerMetric(Supplier<Object> pluginMetrics) {
        try {
            Class.forName(PLUGIN_METRICS_CLASS, false, HangingTransactionAborter.class.getClassLoader());
            return ConnectorMetric.register(pluginMetrics.get(), this::abortedTotal);
        } catch (ClassNotFoundException | NoSuchMethodError | NoClassDefFoundError | AbstractMethodError older) {
            log.info("This Kafka Connect worker has no plugin metrics for connectors (KIP-877, Kafka 4.1): aborted "
                    + "hanging transactions are logged at WARN but not counted in {}", ABORTED_METRIC);
        } catch (RuntimeException e) {
            log.warn("Metric {} not registered; aborted hanging transactions are still logged at WARN",
                    ABORTED_METRIC, e);
        }
        return () -> { };
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        long start = System.nanoTime();
        executor.shutdownNow();
        try {
            if (!executor.awaitTermination(stopTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("The hanging transaction check did not stop within {} ms", stopTimeout.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeResources();
        log.debug("Hanging transaction check stopped in {} ms ({} aborted)", (System.nanoTime() - start) / 1_000_000,
                abortedTotal.get());
    }

    private void closeResources() {
        try {
            resources.close();
        } catch (Exception e) {
            log.warn("Closing the hanging transaction check's Admin client failed", e);
        }
    }

    /** The connector's one metric; only loaded where the worker has plugin metrics. */
    private static final class ConnectorMetric {
        static Runnable register(Object pluginMetrics, Supplier<Long> value) {
            PluginMetrics metrics = (PluginMetrics) pluginMetrics;
            MetricName name = metrics.metricName(ABORTED_METRIC, "Exactly-once: hanging transactions of this "
                    + "connector's tasks found in the destination cluster and aborted by the connector.",
                    new LinkedHashMap<>());
            metrics.addMetric(name, (Gauge<Long>) (config, now) -> value.get());
            return () -> metrics.removeMetric(name);
        }
    }

    /** {@link HangingTransactions.Cluster} over an Admin client; every call bounded by {@code cluster.call.timeout.ms}. */
    static final class AdminCluster implements HangingTransactions.Cluster {
        private final Admin admin;
        private final Duration timeout;
        private final int timeoutMs;

        AdminCluster(Admin admin, Duration timeout) {
            this.admin = admin;
            this.timeout = timeout;
            this.timeoutMs = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        }

        @Override
        public List<TopicPartition> partitions() throws Exception {
            Set<String> topics = get(admin.listTopics(new ListTopicsOptions().listInternal(true).timeoutMs(timeoutMs))
                    .names());
            List<TopicPartition> partitions = new ArrayList<>();
            get(admin.describeTopics(topics, new DescribeTopicsOptions().timeoutMs(timeoutMs)).allTopicNames())
                    .forEach((topic, description) -> description.partitions()
                            .forEach(p -> partitions.add(new TopicPartition(topic, p.partition()))));
            return partitions;
        }

        @Override
        public Map<TopicPartition, List<ProducerState>> producers(List<TopicPartition> partitions)
                throws InterruptedException {
            // the Admin client batches the partitions per leader: one request per broker
            DescribeProducersResult result = admin.describeProducers(partitions,
                    new DescribeProducersOptions().timeoutMs(timeoutMs));
            long deadline = System.nanoTime() + timeout.toNanos();
            Map<TopicPartition, List<ProducerState>> out = new HashMap<>();
            for (TopicPartition partition : partitions) {
                try {
                    out.put(partition, result.partitionResult(partition)
                            .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS).activeProducers());
                } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                    log.debug("No producer states of {}: {}", partition, e.toString()); // left out of this round
                }
            }
            return out;
        }

        @Override
        public Map<Long, String> transactionalIds() throws Exception {
            Map<Long, String> ids = new HashMap<>();
            get(admin.listTransactions(new ListTransactionsOptions().timeoutMs(timeoutMs)).all())
                    .forEach(t -> ids.put(t.producerId(), t.transactionalId()));
            return ids;
        }

        @Override
        public Set<String> connectGroups() throws Exception {
            return get(admin.listGroups(new ListGroupsOptions().withProtocolTypes(Set.of("connect"))
                    .timeoutMs(timeoutMs)).all()).stream().map(GroupListing::groupId).collect(Collectors.toSet());
        }

        @Override
        public Map<String, TransactionDescription> describe(Collection<String> transactionalIds)
                throws InterruptedException {
            DescribeTransactionsResult result = admin.describeTransactions(transactionalIds,
                    new DescribeTransactionsOptions().timeoutMs(timeoutMs));
            long deadline = System.nanoTime() + timeout.toNanos();
            Map<String, TransactionDescription> out = new HashMap<>();
            for (String id : transactionalIds) {
                try {
                    out.put(id, result.description(id).get(Math.max(0, deadline - System.nanoTime()),
                            TimeUnit.NANOSECONDS));
                } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                    log.debug("No description of transactional id {}: {}", id, e.toString()); // left out
                }
            }
            return out;
        }

        @Override
        public void abort(AbortTransactionSpec spec) throws Exception {
            get(admin.abortTransaction(spec, new AbortTransactionOptions().timeoutMs(timeoutMs)).all());
        }

        private <T> T get(KafkaFuture<T> future) throws Exception {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
    }
}
