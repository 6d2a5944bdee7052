package io.jetstream.kafka.bench;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The console side of a result: the summary table and the closing {@code RESULT} line, and the
 * choice of the headline variant whose figures go to the result's top level.
 */
final class BenchReport {

    private BenchReport() {
    }

    /** JetStream with three routes and shipped defaults if it ran, else the first JetStream variant, else the first. */
    static Optional<VariantResult> headline(List<VariantResult> results) {
        for (String id : List.of(Variants.JS_3_ROUTES, Variants.JS_1_ROUTE, Variants.JS_3_ROUTES_ZSTD,
                Variants.JS_1_ROUTE_ZSTD)) {
            Optional<VariantResult> found = results.stream().filter(r -> r.id().equals(id)).findFirst();
            if (found.isPresent()) {
                return found;
            }
        }
        return results.stream().findFirst();
    }

    /**
     * {@code RESULT scenario=wan variants=2 events=... delivered=... lost=0 duplicates=0 order=ok
     * throughput_mb_s=... wire_mb_s=... latency_p50_ms=... latency_p99_ms=... <ratios> network=...}:
     * the sums over every variant, the headline's figures and the ratios.
     */
    static String resultLine(String scenario, List<VariantResult> results, Optional<VariantResult> headline,
                             Map<String, Double> ratios, String network) {
        long events = 0;
        long delivered = 0;
        long lost = 0;
        long duplicates = 0;
        boolean order = true;
        int failed = 0;
        for (VariantResult v : results) {
            if (v.verification() == null) {
                failed++;
                continue;
            }
            events += v.verification().expected();
            delivered += v.verification().delivered();
            lost += v.verification().lost();
            duplicates += v.verification().duplicates();
            order &= "ok".equals(v.verification().order()) && v.verification().fieldMismatches() == 0;
            if (v.error() != null) {
                failed++;
            }
        }
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                "RESULT scenario=%s variants=%d failed=%d events=%d delivered=%d lost=%d duplicates=%d order=%s",
                scenario, results.size(), failed, events, delivered, lost, duplicates, order ? "ok" : "violated"));
        headline.filter(h -> h.backlog() != null && h.latency() != null).ifPresent(h -> line.append(String.format(
                Locale.ROOT, " headline=%s throughput_mb_s=%.2f wire_mb_s=%.2f latency_p50_ms=%d latency_p99_ms=%d",
                h.id(), h.backlog().throughputMbS(), h.backlog().wireMbS(), h.latency().latencyP50Ms(),
                h.latency().latencyP99Ms())));
        ratios.forEach((name, value) -> {
            if (!name.startsWith("wire_bytes_per_record_")) {
                line.append(String.format(Locale.ROOT, " %s=%.2f", name, value));
            }
        });
        line.append(" network=").append(network);
        return line.toString();
    }

    /**
     * The figures of the scenarios with events for the RESULT line, over every variant:
     * {@code events_within_target=k/n}, then per variant its recoveries ({@code recovery_s=<variant>:a/b/c},
     * "never" for an event that did not recover) or, for capacity changes, the changed route's share
     * before/after each change, the time to the best split and the flaps
     * ({@code shares=<variant>:<event>:<before>-><after>:<time to 95% match>:<n>flaps;...}). Empty without events.
     */
    static String eventFigures(List<VariantResult> results) {
        int within = 0;
        int judged = 0;
        StringBuilder recovery = new StringBuilder();
        StringBuilder shares = new StringBuilder();
        for (VariantResult v : results) {
            EventsResult e = v.events();
            if (e == null) {
                continue;
            }
            within += e.eventsWithinTarget();
            judged += e.eventsJudged();
            List<String> recoveries = new java.util.ArrayList<>();
            List<String> splits = new java.util.ArrayList<>();
            for (EventsResult.Event event : e.events()) {
                if (event.route() == null) {
                    recoveries.add(event.recoveryS() == null ? "never" : String.format(Locale.ROOT, "%.1f",
                            event.recoveryS()));
                } else {
                    splits.add(String.format(Locale.ROOT, "%s:%s->%s:%s:%dflaps", event.name(), fmt(event.shareBefore()),
                            fmt(event.shareAfter()), event.timeToMatchS() == null ? "never"
                                    : String.format(Locale.ROOT, "%.0fs", event.timeToMatchS()), event.flaps()));
                }
            }
            if (!recoveries.isEmpty()) {
                recovery.append(recovery.length() == 0 ? "" : ",").append(v.id()).append(':')
                        .append(String.join("/", recoveries));
            }
            if (!splits.isEmpty()) {
                shares.append(shares.length() == 0 ? "" : ",").append(v.id()).append(':')
                        .append(String.join(";", splits));
            }
        }
        if (judged == 0) {
            return "";
        }
        return " events_within_target=" + within + "/" + judged
                + (recovery.length() > 0 ? " recovery_s=" + recovery : "")
                + (shares.length() > 0 ? " shares=" + shares : "");
    }

    private static String fmt(Double value) {
        return value == null ? "-" : String.format(Locale.ROOT, "%.2f", value);
    }

    /** One line per event of every variant, as the variants printed them while running. */
    static void printEvents(PrintStream out, List<VariantResult> results) {
        out.println();
        out.println("Events (recovery: records per batch back within 20% of the steady value for 2 s, target 5 s;"
                + " capacity: route split at 95% of the capacity-proportional one for 2 s, target 10 s, <= 1 flap):");
        for (VariantResult v : results) {
            if (v.events() == null) {
                out.println("  " + v.id() + ": no figures" + (v.error() == null ? "" : " (" + v.error() + ")"));
                continue;
            }
            out.printf(Locale.ROOT, "  %s: %.0f records/s for %.0f s, p50/p99 %d/%d ms, %d/%d events within target%n",
                    v.id(), v.events().ratePerS(), v.events().seconds(), v.events().latencyP50Ms(),
                    v.events().latencyP99Ms(), v.events().eventsWithinTarget(), v.events().eventsJudged());
            for (EventsResult.Event e : v.events().events()) {
                out.println("    " + TimedEvents.line(e));
            }
        }
    }

    static void printSummary(PrintStream out, List<VariantResult> results, double linkCapacityMbS) {
        out.println();
        out.printf(Locale.ROOT, "%-20s %9s %9s %-26s %6s %6s %6s %6s %7s %8s %s%n", "variant", "rec MB/s", "wire MB/s",
                "wire per uplink a1/a2/a3", "p50", "p99", "p999", "cores", "machine", "core-s/MB", "lost/dup/order");
        for (VariantResult v : results) {
            VariantResult.BacklogPhase b = v.backlog();
            VariantResult.LatencyPhase l = v.latency();
            String uplinks = b == null ? "-" : String.format(Locale.ROOT, "%.2f/%.2f/%.2f",
                    b.wirePerUplinkMbS().getOrDefault("a1", 0.0), b.wirePerUplinkMbS().getOrDefault("a2", 0.0),
                    b.wirePerUplinkMbS().getOrDefault("a3", 0.0));
            String check = v.verification() == null ? "FAILED: " + v.error()
                    : v.verification().lost() + "/" + v.verification().duplicates() + "/" + v.verification().order()
                    + (v.error() == null ? "" : " FAILED: " + v.error());
            out.printf(Locale.ROOT, "%-20s %9s %9s %-26s %6s %6s %6s %6s %7s %8s %s%n", v.id(),
                    b == null ? "-" : String.format(Locale.ROOT, "%.2f", b.throughputMbS()),
                    b == null ? "-" : String.format(Locale.ROOT, "%.2f", b.wireMbS()), uplinks,
                    l == null ? "-" : Long.toString(l.latencyP50Ms()), l == null ? "-" : Long.toString(l.latencyP99Ms()),
                    l == null ? "-" : Long.toString(l.latencyP999Ms()),
                    b == null ? "-" : String.format(Locale.ROOT, "%.2f", b.replicatorCores()),
                    b == null ? "-" : String.format(Locale.ROOT, "%.2f", b.machineCores()),
                    b == null ? "-" : String.format(Locale.ROOT, "%.3f", b.coreSecondsPerMb()), check);
        }
        out.printf(Locale.ROOT, "(one uplink: %.2f MB/s; latency in ms at the latency phase's rate; cores of the"
                + " replicator's JVMs while draining)%n", linkCapacityMbS);
        out.println("what bound each phase (drain; latency phase):");
        for (VariantResult v : results) {
            if (v.backlog() != null) {
                out.printf(Locale.ROOT, "  %-20s drain: %s%n", v.id(), v.backlog().binds());
            }
            if (v.latency() != null) {
                out.printf(Locale.ROOT, "  %-20s latency: %s%n", v.id(), v.latency().binds());
            }
        }
    }

    /** The varying-rate verdict's figures for the RESULT line. */
    static String rateFigures(RateComparison c) {
        return String.format(Locale.ROOT, " defaults=%s best_fixed=%s defaults_vs_best_fixed=%s"
                        + " steps_within_5pct=%d/%d throughput_kept=%s", c.defaultsVariant(), c.bestFixedOverall(),
                c.defaultsVsBestFixed() == null ? "-" : String.format(Locale.ROOT, "%.2f", c.defaultsVsBestFixed()),
                c.stepsWithin5Percent(), c.stepsCompared(), c.throughputKept() ? "yes" : "no");
    }

    /**
     * The varying-rate load: per variant and step, offered and delivered rate, p50/p99, records per batch
     * and CPU; then the shipped defaults against the best fixed setting of each step and overall.
     */
    static void printSteps(PrintStream out, List<VariantResult> results, RateComparison comparison) {
        out.println();
        out.printf(Locale.ROOT, "%-24s %-20s %9s %9s %6s %6s %7s %6s %7s %8s%n", "variant", "step", "offered/s",
                "deliver/s", "p50", "p99", "rec/bat", "cores", "machine", "cap");
        for (VariantResult v : results) {
            for (VariantResult.Step s : v.steps()) {
                TaskMetricsReader.Decisions d = s.decisions();
                out.printf(Locale.ROOT, "%-24s %-20s %9.0f %9.0f %6d %6d %7.1f %6.2f %7.2f %8s%s%n", v.id(), s.name(),
                        s.offeredPerS(), s.deliveredPerS(), s.latencyP50Ms(), s.latencyP99Ms(), s.recordsPerBatch(),
                        s.replicatorCores(), s.machineCores(),
                        d == null || d.batchMaxRecordsMean() == null ? "-"
                                : String.format(Locale.ROOT, "%.0f", d.batchMaxRecordsMean()),
                        s.keptUp() ? "" : "  fell behind");
            }
        }
        out.println("(rec/bat: records per batch at the ingress relay; cap: the tasks' batch-max-records, mean over"
                + " the step)");
        if (comparison == null) {
            out.println("(the shipped defaults, " + Variants.JS_1_ROUTE + ", did not complete: no verdict)");
            return;
        }
        out.printf(Locale.ROOT, "%nfigure of merit: %s%n", comparison.figureOfMerit());
        out.printf(Locale.ROOT, "%-20s %-24s %8s %8s %10s %7s %s%n", "step", "best fixed (this step)", "its p99",
                "defaults", "best fixed overall", "ratio", "within 5%");
        for (RateComparison.StepVerdict v : comparison.steps()) {
            out.printf(Locale.ROOT, "%-20s %-24s %8s %8d %10s %7.2f %s%n", v.step(),
                    v.bestFixed() == null ? "(none kept up)" : v.bestFixed(),
                    v.bestFixedP99Ms() == null ? "-" : v.bestFixedP99Ms().toString(), v.defaultsP99Ms(),
                    v.bestFixedOverallP99Ms() == null ? "-" : v.bestFixedOverallP99Ms().toString(), v.ratio(),
                    (v.within5Percent() ? "yes" : "no") + (v.fellBehind().isEmpty() ? ""
                            : "  fell behind: " + String.join(", ", v.fellBehind())));
        }
        out.printf(Locale.ROOT, "scores (geometric mean of the steps' p99, ms): %s%n", comparison.scores());
        out.printf(Locale.ROOT, "%s (the shipped defaults) vs the best fixed setting overall (%s): %s; within 5%%"
                        + " of the step's best fixed setting in %d of %d steps (%s); throughput kept wherever the"
                        + " step's best fixed setting kept it: %s%n",
                comparison.defaultsVariant(), comparison.bestFixedOverall(),
                comparison.defaultsVsBestFixed() == null ? "-" : String.format(Locale.ROOT, "%.2fx",
                        comparison.defaultsVsBestFixed()), comparison.stepsWithin5Percent(),
                comparison.stepsCompared(), comparison.everyStepWithin5Percent() ? "met" : "not met",
                comparison.throughputKept() ? "yes" : "no");
    }
}
