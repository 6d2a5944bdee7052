package io.jetstream.kafka.bench;

import io.jetstream.kafka.testkit.workload.ProducedLog;
import io.jetstream.kafka.testkit.workload.Workload;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a scenario with events on one variant: the schedule's steady load on the variant's topic while
 * the events happen at their times ({@link EventSchedule}), the ingress relay's route counters read
 * every 500 ms and the source tasks' metrics written by {@link TaskMetricsAgent}; then every record
 * awaited at B and each event's figures computed ({@link EventAnalysis}). Whatever the events changed
 * (a killed relay, a lowered uplink) is put back before this returns, also on failure.
 */
final class TimedEvents {

    private static final Logger log = LoggerFactory.getLogger(TimedEvents.class);
    private static final long WINDOW_MILLIS = 1000;
    private static final Duration TIMEOUT = Duration.ofSeconds(300);

    private final BenchCluster cluster;
    private final TaskMetricsReader taskMetrics;
    private final PrintStream out;

    TimedEvents(BenchCluster cluster, TaskMetricsReader taskMetrics, PrintStream out) {
        this.cluster = cluster;
        this.taskMetrics = taskMetrics;
        this.out = out;
    }

    /** What the load left: its producer's log (for verification), the figures, the latency series. */
    record Outcome(ProducedLog produced, EventsResult result, List<double[]> cdf, List<double[]> latencyOverTime) {
    }

    /** The time an event's action started and how long it took, in ms since the epoch. */
    private record Applied(BenchEvent event, long startMillis, long endMillis) {
    }

    Outcome run(String scenario, EventSchedule schedule, Variant variant, Replicator replicator, String topic,
                int partitions, ArrivalProbe probe) throws Exception {
        Long sourceWorker = cluster.pids().get("connect-A");
        if (sourceWorker != null && !taskMetrics.attach(sourceWorker)) {
            sourceWorker = null;
        }
        long records = Math.round(schedule.ratePerS() * schedule.duration().toMillis() / 1000.0);
        Workload producer = new Workload(VariantRunner.spec(topic, partitions, records, schedule.ratePerS()), cluster.bootstrapA());
        ArrivalProbe.RunProgress progress = probe.track(producer.runId(), true);
        List<EventAnalysis.RoutePoint> routePoints = new CopyOnWriteArrayList<>();
        ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "bench-route-poller");
            thread.setDaemon(true);
            return thread;
        });
        List<Applied> applied = new ArrayList<>();
        say(variant, String.format(Locale.ROOT, "%s: %.0f records/s for %d s; events %s", scenario,
                schedule.ratePerS(), schedule.duration().toSeconds(), schedule.events().stream()
                        .map(e -> e.name() + "@" + e.at().toSeconds() + "s").toList()));
        long originMillis = System.currentTimeMillis();
        long originNanos = System.nanoTime();
        ProducedLog produced;
        try {
            poller.scheduleAtFixedRate(() -> routePoints.add(new EventAnalysis.RoutePoint(System.currentTimeMillis(),
                    replicator.routeBytes())), 0, 500, TimeUnit.MILLISECONDS);
            producer.start();
            for (BenchEvent event : schedule.events()) {
                waitUntil(originNanos + event.at().toNanos());
                long start = System.currentTimeMillis();
                say(variant, String.format(Locale.ROOT, "t=%.1f s: %s", (start - originMillis) / 1000.0,
                        describe(event)));
                apply(event, replicator);
                applied.add(new Applied(event, start, System.currentTimeMillis()));
            }
            produced = producer.awaitCompletion(schedule.duration().plus(TIMEOUT));
        } finally {
            producer.close();
            poller.shutdownNow();
            restore(applied);
        }
        probe.awaitArrivals(variant.id() + " " + scenario, progress, produced.size(), BenchPlan.STALL, TIMEOUT);
        List<TaskMetricsReader.Sample> samples = sourceWorker == null ? List.of() : readSamples(sourceWorker);
        EventsResult result = analyse(scenario, schedule, applied, originMillis, samples,
                JetStreamReplicator.sourceConnectorName(variant.id()), routePoints, progress);
        for (EventsResult.Event e : result.events()) {
            say(variant, line(e));
        }
        int[] latencies = progress.latenciesMillis();
        return new Outcome(produced, result, LatencyStats.cdf(latencies, 400),
                LatencyStats.overTime(progress.arrivalsMillis(), latencies, originMillis, 1000));
    }

    /** The action of one event; a new kind of event adds its case here. */
    private void apply(BenchEvent event, Replicator replicator) throws IOException, InterruptedException,
            TimeoutException {
        switch (event.kind()) {
            case RESTART_TASKS -> replicator.restartTasks();
            case KILL_RELAY -> cluster.killRelay(event.host());
            case START_RELAY -> cluster.restartRelay(event.host());
            case SET_UPLINK_RATE -> cluster.network().setUplinkRate(event.host(), event.value());
            case SET_EXTRA_DELAY -> cluster.network().setExtraDelay(event.host(), event.extraDelay());
        }
    }

    /** Puts back what the events changed and did not put back themselves: relays down, uplinks and delays changed. */
    private void restore(List<Applied> applied) {
        for (Applied a : applied) {
            BenchEvent event = a.event();
            try {
                if (event.kind() == BenchEvent.Kind.KILL_RELAY && !cluster.relayRunning(event.host())) {
                    cluster.restartRelay(event.host());
                } else if (event.kind() == BenchEvent.Kind.SET_UPLINK_RATE) {
                    long shipped = cluster.network().uplinkBytesPerSecond() * 8;
                    cluster.network().setUplinkRate(event.host(), shipped);
                } else if (event.kind() == BenchEvent.Kind.SET_EXTRA_DELAY) {
                    cluster.network().setExtraDelay(event.host(), Duration.ZERO);
                }
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                log.warn("could not undo event {}: {}", event.name(), e.toString());
            }
        }
    }

    private List<TaskMetricsReader.Sample> readSamples(long pid) {
        try {
            return Files.exists(taskMetrics.file(pid)) ? TaskMetricsReader.parse(Files.readAllLines(taskMetrics.file(pid)))
                    : List.of();
        } catch (IOException e) {
            log.warn("task metrics unreadable: {}", e.toString());
            return List.of();
        }
    }

    private static EventsResult analyse(String scenario, EventSchedule schedule, List<Applied> applied,
                                        long originMillis, List<TaskMetricsReader.Sample> samples, String connector,
                                        List<EventAnalysis.RoutePoint> routePoints,
                                        ArrivalProbe.RunProgress progress) {
        double windowS = WINDOW_MILLIS / 1000.0;
        double endS = schedule.duration().toMillis() / 1000.0;
        List<double[]> perBatch = EventAnalysis.recordsPerBatch(samples, connector, originMillis, WINDOW_MILLIS);
        TreeMap<Double, Map<String, Double>> shares = EventAnalysis.routeShares(routePoints, originMillis,
                WINDOW_MILLIS, EventAnalysis.SHARE_WINDOWS);
        long[] arrivals = progress.arrivalsMillis();
        int[] latencies = progress.latenciesMillis();
        List<EventsResult.Event> events = new ArrayList<>();
        Map<String, Double> steadyBeforeKill = new TreeMap<>();
        int within = 0;
        int judged = 0;
        for (int i = 0; i < applied.size(); i++) {
            Applied a = applied.get(i);
            BenchEvent event = a.event();
            double atS = (a.startMillis() - originMillis) / 1000.0;
            double untilS = i + 1 < applied.size() ? (applied.get(i + 1).startMillis() - originMillis) / 1000.0 : endS;
            double actionS = (a.endMillis() - a.startMillis()) / 1000.0;
            long windowEnd = originMillis + Math.round(untilS * 1000);
            double delivered = count(arrivals, a.startMillis(), windowEnd) / Math.max(1e-3, untilS - atS);
            double kept = delivered / schedule.ratePerS();
            EventsResult.Event result;
            if (event.kind().disruption()) {
                EventAnalysis.Recovery r = EventAnalysis.recovery(perBatch, atS, untilS, windowS);
                Double before = r.before();
                if (event.kind() == BenchEvent.Kind.KILL_RELAY) {
                    steadyBeforeKill.put(event.host(), before);
                } else if (event.kind() == BenchEvent.Kind.START_RELAY && steadyBeforeKill.get(event.host()) != null) {
                    // the steady value is the one before the relay was killed, not the outage's
                    before = steadyBeforeKill.get(event.host());
                    r = EventAnalysis.recovery(withSteady(perBatch, atS, windowS, before), atS, untilS, windowS);
                    r = new EventAnalysis.Recovery(before, r.rightAfter(), r.after(), r.recoveryS());
                }
                long latencyTo = r.recoveryS() == null ? windowEnd
                        : a.startMillis() + Math.round(Math.max(1, r.recoveryS()) * 1000);
                LatencyStats stats = LatencyStats.of(select(arrivals, latencies, a.startMillis(), latencyTo));
                Boolean met = r.recoveryS() != null && r.recoveryS() <= EventsResult.RECOVERY_TARGET_S;
                judged++;
                within += met ? 1 : 0;
                result = new EventsResult.Event(event.name(), kind(event), event.host(), r3(atS), r3(untilS),
                        r3(actionS), r.before(), r.rightAfter(), r.after(), r.recoveryS(), null, null, null, null,
                        null, null, null, r3(delivered), r3(kept), stats.p50(), stats.p99(),
                        EventsResult.RECOVERY_TARGET_S, met);
            } else {
                String route = EventSchedule.routeOf(event.host());
                Map<String, Double> best = schedule.bestSplitAfter(event);
                Double toMatch = EventAnalysis.timeToMatch(shares, best, atS, untilS, windowS);
                double settledFrom = toMatch != null ? atS + toMatch : atS + EventsResult.CONVERGENCE_TARGET_S;
                List<Double> routeSeries = shares.subMap(atS, true, untilS, false).values().stream()
                        .map(s -> s.getOrDefault(route, 0.0)).toList();
                int flaps = EventAnalysis.flaps(routeSeries);
                LatencyStats stats = LatencyStats.of(select(arrivals, latencies, a.startMillis(), windowEnd));
                Boolean met = toMatch != null && toMatch <= EventsResult.CONVERGENCE_TARGET_S && flaps <= 1;
                judged++;
                within += met ? 1 : 0;
                result = new EventsResult.Event(event.name(), kind(event), event.host(), r3(atS), r3(untilS),
                        r3(actionS), null, null, null, null, route,
                        EventAnalysis.meanShare(shares, route, atS - EventAnalysis.STEADY_SECONDS, atS),
                        EventAnalysis.meanShare(shares, route, settledFrom, untilS), best,
                        EventAnalysis.meanMatch(shares, best, settledFrom, untilS), toMatch, flaps, r3(delivered),
                        r3(kept), stats.p50(), stats.p99(), EventsResult.CONVERGENCE_TARGET_S, met);
            }
            events.add(result);
        }
        Map<String, List<double[]>> routeSeries = new TreeMap<>();
        shares.forEach((t, split) -> split.forEach((route, share) ->
                routeSeries.computeIfAbsent(route, r -> new ArrayList<>()).add(new double[] {t, r3(share)})));
        List<double[]> perBatchRounded = perBatch.stream().map(p -> new double[] {p[0], r3(p[1]), p[2]}).toList();
        LatencyStats all = LatencyStats.of(latencies);
        return new EventsResult(scenario, schedule.ratePerS(), endS, events, perBatchRounded, routeSeries, all.p50(),
                all.p99(), within, judged);
    }

    /**
     * The series with one synthetic window just before the window of {@code atS} holding {@code steady}, so
     * that {@link EventAnalysis#recovery} measures against it (a relay's start: the steady value before the
     * outage).
     */
    private static List<double[]> withSteady(List<double[]> series, double atS, double windowS, double steady) {
        double eventWindowS = EventAnalysis.windowStart(atS, windowS);
        List<double[]> out = new ArrayList<>();
        out.add(new double[] {eventWindowS - windowS, steady, 1});
        series.stream().filter(p -> p[0] >= eventWindowS).forEach(out::add);
        return out;
    }

    private static long count(long[] arrivals, long fromMillis, long toMillis) {
        long n = 0;
        for (long t : arrivals) {
            if (t >= fromMillis && t < toMillis) {
                n++;
            }
        }
        return n;
    }

    private static int[] select(long[] arrivals, int[] latencies, long fromMillis, long toMillis) {
        return java.util.stream.IntStream.range(0, arrivals.length)
                .filter(i -> arrivals[i] >= fromMillis && arrivals[i] < toMillis).map(i -> latencies[i]).toArray();
    }

    private static String kind(BenchEvent event) {
        return event.kind().name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private static String describe(BenchEvent event) {
        return switch (event.kind()) {
            case RESTART_TASKS -> "restarting the source-site tasks (Connect REST)";
            case KILL_RELAY -> "killing relay " + event.host();
            case START_RELAY -> "starting relay " + event.host() + " again";
            case SET_UPLINK_RATE -> String.format(Locale.ROOT, "uplink of %s to %.1f Mbit/s", event.host(),
                    event.value() / 1e6);
            case SET_EXTRA_DELAY -> String.format(Locale.ROOT, "packets from %s to site B %d ms longer one way",
                    event.host(), event.value());
        };
    }

    static String line(EventsResult.Event e) {
        if (e.route() == null) {
            return String.format(Locale.ROOT, "%s at %.1f s: records per batch %s before, %s right after, %s after;"
                    + " recovery %s s (target %.0f s: %s); latency p50/p99 %d/%d ms; delivered %.0f/s",
                    e.name(), e.atS(), e.recordsPerBatchBefore(), e.recordsPerBatchRightAfter(),
                    e.recordsPerBatchAfter(), e.recoveryS() == null ? "never" : e.recoveryS(), e.targetS(),
                    Boolean.TRUE.equals(e.withinTarget()) ? "met" : "not met", e.latencyP50Ms(), e.latencyP99Ms(),
                    e.deliveredPerS());
        }
        return String.format(Locale.ROOT, "%s at %.1f s: share of %s %s before, %s after (best static %s); match %s,"
                + " reached 95%% after %s s (target %.0f s: %s), %d flaps; throughput kept %.2f; latency p50/p99"
                + " %d/%d ms", e.name(), e.atS(), e.route(), e.shareBefore(), e.shareAfter(),
                e.bestSplit().get(e.route()), e.matchAfter(), e.timeToMatchS() == null ? "never" : e.timeToMatchS(),
                e.targetS(), Boolean.TRUE.equals(e.withinTarget()) ? "met" : "not met", e.flaps(), e.throughputKept(),
                e.latencyP50Ms(), e.latencyP99Ms());
    }

    private static void waitUntil(long nanos) throws InterruptedException {
        long left;
        while ((left = nanos - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(Math.min(left, 100_000_000L));
        }
    }

    private void say(Variant variant, String message) {
        out.println("[" + variant.id() + "] " + message);
        out.flush();
    }

    private static double r3(double value) {
        return EventAnalysis.round(value);
    }
}
