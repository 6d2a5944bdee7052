package io.jetstream.kafka.bench;

import io.jetstream.kafka.testkit.replication.ReplicationEnvironment;
import io.jetstream.kafka.testkit.site.ConnectRestClient;
import io.jetstream.kafka.testkit.site.SiteFiles;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code ./jetstream bench wan}: JetStream against MirrorMaker 2 on the same WAN, the same workload
 * and the same machine. Builds the network ({@link NamespaceNetwork}, or {@link LoopbackNetwork}
 * when namespaces are not available, said in the output), starts the two brokers once, runs each
 * variant ({@link VariantRunner}) with only its own processes up, and writes
 * {@code <outputDir>/<scenario>.json} and {@code .html}.
 *
 * <p>Everything started is stopped by process id when the run ends, fails or is interrupted
 * (Ctrl-C: a shutdown hook stops the processes, then removes the network).
 */
public final class WanBench {

    private static final Logger log = LoggerFactory.getLogger(WanBench.class);
    private static final Duration SAMPLE_INTERVAL = Duration.ofMillis(500);

    private final BenchPlan plan;
    private final PrintStream out;

    public WanBench(BenchPlan plan, PrintStream out) {
        this.plan = plan;
        this.out = out;
    }

    /** The JSON file a plan writes. */
    public static Path jsonFile(BenchPlan plan) {
        return plan.outputDir().resolve(plan.outputName() + ".json");
    }

    public static Path htmlFile(BenchPlan plan) {
        return plan.outputDir().resolve(plan.outputName() + ".html");
    }

    /** Runs the plan, writes the JSON and HTML files, prints the summary and the RESULT line. */
    public BenchResult run() throws IOException, TimeoutException, InterruptedException {
        long startNanos = System.nanoTime();
        String startedAt = Instant.now().toString();
        Path projectRoot = SiteFiles.projectRoot();
        Path workDir = Files.createTempDirectory(Files.createDirectories(plan.outputDir().resolve("work")),
                plan.outputName() + "-" + ProcessHandle.current().pid() + "-");
        List<Variant> variants = Variants.select(plan.variants());
        BenchNetwork network = Networks.open(plan, workDir);
        out.println("Network: " + network.kind() + network.fallbackReason().map(r -> " (fallback: " + r + ")")
                .orElse("") + String.format(java.util.Locale.ROOT, ", uplinks %.1f Mbit/s, %d ms one way",
                plan.uplinkBitsPerSecond() / 1e6, plan.oneWayDelay().toMillis()));
        if (Heterogeneous.applies(plan)) {
            Heterogeneous.shape(network, out);
        }
        BenchCluster cluster = new BenchCluster(network, workDir, List.of(
                ReplicationEnvironment.pluginFolder("connect-source"), ReplicationEnvironment.pluginFolder("connect-sink")));
        AtomicBoolean closed = new AtomicBoolean();
        Runnable cleanUp = () -> {
            if (closed.compareAndSet(false, true)) {
                cluster.close();
                network.close();
                // the logs and configs stay for a post-mortem; the brokers' data (deleted topics
                // waiting for their delay: hundreds of MB) does not
                deleteQuietly(workDir.resolve("broker-a").resolve("kafka-data"));
                deleteQuietly(workDir.resolve("broker-b").resolve("kafka-data"));
            }
        };
        Thread hook = new Thread(cleanUp, "bench-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        List<VariantResult> results = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        AtomicLong recordBytesAtB = new AtomicLong();
        try {
            out.println("Starting broker A on a1 and broker B on b1 (work folder " + workDir + ") ...");
            cluster.startBrokers();
            long ticks = ProcStat.ticksPerSecond();
            Map<String, String> relayBase = RelayConfigs.shippedBase(SiteFiles.configFile("relay-demo.yaml"));
            String shippedCodec = ConnectRestClient.readConnectorConfig(SiteFiles.configFile("source-connector.json"))
                    .getOrDefault("compression.type", "none");
            try (Sampler sampler = new Sampler(network, cluster::pids, recordBytesAtB::get, SAMPLE_INTERVAL)) {
                VariantRunner runner = new VariantRunner(cluster, sampler, plan, ticks, out, recordBytesAtB);
                runner.warmBrokers();
                Optional<String> unsupported = plan.load() == BenchPlan.Load.CAPACITY_CHANGE
                        ? network.uplinkRateChangeUnsupported() : Optional.empty();
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
            }
        } finally {
            cleanUp.run();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or ran: cleanUp is idempotent
            }
        }
        BenchResult result = assemble(results, skipped, network, startedAt,
                (System.nanoTime() - startNanos) / 1e9, MachineInfo.gitCommit(projectRoot));
        BenchJson.write(result, jsonFile(plan));
        BenchHtml.write(result, htmlFile(plan));
        BenchReport.printSummary(out, results, result.linkCapacityMbS());
        if (result.varyingRate() != null || !plan.rateSteps().isEmpty()) {
            BenchReport.printSteps(out, results, result.varyingRate());
        }
        if (plan.load().hasEvents()) {
            BenchReport.printEvents(out, results);
        }
        if (Heterogeneous.applies(plan)) {
            HeterogeneousReport.printReport(out, results);
        }
        out.println("Report: " + jsonFile(plan) + " and " + htmlFile(plan));
        out.println(result.resultLine());
        return result;
    }

    private BenchResult assemble(List<VariantResult> results, List<String> skipped, BenchNetwork network,
                                 String startedAt, double seconds, String commit) {
        Map<String, Double> ratios = Comparison.ratios(results);
        List<Comparison.Target> targets = Comparison.targets(results, network.oneWayDelay().toMillis());
        Optional<VariantResult> headline = BenchReport.headline(results);
        Optional<RateComparison> varying = RateComparison.of(results, network.oneWayDelay().toMillis());
        String line = BenchReport.resultLine(plan.outputName(), results, headline, ratios, network.kind())
                + varying.map(BenchReport::rateFigures).orElse("") + BenchReport.eventFigures(results)
                + (Heterogeneous.applies(plan) ? HeterogeneousReport.resultFigures(results) : "") + " json=" + jsonFile(plan);
        boolean ok = !results.isEmpty() && results.stream().allMatch(VariantResult::ok);
        Optional<VariantResult.BacklogPhase> backlog = headline.map(VariantResult::backlog);
        Optional<VariantResult.LatencyPhase> latency = headline.map(VariantResult::latency);
        Map<String, Object> networkDescription = new LinkedHashMap<>(network.describe());
        return new BenchResult(plan.outputName(), plan.quick(), ok ? "ok" : "failed", line, plan.commandLine(), commit,
                startedAt, VariantRunner.round(seconds), networkDescription, MachineInfo.describe(), workload(skipped),
                headline.map(VariantResult::id).orElse(null),
                backlog.map(VariantResult.BacklogPhase::throughputMbS).orElse(0.0),
                backlog.map(VariantResult.BacklogPhase::eventsPerS).orElse(0.0),
                latency.map(VariantResult.LatencyPhase::latencyP50Ms).orElse(0L),
                latency.map(VariantResult.LatencyPhase::latencyP99Ms).orElse(0L),
                network.uplinkBytesPerSecond() / 1e6,
                backlog.map(VariantResult.BacklogPhase::wireMbS).orElse(0.0),
                backlog.map(VariantResult.BacklogPhase::routeBytes).orElse(Map.of()),
                backlog.map(VariantResult.BacklogPhase::uplinkBytes).orElse(Map.of()),
                ratios, targets, results, varying.orElse(null));
    }

    private static void deleteQuietly(Path dir) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
        } catch (IOException | RuntimeException e) {
            log.warn("could not remove {}: {}", dir, e.toString());
        }
    }

    private Map<String, Object> workload(List<String> skipped) {
        Map<String, Object> workload = new LinkedHashMap<>();
        workload.put("partitions", plan.partitions());
        workload.put("value_bytes", plan.valueBytes());
        workload.put("value_content", "uniformly random letters A-Z (4.7 bits of entropy per byte)");
        workload.put("producer_compression", "none");
        workload.put("headers", "js.run (36-byte run id), js.seq (8 bytes)");
        workload.put("warmup_s", plan.warmup().toMillis() / 1000.0);
        workload.put("warmup_rate_per_s", plan.warmupRate());
        workload.put("latency_phase_s", plan.latencyPhase().toMillis() / 1000.0);
        workload.put("latency_rate_per_s", plan.latencyRate());
        workload.put("load", plan.load().id());
        if (plan.load().hasEvents()) {
            workload.remove("latency_phase_s");
            workload.remove("latency_rate_per_s");
            Map<String, Object> schedules = new LinkedHashMap<>();
            for (Variant variant : Variants.select(plan.variants())) {
                plan.eventSchedule(variant.routes()).ifPresent(s -> schedules.put(variant.id(), s.describe()));
            }
            workload.put("event_schedules", schedules);
        } else if (plan.rateSteps().isEmpty()) {
            workload.put("backlog_mb", plan.backlogBytes() / 1e6);
            workload.put("idle_phase_s", plan.idlePhase().toMillis() / 1000.0);
        } else {
            workload.remove("latency_phase_s");
            workload.remove("latency_rate_per_s");
            List<Map<String, Object>> steps = new ArrayList<>();
            for (RateStep step : plan.rateSteps()) {
                Map<String, Object> described = new LinkedHashMap<>();
                described.put("name", step.name());
                if (step.isBurst()) {
                    described.put("burst_records", step.burstRecords());
                    described.put("pace_per_s", step.ratePerS());
                } else {
                    described.put("rate_per_s", step.ratePerS());
                    described.put("duration_s", step.duration().toMillis() / 1000.0);
                }
                steps.add(described);
            }
            workload.put("rate_steps", steps);
        }
        if (Heterogeneous.applies(plan)) {
            workload.put("heterogeneous", HeterogeneousReport.describe(plan));
        }
        workload.put("variants", plan.variants());
        workload.put("skipped_variants", skipped);
        return workload;
    }
}
