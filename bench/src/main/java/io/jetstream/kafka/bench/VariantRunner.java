package io.jetstream.kafka.bench;

import io.jetstream.kafka.testkit.workload.ProducedLog;
import io.jetstream.kafka.testkit.workload.RecordFactory;
import io.jetstream.kafka.testkit.workload.VerificationReport;
import io.jetstream.kafka.testkit.workload.Workload;
import io.jetstream.kafka.testkit.workload.WorkloadSpec;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one variant through its phases on its own topic:
 * <ol>
 *   <li>deploy the replicator; warm-up at the latency phase's rate until every warm-up record is at B (this also
 *       waits out topic creation at B and the connectors' start);</li>
 *   <li>latency phase: {@code latencyRate} records/s for {@code latencyPhase}, the probe at B
 *       timing each record;</li>
 *   <li>backlog: pause the connector that reads site A, produce the backlog unthrottled (so the
 *       producer does not take CPU from the replicator), resume, and time the drain to the last
 *       record at B, reading uplink bytes and CPU at the resume and at the end;</li>
 *   <li>verify every record of the three runs at B, remove the connectors and both topics.</li>
 * </ol>
 * A failure is reported in the variant's result (with the processes' recent warnings), not thrown,
 * so that one failed variant does not lose the others.
 */
final class VariantRunner {

    private static final Logger log = LoggerFactory.getLogger(VariantRunner.class);
    private static final Duration WARMUP_TIMEOUT = Duration.ofSeconds(180);
    /** How long a variant's clean-up waits for the brokers to remove its topics' files. */
    private static final Duration TOPIC_DELETION_PATIENCE = Duration.ofSeconds(120);
    private static final int CPUS = Runtime.getRuntime().availableProcessors();

    private final BenchCluster cluster;
    private final Sampler sampler;
    private final BenchPlan plan;
    private final long ticksPerSecond;
    private final PrintStream out;
    private final AtomicLong recordBytesAtB;
    private final Path benchPauseLog;
    private final TaskMetricsReader taskMetrics;
    private final String topicPrefix;

    /**
     * {@code recordBytesAtB} counts record bytes every probe sees arrive at B (the sampler plots it); each
     * variant's topic is named {@code topicPrefix + variant id}: the grid runs every cell on the same
     * brokers and Connect workers, so each cell's topics get names of their own (a topic deleted moments before,
     * or a connector's stored offsets for a topic of the same name, must not meet the next cell's).
     */
    VariantRunner(BenchCluster cluster, Sampler sampler, BenchPlan plan, long ticksPerSecond, PrintStream out,
                  AtomicLong recordBytesAtB, String topicPrefix) {
        this.topicPrefix = topicPrefix;
        this.recordBytesAtB = recordBytesAtB;
        this.cluster = cluster;
        this.sampler = sampler;
        this.plan = plan;
        this.ticksPerSecond = ticksPerSecond;
        this.out = out;
        this.benchPauseLog = JvmPauses.logOwnPauses(cluster.workDir());
        this.taskMetrics = new TaskMetricsReader(cluster.workDir());
    }

    /** What one variant has measured so far; filled phase by phase, read once at the end. */
    private static final class Run {
        final Variant variant;
        final Replicator replicator;
        final String topic;
        final String destination;
        final long startNanos = System.nanoTime();
        final Map<String, Double> marks = new LinkedHashMap<>();
        final List<ProducedLog> produced = new ArrayList<>();
        VariantResult.LatencyPhase latency;
        VariantResult.BacklogPhase backlog;
        VariantResult.IdlePhase idle;
        VariantResult.Verification verification;
        List<double[]> cdf = List.of();
        List<double[]> latencyOverTime = List.of();
        List<VariantResult.Step> steps = List.of();
        EventsResult events;

        Run(Variant variant, Replicator replicator, String topicPrefix) {
            this.variant = variant;
            this.replicator = replicator;
            this.topic = topicPrefix + variant.id();
            this.destination = replicator.destinationTopic(topic);
        }

        void mark(String phase) {
            marks.put(phase, round((System.nanoTime() - startNanos) / 1e9));
        }
    }

    VariantResult run(Variant variant, Replicator replicator, String wireCodec) {
        Run run = new Run(variant, replicator, topicPrefix);
        String error = null;
        try {
            say(variant, "deploying");
            cluster.createTopic(cluster.bootstrapA(), run.topic, plan.partitions());
            replicator.deploy(run.topic);
            run.mark("deployed");
            if (io.jetstream.kafka.testkit.site.JavaProcess.recordingFlights()) {
                // a recorded run also writes the workers' client metrics (poll, fetch, batch and transaction sizes)
                cluster.pids().forEach((name, pid) -> {
                    if (name.startsWith("connect") || name.startsWith("mm2")) {
                        taskMetrics.attach(pid);
                    }
                });
            }
            try (ArrivalProbe probe = new ArrivalProbe(cluster.bootstrapB(), run.destination, recordBytesAtB)) {
                run.produced.add(warmUp(run, probe));
                // the grid's warm-up round settles the compilers of a cell's new JVMs whatever the plan's warm-up
                if (plan.warmup().compareTo(CompilerSettling.STEP) >= 0) {
                    run.produced.addAll(settle(run, probe, CompilerSettling.maxSteps()));
                    run.mark("compilers settled");
                }
                java.util.Optional<EventSchedule> schedule = plan.eventSchedule(variant.routes());
                if (schedule.isPresent()) {
                    run.mark(plan.load().id());
                    TimedEvents.Outcome outcome = new TimedEvents(cluster, taskMetrics, out).run(plan.load().id(),
                            schedule.get(), variant, replicator, run.topic, plan.partitions(), probe);
                    run.produced.add(outcome.produced());
                    run.events = outcome.result();
                    run.cdf = outcome.cdf();
                    run.latencyOverTime = outcome.latencyOverTime();
                    Double loadStart = run.marks.get(plan.load().id());
                    for (EventsResult.Event e : run.events.events()) {
                        run.marks.put(e.name(), round(loadStart + e.atS()));
                    }
                    run.mark("events done");
                } else if (!plan.rateSteps().isEmpty()) {
                    varyingRate(run, probe);
                    run.mark("steps done");
                } else {
                    run.mark("latency");
                    steadyLoad(run, probe);
                    if (!plan.idlePhase().isZero()) {
                        run.mark("idle");
                        idle(run);
                    }
                    run.mark("paused");
                    backlog(run, probe);
                    run.mark("drained");
                    if (Variants.JS_WARMUP_AGAIN.equals(variant.id()) && plan.warmup().compareTo(CompilerSettling.STEP) < 0) {
                        // the grid's second warm-up round: its deployment and drain set the compilers going again;
                        // let them settle before the first compared variant
                        run.produced.addAll(settle(run, probe, (int) (EnvironmentGrid.WARMUP_ROUND_SETTLING.toMillis()
                                / CompilerSettling.STEP.toMillis())));
                        run.mark("compilers settled");
                    }
                }
                run.verification = verify(run.destination, run.produced);
                say(variant, "verified: lost=" + run.verification.lost() + " duplicates="
                        + run.verification.duplicates() + " order=" + run.verification.order());
            }
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            error = e + " [connectors: " + replicator.states() + "]";
            log.error("variant {} failed", variant.id(), e);
            out.println("[" + variant.id() + "] FAILED: " + e);
            out.println("  recent warnings and errors:" + replicator.problems());
        } finally {
            cleanUp(variant, replicator, run.topic, run.destination);
        }
        VariantResult.Timeline timeline = Timelines.of(sampler.between(run.startNanos, System.nanoTime()),
                run.startNanos, ticksPerSecond, run.marks);
        return new VariantResult(variant.id(), variant.title(), variant.isJetStream() ? "jetstream" : "mirrormaker2",
                run.topic, run.destination, wireCodec, run.latency, run.backlog, run.verification,
                replicator.deployment(), timeline, run.cdf, run.latencyOverTime, error, run.steps, run.events, run.idle);
    }

    /** What one step of the varying-rate load left to evaluate once all its records arrived. */
    private record StepRun(RateStep step, ArrivalProbe.RunProgress progress, long records, long startNanos,
                           long endNanos, long startMillis, long endMillis, Window window, long batches,
                           double meanRecordBytes) {
    }

    /**
     * The varying-rate load: the plan's steps back to back on one topic (each its own producer run, so
     * that each step's records are timed apart), the sampler read and the ingress relay's batch count
     * taken at every step boundary; then every record awaited at B and each step's figures computed.
     */
    private void varyingRate(Run run, ArrivalProbe probe) throws Exception {
        List<RateStep> steps = plan.rateSteps();
        List<StepRun> done = new ArrayList<>();
        // the source tasks' batching decisions (JetStream's connect-A worker), for the report
        Long sourceWorker = run.variant.isJetStream() ? cluster.pids().get("connect-A") : null;
        if (sourceWorker != null && !taskMetrics.attach(sourceWorker)) {
            sourceWorker = null;
        }
        Reading previous = sampler.read();
        long batchesBefore = sum(run.replicator.routeBatches());
        long startMillis = System.currentTimeMillis();
        for (RateStep step : steps) {
            Workload producer = new Workload(spec(run.topic, plan.partitions(), step.records(), step.ratePerS(), plan.valueBytes()), cluster.bootstrapA());
            ArrivalProbe.RunProgress progress = probe.track(producer.runId(), true);
            say(run.variant, step.isBurst() ? String.format(Locale.ROOT, "step %s: a burst of %d records at %.0f/s",
                    step.name(), step.records(), step.ratePerS()) : String.format(Locale.ROOT, "step %s: %d s at %.0f records/s",
                    step.name(), step.duration().toSeconds(), step.ratePerS()));
            run.mark(step.name());
            long startNanos = System.nanoTime();
            long stepStartMillis = System.currentTimeMillis();
            ProducedLog log = producer.run();
            long endNanos = System.nanoTime();
            long endMillis = System.currentTimeMillis();
            Reading to = sampler.read();
            long batchesAfter = sum(run.replicator.routeBatches());
            run.produced.add(log);
            long sample = Math.min(100, Math.max(1, log.size()));
            done.add(new StepRun(step, progress, log.size(), startNanos, endNanos, stepStartMillis, endMillis,
                    Window.between(previous, to, ticksPerSecond), batchesAfter - batchesBefore,
                    recordBytes(producer, sample) / (double) sample));
            previous = to;
            batchesBefore = batchesAfter;
        }
        List<VariantResult.Step> results = new ArrayList<>();
        List<int[]> latencies = new ArrayList<>();
        List<long[]> arrivals = new ArrayList<>();
        for (StepRun s : done) {
            probe.awaitArrivals(run.variant.id() + " step " + s.step().name(), s.progress(), s.records(), plan.stallPatience(),
                    WARMUP_TIMEOUT);
            TaskMetricsReader.Decisions decisions = sourceWorker == null ? null
                    : taskMetrics.decisions(sourceWorker, JetStreamReplicator.sourceConnectorName(run.variant.id()),
                            s.startMillis(),
                            s.endMillis()).orElse(null);
            VariantResult.Step result = step(s, run.replicator.processes(), decisions);
            results.add(result);
            latencies.add(s.progress().latenciesMillis());
            arrivals.add(s.progress().arrivalsMillis());
            say(run.variant, String.format(Locale.ROOT, "step %s: offered %.0f/s, delivered %.0f/s%s, latency"
                    + " p50/p99 %d/%d ms, %.1f records per batch, %.2f replicator cores%s", result.name(),
                    result.offeredPerS(), result.deliveredPerS(), result.keptUp() ? "" : " (fell behind)",
                    result.latencyP50Ms(), result.latencyP99Ms(), result.recordsPerBatch(), result.replicatorCores(),
                    decisions == null ? "" : String.format(Locale.ROOT, "; tasks: batch cap %s records (max %s),"
                            + " linger %s ms", decisions.batchMaxRecordsMean(), decisions.batchMaxRecordsMax(),
                            decisions.lingerMsMean())));
        }
        run.steps = results;
        int[] allLatencies = latencies.stream().flatMapToInt(java.util.Arrays::stream).toArray();
        long[] allArrivals = arrivals.stream().flatMapToLong(java.util.Arrays::stream).toArray();
        run.cdf = LatencyStats.cdf(allLatencies, 400);
        run.latencyOverTime = LatencyStats.overTime(allArrivals, allLatencies, startMillis, 1000);
    }

    private VariantResult.Step step(StepRun s, List<String> replicatorProcesses,
                                    TaskMetricsReader.Decisions decisions) {
        RateStep step = s.step();
        LatencyStats stats = LatencyStats.of(s.progress().latenciesMillis());
        double produceSeconds = Math.max(1e-3, (s.endNanos() - s.startNanos()) / 1e9);
        double offered = step.isBurst() ? s.records() / produceSeconds : step.ratePerS();
        double nominalSeconds = step.isBurst() ? produceSeconds : step.duration().toMillis() / 1000.0;
        double arrivalSeconds = (s.progress().lastArrivalNanos() - s.progress().firstArrivalNanos()) / 1e9;
        double delivered = s.records() / Math.max(nominalSeconds, arrivalSeconds);
        boolean keptUp = step.isBurst() || delivered >= 0.95 * offered;
        Window w = s.window();
        double arrivedRecords = w.recordBytesAtB() / Math.max(1.0, s.meanRecordBytes());
        double perBatch = s.batches() > 0 ? arrivedRecords / s.batches() : 0;
        return new VariantResult.Step(step.name(), step.isBurst(), s.records(), round(offered), round(delivered),
                keptUp, stats.p50(), stats.p99(), stats.max(), round(stats.mean()), round(w.seconds()),
                round(w.cpuSecondsOf(replicatorProcesses) / w.seconds()), round(w.machineBusyCores()),
                round(w.wireMbPerSecond()), round(perBatch), decisions);
    }

    private static long sum(Map<String, Long> values) {
        return values.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Warms both brokers before the first variant, so that whichever variant runs first does not
     * pay for their JIT warm-up alone (brokers are shared by all variants, their replicators are
     * not): for the warm-up's duration, records at the warm-up rate are produced at each site and
     * read back there (read_committed, like the probe).
     */
    void warmBrokers() throws InterruptedException {
        if (plan.warmup().isZero()) {
            return;
        }
        try {
            warmBothBrokers();
        } catch (ExecutionException | TimeoutException e) {
            log.warn("broker warm-up skipped: {}", e.toString());
        }
    }

    private void warmBothBrokers() throws InterruptedException, ExecutionException, TimeoutException {
        long records = Math.max(50, Math.round(plan.warmupRate() * plan.warmup().toMillis() / 1000.0));
        out.printf(Locale.ROOT, "Warming both brokers: %d records at %d/s at each site%n", records,
                Math.round(plan.warmupRate()));
        String topic = "bench.broker-warm-up";
        List<String> sites = List.of(cluster.bootstrapA(), cluster.bootstrapB());
        List<Thread> threads = new ArrayList<>();
        for (String bootstrap : sites) {
            // the default count: the warm-up compiles the brokers' paths; thousands of partitions
            // would only load the controllers (a 1,200-partition create timed out a broker's heartbeat)
            cluster.createTopic(bootstrap, topic, BenchPlan.PARTITIONS);
            Workload producer = new Workload(spec(topic, BenchPlan.PARTITIONS, records, plan.warmupRate(),
                    plan.valueBytes()), bootstrap);
            threads.add(new Thread(() -> readBack(bootstrap, topic, records), "bench-broker-warm-up-reader"));
            threads.add(new Thread(() -> {
                try {
                    producer.run();
                } catch (Exception e) {
                    log.warn("broker warm-up: producing failed: {}", e.toString());
                }
            }, "bench-broker-warm-up-producer"));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }
        for (String bootstrap : sites) {
            cluster.deleteTopics(bootstrap, List.of(topic));
        }
    }

    /** Reads {@code topic} back (read_committed, like the probe) until {@code records} came or the warm-up is long over. */
    private void readBack(String bootstrap, String topic, long records) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < BenchPlan.PARTITIONS; p++) {
            partitions.add(new TopicPartition(topic, p));
        }
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed", ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long read = 0;
            long deadline = System.nanoTime() + plan.warmup().plusSeconds(60).toNanos();
            while (read < records && System.nanoTime() < deadline) {
                read += consumer.poll(Duration.ofMillis(200)).count();
            }
        } catch (RuntimeException e) {
            log.warn("broker warm-up: reading back failed: {}", e.toString());
        }
    }

    private ProducedLog warmUp(Run run, ArrivalProbe probe) throws Exception {
        if (plan.warmupBurstBytes() > 0) {
            run.produced.add(warmUpBurst(run, probe));
        }
        long records = Math.max(50, Math.round(plan.warmupRate() * plan.warmup().toMillis() / 1000.0));
        Workload warm = new Workload(spec(run.topic, plan.partitions(), records, plan.warmupRate(), plan.valueBytes()), cluster.bootstrapA());
        ArrivalProbe.RunProgress progress = probe.track(warm.runId(), false);
        say(run.variant, "warm-up: " + records + " records at " + Math.round(plan.warmupRate()) + "/s");
        ProducedLog log = warm.run();
        probe.awaitArrivals(run.variant.id() + " warm-up", progress, log.size(), WARMUP_TIMEOUT, WARMUP_TIMEOUT);
        return log;
    }

    /**
     * After the warm-up, more of it a {@link CompilerSettling#STEP} at a time until the JIT compilers of
     * the variant's processes and of both brokers are quiet ({@link CompilerSettling}), so that the
     * phases measure replication, not compilation, whichever variant runs first.
     */
    private List<ProducedLog> settle(Run run, ArrivalProbe probe, int maxSteps) throws Exception {
        List<String> watched = new ArrayList<>(run.replicator.processes());
        watched.add("broker-A");
        watched.add("broker-B");
        CompilerSettling settling = new CompilerSettling(watched);
        List<ProducedLog> logs = new ArrayList<>();
        long records = Math.max(1, Math.round(plan.warmupRate() * CompilerSettling.STEP.toMillis() / 1000.0));
        Map<String, Double> busy = Map.of();
        int steps = 0;
        while (steps < maxSteps) {
            Workload step = new Workload(spec(run.topic, plan.partitions(), records, plan.warmupRate(), plan.valueBytes()),
                    cluster.bootstrapA());
            ArrivalProbe.RunProgress progress = probe.track(step.runId(), false);
            Reading from = sampler.read();
            ProducedLog log = step.run();
            Reading to = sampler.read();
            logs.add(log);
            probe.awaitArrivals(run.variant.id() + " warm-up (compilers)", progress, log.size(), plan.stallPatience(),
                    WARMUP_TIMEOUT);
            steps++;
            busy = settling.stillCompiling(Window.between(from, to, ticksPerSecond));
            if (busy.isEmpty()) {
                break;
            }
        }
        say(run.variant, CompilerSettling.summary(steps, busy));
        return logs;
    }

    /**
     * The warm-up's burst: records produced unthrottled while the replicator runs, then all awaited at
     * B. A JVM compiles what runs hot; at the latency phase's rate alone, the C2 compiler of each
     * replicator JVM still took 0.1-0.2 cores 70 s into the warm-up (per-thread /proc sampling), and
     * that CPU was taken from the phase being measured. Scaled like the backlog by the variant's share.
     */
    private ProducedLog warmUpBurst(Run run, ArrivalProbe probe) throws Exception {
        long records = plan.recordsFor(plan.warmupBurstBytes() * run.variant.backlogShare());
        Workload burst = new Workload(backlogSpec(run.topic, plan.partitions(), records, plan.valueBytes()), cluster.bootstrapA());
        ArrivalProbe.RunProgress progress = probe.track(burst.runId(), false);
        say(run.variant, "warm-up: a burst of " + records + " records");
        ProducedLog log = burst.run();
        Duration timeout = Duration.ofSeconds(Math.max(300, plan.warmupBurstBytes() / 250_000));
        probe.awaitArrivals(run.variant.id() + " warm-up burst", progress, log.size(), WARMUP_TIMEOUT, timeout);
        return log;
    }

    /**
     * With {@code -Djetstream.bench.latency-dump=DIR} (in {@code JETSTREAM_JAVA_OPTS}), writes each
     * record of the latency phase as {@code arrival-epoch-ms,latency-ms} to
     * {@code DIR/<variant>-latencies.csv}, in arrival order: to find the moment of a stall and look it
     * up in the processes' logs. A diagnostic; a write failure is logged and the run goes on.
     */
    private void dumpLatencies(String variant, long[] arrivals, int[] latencies) {
        String dir = System.getProperty("jetstream.bench.latency-dump");
        if (dir == null || dir.isBlank()) {
            return;
        }
        Path file = Path.of(dir).resolve(variant + "-latencies.csv");
        StringBuilder csv = new StringBuilder(latencies.length * 18);
        for (int i = 0; i < latencies.length; i++) {
            csv.append(arrivals[i]).append(',').append(latencies[i]).append('\n');
        }
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, csv);
            log.info("{}: latencies written to {}", variant, file);
        } catch (IOException e) {
            log.warn("{}: could not write {}: {}", variant, file, e.toString());
        }
    }

    /** The latency phase: the steady rate, every record timed at B, CPU over the producing window. */
    private void steadyLoad(Run run, ArrivalProbe probe) throws Exception {
        long records = Math.round(plan.latencyRate() * plan.latencyPhase().toMillis() / 1000.0);
        Workload steady = new Workload(spec(run.topic, plan.partitions(), records, plan.latencyRate(), plan.valueBytes()), cluster.bootstrapA());
        ArrivalProbe.RunProgress progress = probe.track(steady.runId(), true);
        say(run.variant, String.format(Locale.ROOT, "latency phase: %d s at %.0f records/s",
                plan.latencyPhase().toSeconds(), plan.latencyRate()));
        Reading from = sampler.read();
        long startMillis = System.currentTimeMillis();
        ProducedLog log = steady.run();
        Reading to = sampler.read();
        run.produced.add(log);
        probe.awaitArrivals(run.variant.id() + " latency phase", progress, log.size(), plan.stallPatience(),
                max(WARMUP_TIMEOUT, plan.stallPatience().plusSeconds(60)));
        Map<String, JvmPauses.Pauses> pauses = pauses(startMillis, System.currentTimeMillis());
        int[] latencies = progress.latenciesMillis();
        dumpLatencies(run.variant.id(), progress.arrivalsMillis(), latencies);
        run.cdf = LatencyStats.cdf(latencies, 400);
        run.latencyOverTime = LatencyStats.overTime(progress.arrivalsMillis(), latencies, startMillis, 1000);
        run.latency = latencyPhase(log.size(), LatencyStats.of(latencies), Window.between(from, to, ticksPerSecond),
                run.replicator.processes(), pauses);
        say(run.variant, String.format(Locale.ROOT, "latency p50/p99/p999 %d/%d/%d ms", run.latency.latencyP50Ms(),
                run.latency.latencyP99Ms(), run.latency.latencyP999Ms()));
    }

    /**
     * The idle phase: with every record of the latency phase at B, nothing is offered for the plan's idle
     * duration (a measuring window, not a wait for a condition) and the CPU of every process is read.
     */
    private void idle(Run run) throws InterruptedException {
        say(run.variant, "idle: " + plan.idlePhase().toSeconds() + " s without records");
        Reading from = sampler.read();
        Thread.sleep(plan.idlePhase().toMillis());
        Window window = Window.between(from, sampler.read(), ticksPerSecond);
        run.idle = new VariantResult.IdlePhase(round(window.seconds()), rounded(window.cores()),
                round(window.cpuSecondsOf(run.replicator.processes()) / window.seconds()),
                round(window.machineBusyCores()));
        say(run.variant, String.format(Locale.ROOT, "idle: %.3f replicator cores %s", run.idle.replicatorCores(),
                run.idle.coresPerProcess()));
    }

    /**
     * The backlog phase: pause, produce unthrottled, resume, and time the drain to the last record at
     * B; uplink bytes, CPU and route bytes from the resume to the end of the drain.
     */
    private void backlog(Run run, ArrivalProbe probe) throws Exception {
        run.replicator.pause();
        long records = plan.recordsFor(plan.backlogBytes() * run.variant.backlogShare());
        Workload burst = new Workload(backlogSpec(run.topic, plan.partitions(), records, plan.valueBytes()), cluster.bootstrapA());
        ArrivalProbe.RunProgress progress = probe.track(burst.runId(), false);
        long produceStart = System.nanoTime();
        ProducedLog log = burst.run();
        run.produced.add(log);
        long recordBytes = recordBytes(burst, log.size());
        say(run.variant, String.format(Locale.ROOT, "backlog: %.1f MB produced in %.1f s while paused; draining",
                recordBytes / 1e6, (System.nanoTime() - produceStart) / 1e9));
        Map<String, Long> routesBefore = run.replicator.routeBytes();
        Reading resumeReading = sampler.read();
        long resumeNanos = System.nanoTime();
        run.mark("resumed");
        run.replicator.resume();
        Duration timeout = Duration.ofSeconds(Math.max(300, recordBytes / 250_000));
        probe.awaitArrivals(run.variant.id() + " drain", progress, log.size(), plan.stallPatience(), timeout);
        Reading endReading = sampler.read();
        Map<String, Long> routeBytes = difference(run.replicator.routeBytes(), routesBefore);
        double drainSeconds = Math.max(1e-3, (progress.lastArrivalNanos() - resumeNanos) / 1e9);
        run.backlog = backlogPhase(log.size(), recordBytes, drainSeconds,
                Window.between(resumeReading, endReading, ticksPerSecond), routeBytes, run.replicator.processes());
        say(run.variant, String.format(Locale.ROOT,
                "drained in %.1f s: %.2f MB/s of records, %.2f MB/s on the wire %s, %.2f replicator cores",
                drainSeconds, run.backlog.throughputMbS(), run.backlog.wireMbS(),
                rounded(run.backlog.wirePerUplinkMbS()), run.backlog.replicatorCores()));
    }

    /** The benchmark's records: 1 KiB of random A-Z, uncompressed at the source, stamped when sent. */
    static WorkloadSpec spec(String topic, int partitions, long records, double rate) {
        return spec(topic, partitions, records, rate, BenchPlan.VALUE_BYTES);
    }

    /** The same with values of {@code valueBytes} ({@code --record-bytes}). */
    static WorkloadSpec spec(String topic, int partitions, long records, double rate, int valueBytes) {
        return base(topic, partitions, records, valueBytes).recordsPerSecond(rate).build();
    }

    /**
     * The backlog's producer: large batches, each partition's batch no larger than its share of a
     * 64 MiB buffer (1 MiB up to 32 partitions, 32 KiB at 1,200, 16 KiB at least), so that many
     * partitions do not exhaust the buffer with half-filled batches.
     */
    static WorkloadSpec backlogSpec(String topic, int partitions, long records, int valueBytes) {
        long buffer = 64L << 20;
        int batch = (int) Math.max(16 << 10, Math.min(1 << 20, Integer.highestOneBit((int) (buffer / 2 / partitions))));
        return base(topic, partitions, records, valueBytes)
                .producerProperty(ProducerConfig.BATCH_SIZE_CONFIG, batch)
                .producerProperty(ProducerConfig.LINGER_MS_CONFIG, 10)
                .producerProperty(ProducerConfig.BUFFER_MEMORY_CONFIG, buffer)
                .build();
    }

    private static WorkloadSpec.Builder base(String topic, int partitions, long records, int valueBytes) {
        return WorkloadSpec.builder(topic, partitions).records(records).valueBytes(valueBytes)
                .nullKeyEvery(0).nullValueEvery(0).extraHeaders(0).compressionType("none")
                .valueContent(WorkloadSpec.ValueContent.RANDOM_LETTERS).wallClockTimestamps(true);
    }

    private static long recordBytes(Workload workload, long records) {
        RecordFactory factory = new RecordFactory(workload.spec(), workload.runId(), 0);
        long bytes = 0;
        for (long seq = 0; seq < records; seq++) {
            bytes += factory.recordBytes(seq);
        }
        return bytes;
    }

    /**
     * Stop-the-world pauses of every JVM of the benchmark (brokers, workers, relays, the bench's own)
     * that ended between two wall-clock times; a JVM whose log cannot be read is left out.
     */
    private Map<String, JvmPauses.Pauses> pauses(long fromMillis, long toMillis) {
        Map<String, Path> logs = new LinkedHashMap<>(cluster.safepointLogs());
        if (benchPauseLog != null) {
            logs.put("bench-jvm", benchPauseLog);
        }
        Map<String, JvmPauses.Pauses> pauses = new TreeMap<>();
        logs.forEach((process, file) -> {
            try {
                pauses.put(process, JvmPauses.read(file, fromMillis, toMillis));
            } catch (IOException e) {
                log.debug("No safepoint log of {} at {}: {}", process, file, e.toString());
            }
        });
        return pauses;
    }

    private VariantResult.LatencyPhase latencyPhase(long records, LatencyStats stats, Window window,
                                                    List<String> replicatorProcesses,
                                                    Map<String, JvmPauses.Pauses> pauses) {
        double capacity = cluster.network().uplinkBytesPerSecond() / 1e6;
        Map<String, Double> fill = new TreeMap<>();
        window.uplinkMbPerSecond().forEach((uplink, rate) -> fill.put(uplink, round(rate / capacity)));
        return new VariantResult.LatencyPhase(records, plan.latencyRate(), round(window.seconds()), stats.p50(),
                stats.p99(), stats.p999(), stats.max(), round(stats.mean()), rounded(window.cores()),
                rounded(window.jitCores()), round(window.cpuSecondsOf(replicatorProcesses) / window.seconds()),
                round(window.machineBusyCores()), round(window.wireMbPerSecond()), pauses,
                Bottleneck.of(fill, window.machineBusyCores(), CPUS, window.cores(), window.jitCores())
                        + Bottleneck.pauses(pauses));
    }

    private VariantResult.BacklogPhase backlogPhase(long records, long recordBytes, double drainSeconds,
                                                    Window window, Map<String, Long> routeBytes,
                                                    List<String> replicatorProcesses) {
        double capacity = cluster.network().uplinkBytesPerSecond() / 1e6;
        Map<String, Double> fill = new TreeMap<>();
        window.uplinkMbPerSecond().forEach((uplink, rate) -> fill.put(uplink, round(rate / capacity)));
        double replicatorCpu = window.cpuSecondsOf(replicatorProcesses);
        return new VariantResult.BacklogPhase(records, recordBytes, round(drainSeconds),
                round(recordBytes / 1e6 / drainSeconds), round(records / drainSeconds), round(window.wireMbPerSecond()),
                rounded(window.uplinkMbPerSecond()), window.uplinkBytes(), fill, routeBytes,
                round((double) window.wireBytes() / records), rounded(window.cores()), rounded(window.jitCores()),
                round(replicatorCpu / window.seconds()), round(window.machineBusyCores()),
                Math.round(replicatorCpu / (recordBytes / 1e6) * 10_000) / 10_000.0,
                Bottleneck.of(fill, window.machineBusyCores(), CPUS, window.cores(), window.jitCores()));
    }

    private VariantResult.Verification verify(String destination, List<ProducedLog> runs) throws Exception {
        RunVerifier.Outcome outcome = RunVerifier.verify(cluster.bootstrapB(), destination, runs,
                Duration.ofSeconds(300));
        List<String> lines = new ArrayList<>();
        long delivered = 0;
        long fieldMismatches = 0;
        for (VerificationReport report : outcome.reports()) {
            lines.add(report.toString());
            delivered += report.delivered();
            fieldMismatches += report.fieldMismatches();
        }
        return new VariantResult.Verification(outcome.expected(), delivered, outcome.lost(), outcome.duplicates(),
                outcome.orderOk() ? "ok" : "violated", fieldMismatches, lines);
    }

    private void cleanUp(Variant variant, Replicator replicator, String topic, String destination) {
        try {
            replicator.undeploy();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            log.warn("removing the connectors of {} failed: {}", variant.id(), e.toString());
        }
        cluster.deleteTopics(cluster.bootstrapA(), List.of(topic));
        cluster.deleteTopics(cluster.bootstrapB(), List.of(destination));
        try {
            cluster.awaitTopicFilesGone(topic, destination, TOPIC_DELETION_PATIENCE);
            cluster.collectGarbage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Map<String, Long> difference(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> diff = new TreeMap<>();
        after.forEach((key, value) -> diff.put(key, value - before.getOrDefault(key, 0L)));
        return diff;
    }

    private void say(Variant variant, String message) {
        out.println("[" + variant.id() + "] " + message);
        out.flush();
    }

    static double round(double value) {
        return Math.round(value * 1000) / 1000.0;
    }

    static Map<String, Double> rounded(Map<String, Double> values) {
        Map<String, Double> out = new TreeMap<>();
        values.forEach((key, value) -> out.put(key, round(value)));
        return out;
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
