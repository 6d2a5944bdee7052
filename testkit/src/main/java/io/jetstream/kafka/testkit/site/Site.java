package io.jetstream.kafka.testkit.site;


import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One datacenter: a single-node KRaft Kafka cluster and a Kafka Connect distributed worker with its
 * REST API, on free loopback ports, each in its own child JVM (see {@link JavaProcess} for why).
 * A site may run several workers of one Connect cluster ({@link Builder#workers}, {@link #addWorker}):
 * same group id and internal topics, as a Connect cluster users scale out.
 *
 * <p>Lifecycle: {@link #start()} starts the broker, then the worker, and returns when both answer;
 * {@link #close()} stops both (worker first, so its tasks can commit), and is idempotent. Each part
 * can be stopped, killed and restarted on its own for failure tests.
 */
public final class Site implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Site.class);

    private final String name;
    private final Path workDir;
    private final KafkaBroker broker;
    private final ConnectWorker worker;
    /** Every worker of the site's Connect cluster, the first one ({@link #worker}) included. */
    private final List<ConnectWorker> workers = new CopyOnWriteArrayList<>();
    private final Builder settings;
    private final List<Path> pluginPath;
    private final Map<String, String> workerProperties;
    private boolean closed;

    private Site(Builder b) throws IOException {
        this.name = b.name;
        this.workDir = b.workDir;
        Files.createDirectories(workDir);
        this.broker = new KafkaBroker(name, workDir.resolve("broker"), b.brokerOverrides, b.brokerHeap, b.wanAdvertiser,
                b.saslSsl);
        List<Path> pluginPath = new ArrayList<>(b.pluginPath);
        if (pluginPath.isEmpty()) {
            Path empty = workDir.resolve("plugins");
            Files.createDirectories(empty);
            pluginPath.add(empty);
        }
        Map<String, String> workerProperties = new HashMap<>();
        if (b.saslSsl != null) {
            // The worker's own clients (group membership, internal topics) and those it builds for
            // tasks: producers, consumers, admin clients.
            Map<String, String> client = b.saslSsl.clientProperties(b.workerUser);
            for (String prefix : List.of("", "producer.", "consumer.", "admin.")) {
                client.forEach((k, v) -> workerProperties.put(prefix + k, v));
            }
        }
        workerProperties.putAll(b.workerOverrides);
        this.settings = b;
        this.pluginPath = List.copyOf(pluginPath);
        this.workerProperties = Map.copyOf(workerProperties);
        this.worker = b.withWorker
                ? new ConnectWorker(name, workDir.resolve("connect"), workerBootstrapServers(), pluginPath,
                        workerProperties, b.workerHeap, b.connectRuntime)
                : null;
        if (worker != null) {
            workers.add(worker);
            for (int i = 2; i <= b.workers; i++) {
                workers.add(newWorker(i));
            }
        }
    }

    /**
     * Worker number {@code n} (2 and up) of the site's Connect cluster: the first worker's group and
     * internal topics, its own REST port and folder ({@code connect-<n>}).
     */
    private ConnectWorker newWorker(int n) throws IOException {
        Map<String, String> properties = new HashMap<>(workerProperties);
        properties.put("group.id", name + "-connect");
        properties.put("config.storage.topic", "_" + name + "-connect-configs");
        properties.put("offset.storage.topic", "_" + name + "-connect-offsets");
        properties.put("status.storage.topic", "_" + name + "-connect-status");
        return new ConnectWorker(name + n, workDir.resolve("connect-" + n), workerBootstrapServers(), pluginPath,
                properties, settings.workerHeap, settings.connectRuntime);
    }

    /**
     * Starts one more worker in the site's Connect cluster and waits until it answers and has joined
     * the group (Connect then rebalances connectors and tasks over the workers).
     */
    public ConnectWorker addWorker() throws IOException, TimeoutException, InterruptedException {
        requireWorker();
        ConnectWorker added;
        synchronized (this) {
            added = newWorker(workers.size() + 1);
            workers.add(added);
        }
        added.start();
        return added;
    }

    /** Every worker of the site's Connect cluster, running or stopped, in the order they were made. */
    public List<ConnectWorker> workers() {
        return List.copyOf(workers);
    }

    public static Builder builder(String name, Path workDir) {
        return new Builder(name, workDir);
    }

    /** Starts the broker, then the Connect worker. */
    public Site start() throws IOException, TimeoutException, InterruptedException {
        startBroker();
        onEveryWorker(workers, ConnectWorker::start);
        return this;
    }

    public void startBroker() throws IOException, TimeoutException, InterruptedException {
        broker.start();
    }

    public String name() {
        return name;
    }

    public Path workDir() {
        return workDir;
    }

    public KafkaBroker broker() {
        return broker;
    }

    /** The Connect worker; absent for a Kafka-only site. */
    public Optional<ConnectWorker> worker() {
        return Optional.ofNullable(worker);
    }

    public ConnectWorker requireWorker() {
        if (worker == null) {
            throw new IllegalStateException("Site " + name + " runs no Connect worker");
        }
        return worker;
    }

    /** Shorthand for the REST client of the first running worker (any worker of the cluster answers). */
    public ConnectRestClient connect() {
        return workers.stream().filter(ConnectWorker::isRunning).findFirst().orElse(requireWorker()).rest();
    }

    /** The PLAINTEXT listener: the tests' own producers, verifiers and admin calls. */
    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    /**
     * The listener the site's Connect worker uses, and connectors deployed on it should use: the
     * SASL_SSL listener when the site has one ({@link Builder#saslSsl}), else {@link #bootstrapServers()}.
     */
    public String workerBootstrapServers() {
        String secure = broker.secureBootstrapServers();
        return secure == null ? broker.bootstrapServers() : secure;
    }

    public Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()));
    }

    /**
     * Creates a topic (replication factor 1), ignoring one that already exists, and waits until
     * every partition has a leader (producing into a topic whose metadata is still propagating
     * makes idempotent producers retry out of sequence).
     */
    public void createTopic(String topic, int partitions, Map<String, String> configs)
            throws InterruptedException, ExecutionException {
        try (Admin admin = admin()) {
            try {
                admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs))).all().get();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
            awaitLeaders(admin, topic, partitions);
        }
    }

    private static void awaitLeaders(Admin admin, String topic, int partitions) throws InterruptedException {
        await("leaders of all partitions of " + topic).atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(() -> {
                        var description = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
                        boolean leadersKnown = description.partitions().size() >= partitions
                                && description.partitions().stream().allMatch(p -> p.leader() != null
                                && !p.leader().isEmpty());
                        if (!leadersKnown) {
                            return false;
                        }
                        // The leader itself must serve the partition (its own view can lag the controller's):
                        // ListOffsets is answered by the leader only.
                        latestOffsets(admin, description);
                        return true;
                    });
    }

    /** The latest offset of every partition of a topic, answered by each partition's leader. */
    private static Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> latestOffsets(
            Admin admin, TopicDescription description) throws InterruptedException, ExecutionException {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        description.partitions().forEach(p -> request.put(new TopicPartition(description.name(), p.partition()),
                OffsetSpec.latest()));
        return admin.listOffsets(request).all().get();
    }

    /**
     * The end offsets of a topic's partitions summed: how far writers got (with transactions this
     * counts commit markers too). Zero for a topic that does not exist yet.
     */
    public long endOffsetSum(String topic) throws InterruptedException, ExecutionException {
        try (Admin admin = admin()) {
            TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
            return latestOffsets(admin, description).values().stream()
                    .mapToLong(ListOffsetsResult.ListOffsetsResultInfo::offset).sum();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return 0;
            }
            throw e;
        }
    }

    /**
     * Finds hanging transactions, as {@code kafka-transactions.sh find-hanging} does (KIP-664), without
     * aborting them (the destination-site connector aborts its own: {@code HangingTransactions}): a
     * partition holds an open transaction, older than its transaction timeout plus 10 s, of a
     * producer whose transaction coordinator has no ongoing transaction with that producer epoch on
     * that partition. Such a transaction is never completed; its partition's last stable offset
     * stays behind it, and every read_committed reader (Connect's offset store of exactly-once
     * tasks, consumers) waits for ever. Seen after a broker was stopped while transactions were
     * being committed.
     *
     * @return a line per hanging transaction, naming partition, transactional id, producer id and
     *         epoch, and start offset (the same transaction gives the same line each time)
     */
    public List<String> findHangingTransactions() throws InterruptedException, ExecutionException {
        List<String> hanging = new ArrayList<>();
        try (Admin admin = admin()) {
            Map<Long, String> transactionalIds = new HashMap<>();
            admin.listTransactions().all().get()
                    .forEach(t -> transactionalIds.put(t.producerId(), t.transactionalId()));
            Map<String, TransactionDescription> coordinators = transactionalIds.isEmpty()
                    ? Map.of() : admin.describeTransactions(transactionalIds.values()).all().get();
            List<TopicPartition> partitions = new ArrayList<>();
            admin.describeTopics(admin.listTopics(new ListTopicsOptions().listInternal(true))
                    .names().get()).allTopicNames().get().forEach((topic, description) ->
                    description.partitions().forEach(p -> partitions.add(
                            new TopicPartition(topic, p.partition()))));
            var producers = admin.describeProducers(partitions).all().get();
            for (var entry : producers.entrySet()) {
                for (var producer : entry.getValue().activeProducers()) {
                    if (producer.currentTransactionStartOffset().isEmpty()) {
                        continue;
                    }
                    String transactionalId = transactionalIds.get(producer.producerId());
                    var coordinator = transactionalId == null ? null : coordinators.get(transactionalId);
                    boolean ongoingThere = coordinator != null
                            && coordinator.state() == TransactionState.ONGOING
                            && coordinator.producerEpoch() == producer.producerEpoch()
                            && coordinator.topicPartitions().contains(entry.getKey());
                    // A live transaction ends (commit, or abort by its coordinator) within its timeout;
                    // with transactions v2 the epoch moves on at each end, so a live one can also look
                    // "not ongoing at that epoch" for a moment: only an old open one is hanging.
                    long timeoutMs = coordinator == null ? 60_000 : coordinator.transactionTimeoutMs();
                    boolean old = System.currentTimeMillis() - producer.lastTimestamp() > timeoutMs + 10_000;
                    if (ongoingThere || transactionalId == null || !old) {
                        // live, or young, or one the coordinators do not list (yet: after a broker's
                        // return its coordinator may still be loading, and such transactions ended by
                        // themselves in the outage loop of 2 December)
                        continue;
                    }
                    hanging.add(entry.getKey() + ": transaction of " + transactionalId + " (producer "
                            + producer.producerId() + ", epoch " + producer.producerEpoch() + ") from offset "
                            + producer.currentTransactionStartOffset().getAsLong());
                }
            }
        }
        return hanging;
    }

    public void createTopic(String topic, int partitions) throws InterruptedException, ExecutionException {
        createTopic(topic, partitions, Map.of());
    }

    /** Grows a topic to {@code partitions} partitions. */
    public void addPartitions(String topic, int partitions) throws InterruptedException, ExecutionException {
        try (Admin admin = admin()) {
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(partitions))).all().get();
            awaitLeaders(admin, topic, partitions);
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        long startNanos = System.nanoTime();
        try {
            onEveryWorker(workers, ConnectWorker::close);
        } catch (IOException | TimeoutException e) {
            log.warn("Stopping the workers of site {} failed", name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        broker.close();
        log.info("Site {} stopped in {} ms", name, (System.nanoTime() - startNanos) / 1_000_000);
    }

    /** A worker action such as start or stop, run on every worker at once (JVM starts and stops are mostly waiting). */
    @FunctionalInterface
    private interface WorkerAction {
        void run(ConnectWorker worker) throws IOException, TimeoutException, InterruptedException;
    }

    private static void onEveryWorker(List<ConnectWorker> workers, WorkerAction action)
            throws IOException, TimeoutException, InterruptedException {
        if (workers.size() == 1) {
            action.run(workers.get(0));
            return;
        }
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (ConnectWorker w : workers) {
            all.add(CompletableFuture.runAsync(() -> {
                try {
                    action.run(w);
                } catch (IOException | TimeoutException | InterruptedException e) {
                    throw new CompletionException(e);
                }
            }));
        }
        try {
            CompletableFuture.allOf(all.toArray(new CompletableFuture[0]))
                    .join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof CompletionException nested) {
                cause = nested.getCause();
            }
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof TimeoutException timeout) {
                throw timeout;
            }
            if (cause instanceof InterruptedException interrupted) {
                throw interrupted;
            }
            throw e;
        }
    }

    @Override
    public String toString() {
        return "site " + name + " (kafka " + bootstrapServers()
                + (worker == null ? "" : ", connect " + worker.restUrl()) + ")";
    }

    /** Settings of a site; every one has a default that suits a 2-core test machine. */
    public static final class Builder {
        private final String name;
        private final Path workDir;
        private final List<Path> pluginPath = new ArrayList<>();
        private final Map<String, String> brokerOverrides = new HashMap<>();
        private final Map<String, String> workerOverrides = new HashMap<>();
        private UnaryOperator<InetSocketAddress> wanAdvertiser;
        private String brokerHeap = "512m";
        private String workerHeap = "768m";
        private boolean withWorker = true;
        private int workers = 1;
        private ConnectRuntime connectRuntime = ConnectRuntime.project();
        private SaslSslListener saslSsl;
        private String workerUser;

        private Builder(String name, Path workDir) {
            this.name = Objects.requireNonNull(name, "name");
            this.workDir = Objects.requireNonNull(workDir, "workDir");
        }

        /** Folders for the worker's {@code plugin.path}: each holds one plugin folder or more. */
        public Builder pluginPath(List<Path> folders) {
            pluginPath.addAll(folders);
            return this;
        }

        public Builder brokerProperty(String key, String value) {
            brokerOverrides.put(key, value);
            return this;
        }

        public Builder workerProperty(String key, String value) {
            workerOverrides.put(key, value);
            return this;
        }

        /**
         * Adds a WAN listener to the broker. The function receives the listener's local address and
         * returns the address to advertise (typically a link emulator forwarding to it).
         */
        public Builder wanAdvertiser(UnaryOperator<InetSocketAddress> advertiser) {
            this.wanAdvertiser = advertiser;
            return this;
        }

        public Builder brokerHeap(String heap) {
            this.brokerHeap = heap;
            return this;
        }

        public Builder workerHeap(String heap) {
            this.workerHeap = heap;
            return this;
        }

        /**
         * Adds a SASL_SSL listener to the broker and connects the Connect worker (its own clients
         * and the producers, consumers and admin clients it makes for tasks) through it as
         * {@code workerUser}. Worker properties set with {@link #workerProperty} still win.
         */
        public Builder saslSsl(SaslSslListener listener, String workerUser) {
            listener.jaasConfig(workerUser); // fails now if the listener does not know the user
            this.saslSsl = listener;
            this.workerUser = workerUser;
            return this;
        }

        /** Workers in the site's Connect cluster (one group), started together; 1 by default. */
        public Builder workers(int count) {
            if (count < 1) {
                throw new IllegalArgumentException("a site runs at least one worker, got " + count);
            }
            this.workers = count;
            return this;
        }

        /** The Kafka Connect runtime of the site's workers; the project's own Kafka by default. */
        public Builder connectRuntime(ConnectRuntime runtime) {
            this.connectRuntime = Objects.requireNonNull(runtime, "runtime");
            return this;
        }

        /** A Kafka-only site (no Connect worker). */
        public Builder withoutWorker() {
            this.withWorker = false;
            return this;
        }

        public Site build() throws IOException {
            return new Site(this);
        }
    }
}
