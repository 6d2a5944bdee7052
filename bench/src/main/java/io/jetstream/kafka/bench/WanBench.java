package io.jetstream.kafka.bench;

import io.jetstream.kafka.testkit.site.SiteFiles;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

/**
 * {@code ./jetstream bench wan}: JetStream against MirrorMaker 2 on the same WAN, the same workload
 * and the same machine. Opens a {@link WanEnvironment} (the network: {@link NamespaceNetwork}, or
 * {@link LoopbackNetwork} when namespaces are not available, said in the output; the two brokers,
 * started once), runs each variant ({@link VariantRunner}) with only its own processes up, and writes
 * {@code <outputDir>/<scenario>.json} and {@code .html}.
 *
 * <p>Everything started is stopped by process id when the run ends, fails or is interrupted
 * (Ctrl-C: a shutdown hook stops the processes, then removes the network).
 */
public final class WanBench {


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
        List<Variant> variants = Variants.select(plan.variants());
        List<String> skipped = new ArrayList<>();
        List<VariantResult> results;
        BenchNetwork network;
        try (WanEnvironment environment = WanEnvironment.open(plan, out)) {
            network = environment.network();
            environment.warmBrokers(plan);
            results = environment.run(plan, variants, "bench.", skipped);
        }
        return report(plan, network.describe(), network.oneWayDelay(), network.uplinkBytesPerSecond(), results,
                skipped, startedAt, (System.nanoTime() - startNanos) / 1e9, out);
    }

    /**
     * Writes the JSON and HTML files of {@code plan}'s {@code results}, prints the summary and the RESULT line. The
     * network's figures are given, not read, for the grid reshapes one network from cell to cell.
     */
    static BenchResult report(BenchPlan plan, Map<String, Object> networkDescription, Duration oneWayDelay,
                              long uplinkBytesPerSecond, List<VariantResult> results, List<String> skipped,
                              String startedAt, double seconds, PrintStream out) throws IOException {
        Map<String, Object> described = new java.util.LinkedHashMap<>(networkDescription);
        described.put("broker_storage", plan.brokerStorage().id());
        BenchResult result = new WanBench(plan, out).assemble(results, skipped, described, oneWayDelay,
                uplinkBytesPerSecond, startedAt, seconds, MachineInfo.gitCommit(SiteFiles.projectRoot()));
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

    private BenchResult assemble(List<VariantResult> results, List<String> skipped,
                                 Map<String, Object> networkDescription, Duration oneWayDelay,
                                 long uplinkBytesPerSecond, String startedAt, double seconds, String commit) {
        Map<String, Double> ratios = Comparison.ratios(results);
        List<Comparison.Target> targets = Comparison.targets(results, oneWayDelay.toMillis());
        Optional<VariantResult> headline = BenchReport.headline(results);
        Optional<RateComparison> varying = RateComparison.of(results, oneWayDelay.toMillis());
        String kind = String.valueOf(networkDescription.get("network"));
        String line = BenchReport.resultLine(plan.outputName(), results, headline, ratios, kind)
                + varying.map(BenchReport::rateFigures).orElse("") + BenchReport.eventFigures(results)
                + (Heterogeneous.applies(plan) ? HeterogeneousReport.resultFigures(results) : "") + " json=" + jsonFile(plan);
        boolean ok = !results.isEmpty() && results.stream().allMatch(VariantResult::ok);
        Optional<VariantResult.BacklogPhase> backlog = headline.map(VariantResult::backlog);
        Optional<VariantResult.LatencyPhase> latency = headline.map(VariantResult::latency);
        return new BenchResult(plan.outputName(), plan.quick(), ok ? "ok" : "failed", line, plan.commandLine(), commit,
                startedAt, VariantRunner.round(seconds), networkDescription, MachineInfo.describe(), workload(skipped),
                headline.map(VariantResult::id).orElse(null),
                backlog.map(VariantResult.BacklogPhase::throughputMbS).orElse(0.0),
                backlog.map(VariantResult.BacklogPhase::eventsPerS).orElse(0.0),
                latency.map(VariantResult.LatencyPhase::latencyP50Ms).orElse(0L),
                latency.map(VariantResult.LatencyPhase::latencyP99Ms).orElse(0L),
                uplinkBytesPerSecond / 1e6,
                backlog.map(VariantResult.BacklogPhase::wireMbS).orElse(0.0),
                backlog.map(VariantResult.BacklogPhase::routeBytes).orElse(Map.of()),
                backlog.map(VariantResult.BacklogPhase::uplinkBytes).orElse(Map.of()),
                ratios, targets, results, varying.orElse(null));
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
