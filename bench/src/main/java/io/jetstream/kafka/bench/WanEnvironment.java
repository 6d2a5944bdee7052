package io.jetstream.kafka.bench;

import io.jetstream.kafka.testkit.replication.ReplicationEnvironment;
import io.jetstream.kafka.testkit.site.ConnectRestClient;
import io.jetstream.kafka.testkit.site.SiteFiles;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a WAN bench run measures on: the network ({@link Networks}), the two brokers, the sampler, and the
 * Connect workers and relays the variants start ({@link BenchCluster}). {@link WanBench} opens one per run;
 * the environment grid opens one for all its cells and {@link #reshape}s the network between them.
 *
 * <p>Everything started is stopped by process id at {@link #close}, also from a shutdown hook (Ctrl-C), and the
 * brokers' data is removed (the logs and configs stay for a post-mortem). Not thread-safe: one run at a time.
 */
final class WanEnvironment implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(WanEnvironment.class);
    private static final Duration SAMPLE_INTERVAL = Duration.ofMillis(500);

    private final BenchNetwork network;
    private final BenchCluster cluster;
    private final Path workDir;
    private final PrintStream out;
    private final AtomicLong recordBytesAtB = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread hook;
    private final long ticks;
    private final Map<String, String> relayBase;
    private final String shippedCodec;
    private Sampler sampler;

    private WanEnvironment(BenchNetwork network, BenchCluster cluster, Path workDir, PrintStream out)
            throws IOException {
        this.network = network;
        this.cluster = cluster;
        this.workDir = workDir;
        this.out = out;
        this.hook = new Thread(this::cleanUp, "bench-cleanup");
        this.ticks = ProcStat.ticksPerSecond();
        this.relayBase = RelayConfigs.shippedBase(SiteFiles.configFile("relay-demo.yaml"));
        this.shippedCodec = ConnectRestClient.readConnectorConfig(SiteFiles.configFile("source-connector.json"))
                .getOrDefault("compression.type", "none");
    }

    /**
     * Builds the network {@code plan} asks for (its uplink cap and one-way delay), shapes it for the heterogeneous
     * scenario where that applies, and starts both brokers; work files go to a new folder under
     * {@code <plan output>/work}.
     */
    static WanEnvironment open(BenchPlan plan, PrintStream out) throws IOException, TimeoutException,
            InterruptedException {
        Path workDir = Files.createTempDirectory(Files.createDirectories(plan.outputDir().resolve("work")),
                plan.outputName() + "-" + ProcessHandle.current().pid() + "-");
        BenchNetwork network = Networks.open(plan, workDir);
        BenchCluster cluster;
        WanEnvironment environment;
        try {
            out.println("Network: " + network.kind() + network.fallbackReason().map(r -> " (fallback: " + r + ")")
                    .orElse("") + String.format(Locale.ROOT, ", uplinks %.1f Mbit/s, %d ms one way",
                    plan.uplinkBitsPerSecond() / 1e6, plan.oneWayDelay().toMillis()));
            if (Heterogeneous.applies(plan)) {
                Heterogeneous.shape(network, out);
            }
            cluster = new BenchCluster(network, workDir, List.of(ReplicationEnvironment.pluginFolder("connect-source"),
                    ReplicationEnvironment.pluginFolder("connect-sink")), plan.brokerStorage());
            environment = new WanEnvironment(network, cluster, workDir, out);
        } catch (IOException | RuntimeException e) {
            network.close();
            throw e;
        }
        Runtime.getRuntime().addShutdownHook(environment.hook);
        try {
            out.println("Starting broker A on a1 and broker B on b1 (work folder " + workDir + ", logs on "
                    + plan.brokerStorage().id() + ") ...");
            cluster.startBrokers();
            environment.sampler = new Sampler(network, cluster::pids, environment.recordBytesAtB::get, SAMPLE_INTERVAL);
        } catch (IOException | TimeoutException | InterruptedException | RuntimeException e) {
            environment.close();
            throw e;
        }
        return environment;
    }

    BenchNetwork network() {
        return network;
    }

    BenchCluster cluster() {
        return cluster;
    }

    /** A runner of {@code plan}'s variants on this environment, their topics named {@code topicPrefix + variant}. */
    VariantRunner runner(BenchPlan plan, String topicPrefix) {
        return new VariantRunner(cluster, sampler, plan, ticks, out, recordBytesAtB, topicPrefix);
    }

    /** Produces and reads back {@code plan}'s warm-up at both brokers (compiles their paths). */
    void warmBrokers(BenchPlan plan) throws InterruptedException {
        runner(plan, "bench.").warmBrokers();
    }

    /** Changes every uplink's cap and the one-way delay between the sites ({@link BenchNetwork#reshape}). */
    void reshape(long uplinkBitsPerSecond, Duration oneWayDelay) throws IOException, InterruptedException {
        network.reshape(uplinkBitsPerSecond, oneWayDelay);
        out.println(String.format(Locale.ROOT, "Network: uplinks %.1f Mbit/s, %d ms one way",
                uplinkBitsPerSecond / 1e6, oneWayDelay.toMillis()));
    }

    /**
     * Runs {@code variants} of {@code plan} in turn, each with only the processes it needs started (workers a
     * variant does not need stay up only after {@link BenchCluster#keepIdleWorkers}); a variant this environment
     * cannot run is added to {@code skipped} with the reason printed.
     */
    List<VariantResult> run(BenchPlan plan, List<Variant> variants, String topicPrefix, List<String> skipped) {
        VariantRunner runner = runner(plan, topicPrefix);
        Optional<String> unsupported = plan.load() == BenchPlan.Load.CAPACITY_CHANGE
                ? network.uplinkRateChangeUnsupported() : Optional.empty();
        List<VariantResult> results = new ArrayList<>();
        for (Variant variant : variants) {
            if (unsupported.isPresent()) {
                out.println("[" + variant.id() + "] skipped: --scenario capacity-change changes an uplink's cap"
                        + " during the run, and " + unsupported.get()
                        + " (run as root where network namespaces work)");
                skipped.add(variant.id());
                continue;
            }
            if (variant.compression().filter(shippedCodec::equals).isPresent()) {
                out.println("[" + variant.id() + "] skipped: compression.type=" + shippedCodec
                        + " is already the shipped default (config/source-connector.json)");
                skipped.add(variant.id());
                continue;
            }
            Replicator replicator = variant.isJetStream()
                    ? new JetStreamReplicator(cluster, variant, relayBase, plan.sourceProps(),
                            plan.sinkProps()).withIngressKeys(Heterogeneous.ingressKeys(plan, variant, "B"),
                            Heterogeneous.spendCap(plan))
                    : new MirrorMakerReplicator(cluster, variant, plan.partitions());
            String codec = variant.isJetStream() ? variant.compression().orElse(shippedCodec)
                    : variant.mm2().orElseThrow().atSource() ? "zstd" : "none";
            results.add(runner.run(variant, replicator, codec));
        }
        return results;
    }

    @Override
    public void close() {
        cleanUp();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or ran: cleanUp is idempotent
        }
    }

    private void cleanUp() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (sampler != null) {
            sampler.close();
        }
        cluster.close();
        network.close();
        // the logs and configs stay for a post-mortem; the brokers' data (hundreds of MB) does not
        deleteQuietly(workDir.resolve("broker-a").resolve("kafka-data"));
        deleteQuietly(workDir.resolve("broker-b").resolve("kafka-data"));
    }

    /** Removes {@code dir} and everything in it, logging (not throwing) what could not be removed. */
    static void deleteQuietly(Path dir) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
        } catch (IOException | RuntimeException e) {
            log.warn("could not remove {}: {}", dir, e.toString());
        }
    }
}
