package io.jetstream.kafka.bench;

import static org.awaitility.Awaitility.await;

import io.jetstream.kafka.testkit.site.ConnectWorker;
import io.jetstream.kafka.testkit.site.HostPlacement;
import io.jetstream.kafka.testkit.site.KafkaBroker;
import io.jetstream.kafka.testkit.site.Ports;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every process of the benchmark on its host: broker A (a1) and broker B (b1), started once and
 * reused by all variants; Connect workers and relays, started when a variant needs them and stopped
 * when the next one does not (idle JVMs take CPU from the ones measured). Processes are known by
 * name ({@code broker-A}, {@code connect-A}, {@code relay-a1}, {@code mm2-src-a2}, ...) for CPU
 * accounting.
 *
 * <p>Not thread-safe, except {@link #pids()} (read by the sampler) and {@link #close()} (also called
 * from the shutdown hook).
 */
final class BenchCluster implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BenchCluster.class);
    private static final String BROKER_HEAP = "1g";
    private static final String WORKER_HEAP = "1g";
    /**
     * MirrorMaker 2's workers: with 1 GB, a task of the one MM2 worker died of {@code OutOfMemoryError} on a 422 MB
     * backlog over 1,200 partitions (grid run of 7 December 2026); an operator would give it the heap it needs.
     */
    private static final String MM2_WORKER_HEAP = "2g";
    /**
     * The brokers delete a removed topic's files after 1 s (Kafka's default: 60 s), so that a variant's topics,
     * hundreds of MB over up to 1,200 partitions, are gone before the next variant's phases are timed, not
     * removed in the middle of them.
     */
    private static final Map<String, String> BROKER_OVERRIDES = Map.of("log.segment.delete.delay.ms", "1000");

    private final BenchNetwork network;
    private final Path workDir;
    private final List<Path> jetStreamPlugins;
    private final Path emptyPluginFolder;
    private KafkaBroker brokerA;
    private KafkaBroker brokerB;
    private final Map<String, ConnectWorker> workers = Collections.synchronizedMap(new LinkedHashMap<>());
    private final Map<String, RelayProcess> relays = Collections.synchronizedMap(new LinkedHashMap<>());

    /** Where the brokers keep their logs ({@code --broker-storage}). */
    private final BenchPlan.BrokerStorage brokerStorage;
    /** With {@link BenchPlan.BrokerStorage#MEMORY}: the tmpfs folder of both brokers' logs, removed at close. */
    private Path memoryLogDirs;

    BenchCluster(BenchNetwork network, Path workDir, List<Path> jetStreamPlugins, BenchPlan.BrokerStorage brokerStorage)
            throws IOException {
        this.network = network;
        this.workDir = workDir;
        this.brokerStorage = brokerStorage;
        this.jetStreamPlugins = List.copyOf(jetStreamPlugins);
        this.emptyPluginFolder = java.nio.file.Files.createDirectories(workDir.resolve("no-plugins"));
    }

    /** Starts broker A on a1 and broker B on b1, in parallel. */
    void startBrokers() throws IOException, TimeoutException, InterruptedException {
        boolean wan = network.brokersNeedWanListeners();
        brokerA = KafkaBroker.onHost("A", workDir.resolve("broker-a"), network.host("a1"), brokerOverrides("broker-a"),
                BROKER_HEAP, wan ? local -> network.fromSiteB("a1", local) : null);
        brokerB = KafkaBroker.onHost("B", workDir.resolve("broker-b"), network.host("b1"), brokerOverrides("broker-b"),
                BROKER_HEAP,
                wan ? local -> network.toSiteB("a1", local) : null);
        Parallel.start(List.of(brokerA::start, brokerB::start));
    }

    /**
     * A broker's overrides: with memory storage its {@code log.dirs} in a folder under {@code /dev/shm}; its
     * configuration, logs and safepoint log stay under the work folder either way.
     */
    private Map<String, String> brokerOverrides(String name) throws IOException {
        if (brokerStorage == BenchPlan.BrokerStorage.DISK) {
            return BROKER_OVERRIDES;
        }
        if (memoryLogDirs == null) {
            memoryLogDirs = brokerStorage.newLogFolder(workDir, "jetstream-bench-");
        }
        Map<String, String> overrides = new LinkedHashMap<>(BROKER_OVERRIDES);
        overrides.put("log.dirs", Files.createDirectories(memoryLogDirs.resolve(name)).toString());
        return overrides;
    }

    BenchNetwork network() {
        return network;
    }

    /** The run's work folder: process logs, configs, relay metrics. */
    Path workDir() {
        return workDir;
    }

    /** Broker A as clients at site A (and the bench JVM) reach it. */
    String bootstrapA() {
        return brokerA.bootstrapServers();
    }

    /** Broker B as clients at site B (and the bench JVM) reach it. */
    String bootstrapB() {
        return brokerB.bootstrapServers();
    }

    /** Broker A as clients at site B reach it: through a1's uplink. */
    String bootstrapAFromSiteB() {
        return network.brokersNeedWanListeners() ? brokerA.wanBootstrapServers() : brokerA.bootstrapServers();
    }

    /** Broker B as clients at site A reach it: through their uplink. */
    String bootstrapBFromSiteA() {
        return network.brokersNeedWanListeners() ? brokerB.wanBootstrapServers() : brokerB.bootstrapServers();
    }

    // ---- topics

    void createTopic(String bootstrap, String topic, int partitions) throws InterruptedException, ExecutionException,
            TimeoutException {
        try (Admin admin = admin(bootstrap)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
            await("leaders of " + topic).atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .until(() -> admin.describeTopics(List.of(topic))
                    .allTopicNames().get().get(topic).partitions().stream().allMatch(p -> p.leader() != null));
        }
    }

    /** Deletes topics (those that do not exist are ignored): each variant's backlog is hundreds of MB. */
    void deleteTopics(String bootstrap, List<String> topics) {
        try (Admin admin = admin(bootstrap)) {
            admin.deleteTopics(topics).topicNameValues().forEach((topic, future) -> {
                try {
                    future.get();
                } catch (ExecutionException e) {
                    log.debug("topic {} not deleted: {}", topic, e.getCause().toString());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
    }

    private static Admin admin(String bootstrap) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000"));
    }

    /**
     * Waits, at most {@code patience}, until broker A holds no folder of {@code topicAtA} and broker B none of
     * {@code topicAtB}: a deleted topic's partition folders are renamed ({@code <topic>-<n>.<id>-delete}) and
     * removed after {@code log.segment.delete.delay.ms} (1 s here), one partition after another. At 1,200
     * partitions that work took seconds of the brokers' CPU on this 2-core machine; waiting for it here keeps
     * it out of the next variant's phases. Past the patience it logs and returns.
     */
    void awaitTopicFilesGone(String topicAtA, String topicAtB, Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (holds(logDir(brokerA, "broker-a"), topicAtA) || holds(logDir(brokerB, "broker-b"), topicAtB)) {
            if (System.nanoTime() - deadline > 0) {
                log.warn("the files of topics {} (A) and {} (B) are still on the brokers after {} s", topicAtA,
                        topicAtB, patience.toSeconds());
                return;
            }
            Thread.sleep(200); // polling a folder with a deadline
        }
    }

    /** Where {@code broker} ({@code name}: broker-a or broker-b) keeps its partition folders. */
    private Path logDir(KafkaBroker broker, String name) {
        return memoryLogDirs == null ? broker.dataDir() : memoryLogDirs.resolve(name);
    }

    /** Whether {@code dataDir} holds a partition folder of {@code topic}, live or renamed for deletion. */
    static boolean holds(Path dataDir, String topic) {
        java.util.regex.Pattern folder = java.util.regex.Pattern.compile(
                java.util.regex.Pattern.quote(topic) + "-\\d+(\\.[0-9a-f]+-delete)?");
        try (java.util.stream.Stream<Path> entries = java.nio.file.Files.list(dataDir)) {
            return entries.anyMatch(entry -> folder.matcher(entry.getFileName().toString()).matches());
        } catch (IOException | RuntimeException e) {
            return false; // a broker that is gone holds nothing to wait for
        }
    }

    // ---- Connect workers

    /**
     * JetStream's Connect workers: connect-A on a1 (bootstrap A) and, on b2 (bootstrap B), connect-B
     * (the shipped worker file: exactly-once source support) or, for {@code atLeastOnce},
     * connect-B-alo (the same without it). The map's keys are "connect-A" and "connect-B" either way.
     */
    Map<String, ConnectWorker> jetStreamWorkers(boolean atLeastOnce) throws IOException, TimeoutException,
            InterruptedException {
        Map<String, ConnectWorker> wanted = new LinkedHashMap<>();
        wanted.put("connect-A", worker("connect-A", "a1", bootstrapA(), jetStreamPlugins, Map.of()));
        wanted.put("connect-B", atLeastOnce
                ? worker(JETSTREAM_WORKER_B_ALO, "b2", bootstrapB(), jetStreamPlugins,
                        Map.of("exactly.once.source.support", "disabled"))
                : worker("connect-B", "b2", bootstrapB(), jetStreamPlugins, Map.of()));
        runOnly(wanted);
        return wanted;
    }

    /** The name of JetStream's destination worker without exactly-once support. */
    static final String JETSTREAM_WORKER_B_ALO = "connect-B-alo";

    /** The MirrorMaker 2 workers of {@code setup}, one per host, one Connect group. */
    Map<String, ConnectWorker> mm2Workers(Variant.Mm2Setup setup) throws IOException, TimeoutException,
            InterruptedException {
        String bootstrap = setup.atSource() ? bootstrapBFromSiteA() : bootstrapB();
        Map<String, ConnectWorker> wanted = new LinkedHashMap<>();
        for (String host : setup.workerHosts()) {
            String name = setup.group() + "-" + host;
            wanted.put(name, worker(name, host, bootstrap, List.of(emptyPluginFolder),
                    Mm2Configs.worker(setup), MM2_WORKER_HEAP));
        }
        runOnly(wanted);
        return wanted;
    }

    private ConnectWorker worker(String name, String host, String bootstrap, List<Path> plugins,
                                 Map<String, String> overrides) throws IOException {
        return worker(name, host, bootstrap, plugins, overrides, WORKER_HEAP);
    }

    private ConnectWorker worker(String name, String host, String bootstrap, List<Path> plugins,
                                 Map<String, String> overrides, String heap) throws IOException {
        ConnectWorker existing = workers.get(name);
        if (existing != null) {
            return existing;
        }
        ConnectWorker worker = ConnectWorker.onHost(name, workDir.resolve(name), network.host(host), bootstrap,
                plugins, overrides, heap);
        workers.put(name, worker);
        return worker;
    }

    /**
     * From now on, a worker no variant needs stays up (with no connector) instead of being stopped: the grid
     * runs every cell on the same workers, so that each cell's variants meet JVMs that have compiled their
     * paths, and JetStream's and MirrorMaker 2's workers take turns without restarting.
     */
    void keepIdleWorkers() {
        keepIdleWorkers = true;
    }

    private volatile boolean keepIdleWorkers;

    /**
     * Stops running workers not in {@code wanted} (unless {@link #keepIdleWorkers}), then starts those of
     * {@code wanted} not running, in parallel.
     */
    private void runOnly(Map<String, ConnectWorker> wanted) throws IOException, TimeoutException, InterruptedException {
        List<ConnectWorker> idle = new ArrayList<>();
        synchronized (workers) {
            workers.values().forEach(w -> {
                if (w.isRunning() && !wanted.containsValue(w) && !keepIdleWorkers) {
                    idle.add(w);
                }
            });
        }
        Parallel.run(idle.stream().<Runnable>map(w -> w::stop).toList());
        List<Parallel.Starter> starts = new ArrayList<>();
        wanted.values().forEach(w -> {
            if (!w.isRunning()) {
                starts.add(w::start);
            }
        });
        Parallel.start(starts);
    }

    // ---- relays

    /** Starts a relay on {@code host} with {@code config} (listeners added), replacing a running one. */
    RelayProcess startRelay(String host, Map<String, String> base, Map<String, String> extra)
            throws IOException, TimeoutException, InterruptedException {
        stopRelay(host);
        HostPlacement placement = network.host(host);
        InetSocketAddress data = new InetSocketAddress(placement.address(), Ports.freePort());
        InetSocketAddress admin = new InetSocketAddress(placement.address(), Ports.freePort());
        Map<String, String> config = RelayConfigs.relay(base, host, data, admin);
        config.putAll(extra);
        RelayProcess relay = new RelayProcess(host, data, admin, config, placement.commandPrefix(),
                workDir.resolve("relays"));
        relays.put(host, relay);
        relay.start();
        return relay;
    }

    void stopRelay(String host) {
        RelayProcess relay = relays.remove(host);
        if (relay != null) {
            relay.close();
        }
    }

    void stopRelaysExcept(List<String> keep) {
        List<String> hosts;
        synchronized (relays) {
            hosts = relays.keySet().stream().filter(h -> !keep.contains(h)).toList();
        }
        hosts.forEach(this::stopRelay);
    }

    /** Kills the relay on {@code host} (SIGKILL, a failure), keeping its addresses and configuration for a restart. */
    void killRelay(String host) {
        RelayProcess relay = relays.get(host);
        if (relay == null) {
            throw new IllegalStateException("no relay on " + host);
        }
        relay.process().kill();
    }

    /** Whether the relay on {@code host} is up (started and not killed). */
    boolean relayRunning(String host) {
        RelayProcess relay = relays.get(host);
        return relay != null && relay.isAlive();
    }

    /**
     * Starts the relay on {@code host} again on the addresses and with the configuration it had (a
     * killed relay coming back: its peers reconnect to the same endpoint), waiting until it is healthy.
     */
    RelayProcess restartRelay(String host) throws IOException, TimeoutException, InterruptedException {
        RelayProcess old = relays.get(host);
        if (old == null) {
            throw new IllegalStateException("no relay on " + host);
        }
        old.close();
        RelayProcess relay = new RelayProcess(host, old.dataAddress(), old.adminAddress(), old.config(),
                network.host(host).commandPrefix(), workDir.resolve("relays"));
        relays.put(host, relay);
        relay.start();
        return relay;
    }

    RelayProcess relay(String host) {
        return relays.get(host);
    }

    // ---- accounting

    /** Every running process of the benchmark by name, and its pid. */
    Map<String, Long> pids() {
        Map<String, Long> pids = new LinkedHashMap<>();
        if (brokerA != null && brokerA.isRunning()) {
            pids.put("broker-A", brokerA.process().pid());
        }
        if (brokerB != null && brokerB.isRunning()) {
            pids.put("broker-B", brokerB.process().pid());
        }
        synchronized (workers) {
            workers.forEach((name, w) -> {
                if (w.isRunning()) {
                    pids.put(name, w.process().pid());
                }
            });
        }
        synchronized (relays) {
            relays.forEach((host, relay) -> pids.put("relay-" + host, relay.pid()));
        }
        network.delayLinePid().ifPresent(pid -> pids.put("delay-line", pid));
        pids.put("bench-jvm", ProcessHandle.current().pid());
        return pids;
    }

    /**
     * From now on, {@link #collectGarbage} runs a full collection in the brokers and workers between variants:
     * the grid keeps them for an hour, and with the parallel collector (the test kit's) their old generations
     * filled over several variants and emptied in full collections of 0.2-0.4 s in whichever variant's phase
     * came next (up to 10 in a Connect worker in the run of 7 December 2026, 05:00 UTC); a collection between
     * variants gives each variant the heaps a fresh start gave it.
     */
    void collectGarbageBetweenVariants() {
        collectBetweenVariants = true;
    }

    private volatile boolean collectBetweenVariants;

    /**
     * A full collection ({@code jcmd <pid> GC.run}) in every running broker and Connect worker and in the bench
     * JVM, if {@link #collectGarbageBetweenVariants} was called; a JVM that does not answer within 30 s is
     * logged and left.
     */
    void collectGarbage() throws InterruptedException {
        if (!collectBetweenVariants) {
            return;
        }
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        if (!java.nio.file.Files.isExecutable(jcmd)) {
            log.warn("no jcmd at {}: no collection between variants", jcmd);
            return;
        }
        for (Map.Entry<String, Long> process : pids().entrySet()) {
            String name = process.getKey();
            if (!(name.startsWith("broker-") || workers.containsKey(name))) {
                continue;
            }
            try {
                Process run = new ProcessBuilder(jcmd.toString(), Long.toString(process.getValue()), "GC.run")
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (!run.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                    run.destroyForcibly();
                    log.warn("jcmd GC.run in {} did not return within 30 s", name);
                }
            } catch (IOException e) {
                log.warn("jcmd GC.run in {} failed: {}", name, e.toString());
            }
        }
        System.gc();
    }

    /** The safepoint log of every running broker, worker and relay by process name (see {@link JvmPauses}). */
    Map<String, Path> safepointLogs() {
        Map<String, Path> logs = new LinkedHashMap<>();
        if (brokerA != null && brokerA.isRunning()) {
            logs.put("broker-A", brokerA.process().safepointLog());
        }
        if (brokerB != null && brokerB.isRunning()) {
            logs.put("broker-B", brokerB.process().safepointLog());
        }
        synchronized (workers) {
            workers.forEach((name, w) -> {
                if (w.isRunning()) {
                    logs.put(name, w.process().safepointLog());
                }
            });
        }
        synchronized (relays) {
            relays.forEach((host, relay) -> logs.put("relay-" + host, relay.safepointLog()));
        }
        logs.values().removeIf(java.util.Objects::isNull);
        return logs;
    }

    /** Last warnings and errors of every running worker and relay, for a failed variant's message. */
    String problems() {
        StringBuilder out = new StringBuilder();
        synchronized (workers) {
            workers.forEach((name, w) -> {
                if (w.isRunning()) {
                    out.append("\n--- ").append(name).append(":\n").append(w.process().problems(15));
                }
            });
        }
        synchronized (relays) {
            relays.forEach((host, r) -> out.append("\n--- relay-").append(host).append(":\n")
                    .append(r.process().problems(10)));
        }
        return out.toString();
    }

    @Override
    public void close() {
        long start = System.nanoTime();
        List<Runnable> stops = new ArrayList<>();
        synchronized (workers) {
            workers.values().forEach(w -> stops.add(w::stop));
        }
        synchronized (relays) {
            relays.values().forEach(r -> stops.add(r::close));
            relays.clear();
        }
        Parallel.run(stops);
        Parallel.run(List.of(() -> {
            if (brokerA != null) {
                brokerA.stop();
            }
        }, () -> {
            if (brokerB != null) {
                brokerB.stop();
            }
        }));
        log.info("benchmark processes stopped in {} ms", (System.nanoTime() - start) / 1_000_000);
        if (memoryLogDirs != null) {
            WanEnvironment.deleteQuietly(memoryLogDirs);
        }
    }

}
