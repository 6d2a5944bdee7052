package io.jetstream.kafka.launcher;

import io.jetstream.kafka.testkit.link.LinkDirection;
import io.jetstream.kafka.testkit.link.LinkEmulator;
import io.jetstream.kafka.testkit.replication.ReplicationEnvironment;
import io.jetstream.kafka.testkit.site.SiteFiles;
import io.jetstream.kafka.testkit.workload.ProducedLog;
import io.jetstream.kafka.testkit.workload.VerificationReport;
import io.jetstream.kafka.testkit.workload.Verifier;
import io.jetstream.kafka.testkit.workload.Workload;
import io.jetstream.kafka.testkit.workload.WorkloadSpec;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code ./jetstream demo}: two local sites, relays behind emulated WAN routes, both connectors
 * deployed from config/ through the Connect REST API, a sample stream on three topics, a live
 * progress line, and a closing {@code RESULT} line checked by an independent verifier. Exits 1
 * when the result does not hold (anything lost, duplicated or out of order).
 */
@Command(name = "demo", sortOptions = false,
        description = "run a two-site replication demo and print a RESULT line (--events N --routes K --avro"
                + " --keep-running)")
final class DemoCommand implements Callable<Integer> {

    /** Demo topics: name, partitions, share of the events, producer compression. */
    private record DemoTopic(String name, int partitions, double share, String compression) {
    }

    private static final List<DemoTopic> TOPICS = List.of(
            new DemoTopic("demo.orders", 6, 0.6, "lz4"),
            new DemoTopic("demo.clicks", 3, 0.3, "none"),
            new DemoTopic("demo.audit", 1, 0.1, "zstd"));

    private final PrintStream out;

    @Mixin
    private DemoArguments arguments;

    @Mixin
    private HelpOption help;

    DemoCommand(PrintStream out) {
        this.out = out;
    }

    /** The options given on the command line, checked. */
    DemoOptions options() {
        return arguments.options();
    }

    @Override
    public Integer call() throws Exception {
        DemoOptions options = options();
        // a fresh folder every run: process ids repeat (containers, reboots), and a broker refuses
        // data formatted for another cluster id
        Path baseDir = Files.createTempDirectory(Files.createDirectories(
                SiteFiles.projectRoot().resolve("target").resolve("demo")), "run-" + ProcessHandle.current().pid() + "-");
        if (options.avro()) {
            out.printf("JetStream demo with Avro and a schema registry per site: %,d events, %d route(s)%n",
                    options.events(), options.routes());
            return AvroDemo.run(options, baseDir, out);
        }
        out.printf("JetStream demo: %,d events, %d route(s) of %.1f MB/s with %d ms one-way delay%n", options.events(),
                options.routes(), options.linkRate() / 1e6, options.oneWayDelay().toMillis());
        if (options.routes() == 3) {
            out.printf("Route prices per GB %.2f / %.2f / %.2f: adaptive routing uses route-3 only while the others"
                    + " are full%n", ReplicationEnvironment.ROUTE_PRICE_PER_GB[0],
                    ReplicationEnvironment.ROUTE_PRICE_PER_GB[1], ReplicationEnvironment.ROUTE_PRICE_PER_GB[2]);
        }
        out.println("Starting sites A and B, relays and WAN links (work folder " + baseDir + ") ...");
        long startNanos = System.nanoTime();
        ReplicationEnvironment.Builder builder = ReplicationEnvironment.builder(baseDir)
                .routes(options.routes())
                .linkRate(options.linkRate())
                .oneWayDelay(options.oneWayDelay())
                .exactlyOnce(true)
                .withoutConnectors();
        if (options.routing() != null) {
            builder.ingressProperty("routing.policy", options.routing());
        }
        try (ReplicationEnvironment env = builder.start()) {
            // Topics first, so the source connector's topics.regex finds them at once.
            for (DemoTopic topic : TOPICS) {
                env.siteA().createTopic(topic.name(), topic.partitions());
            }
            env.deploySink(java.util.Map.of());
            env.deploySource(java.util.Map.of());
            env.awaitConnectorsRunning(Duration.ofSeconds(120));
            out.printf("Up in %.1f s. Connect A %s, Connect B %s; connectors deployed from config/*.json%n",
                    (System.nanoTime() - startNanos) / 1e9, env.siteA().requireWorker().restUrl(),
                    env.siteB().requireWorker().restUrl());
            List<Workload> workloads = new ArrayList<>();
            for (DemoTopic topic : TOPICS) {
                int events = (int) Math.round(options.events() * topic.share());
                workloads.add(new Workload(WorkloadSpec.builder(topic.name(), topic.partitions())
                        .records(events)
                        .valueBytes(options.valueBytes())
                        .nullKeyEvery(13)
                        .nullValueEvery(29)
                        .extraHeaders(2)
                        .compressionType(topic.compression())
                        // Random letters, as in the WAN benchmark: zstd shrinks them to about 60%, so
                        // the routes' caps, not the machine's CPU, bound what the demo moves.
                        .valueContent(WorkloadSpec.ValueContent.RANDOM_LETTERS)
                        .recordsPerSecond(options.rate() <= 0 ? 0 : (int) Math.max(1, options.rate() * topic.share()))
                        .build(), env.siteA().bootstrapServers()));
            }
            long total = workloads.stream().mapToLong(w -> w.spec().records()).sum();
            DemoProgress progress = new DemoProgress(env, workloads, TOPICS.stream().map(t -> "A." + t.name()).toList(),
                    options.valueBytes());
            long streamStart = System.nanoTime();
            workloads.forEach(Workload::start);
            boolean complete = progress.runUntilDelivered(total, options.timeout(), out);
            List<ProducedLog> logs = new ArrayList<>();
            for (Workload workload : workloads) {
                logs.add(workload.awaitCompletion(Duration.ofSeconds(30)));
                workload.close();
            }
            double elapsed = (System.nanoTime() - streamStart) / 1e9;
            long expected = 0;
            long delivered = 0;
            long missing = 0;
            long duplicates = 0;
            boolean orderOk = true;
            for (ProducedLog log : logs) {
                VerificationReport report = Verifier.builder(env.siteB().bootstrapServers())
                        .topicMapping(topic -> "A." + topic)
                        .samePartitions(true)
                        .deadline(Duration.ofSeconds(complete ? 30 : 5))
                        .build()
                        .verify(log);
                expected += report.expected();
                delivered += report.delivered();
                missing += report.missing();
                duplicates += report.duplicates();
                orderOk &= report.orderOk() && report.fieldMismatches() == 0;
            }
            DemoProgress.Summary summary = progress.summary(elapsed);
            String result = String.format(Locale.ROOT,
                    "RESULT events=%d delivered=%d lost=%d duplicates=%d order=%s throughput_mb_s=%.2f wire_mb_s=%.2f "
                            + "routes=%d route_share=%s batch_size=%s latency_p50_ms=%d latency_p99_ms=%d elapsed_s=%.1f",
                    expected, delivered, missing, duplicates, orderOk ? "ok" : "violated", summary.recordMbPerS(),
                    summary.wireMbPerS(), env.routes(), summary.routeShares(), summary.batchSize(), summary.p50Millis(),
                    summary.p99Millis(), elapsed);
            out.println(result);
            boolean holds = expected == total && delivered == expected && missing == 0 && duplicates == 0 && orderOk;
            if (options.keepRunning()) {
                keepRunning(env, out);
            }
            return holds ? 0 : 1;
        }
    }

    private static void keepRunning(ReplicationEnvironment env, PrintStream out) throws InterruptedException {
        out.println("Still running (--keep-running); Ctrl-C stops everything.");
        out.println("  site A  kafka " + env.siteA().bootstrapServers() + "   connect " + env.siteA().requireWorker().restUrl());
        out.println("  site B  kafka " + env.siteB().bootstrapServers() + "   connect " + env.siteB().requireWorker().restUrl());
        env.relays().values().forEach(r -> out.println("  " + r + "   http://" + r.adminAddress().getHostString() + ":"
                + r.adminAddress().getPort() + "/metrics"));
        for (LinkEmulator link : env.links()) {
            out.println("  link " + link + " bytes A->B " + link.bytesForwarded(LinkDirection.CLIENT_TO_TARGET));
        }
        var ingress = env.relay("a1").adminAddress();
        out.println("  why it batches and routes as it does: ./jetstream explain --connect "
                + env.siteA().requireWorker().restUrl() + "," + env.siteB().requireWorker().restUrl()
                + " --relay http://" + ingress.getHostString() + ":" + ingress.getPort());
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "jetstream-demo-stop"));
        stop.await();
    }
}
