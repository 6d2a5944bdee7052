package io.jetstream.kafka.bench;

import static io.jetstream.kafka.bench.SvgChart.escape;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The HTML report of a run: one self-contained file (inline CSS and SVG, no script, nothing fetched)
 * with the summary table, the comparison ratios and targets, the latency CDF of every variant, and
 * per variant the wire throughput per uplink and the records arriving at B over time, and CPU per
 * process over time.
 */
public final class BenchHtml {

    private static final ObjectMapper PRETTY = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private BenchHtml() {
    }

    public static void write(BenchResult result, Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, render(result));
    }

    static String render(BenchResult r) {
        StringBuilder html = new StringBuilder();
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>JetStream bench: ")
                .append(escape(r.scenario())).append("</title>\n<style>")
                .append("body{font-family:sans-serif;margin:24px;max-width:1200px}")
                .append("table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #ccc;padding:3px 7px;")
                .append("text-align:right;font-size:13px}th{background:#f3f3f3}td.l,th.l{text-align:left}")
                .append(".bad{color:#b00;font-weight:bold}.ok{color:#070}pre{background:#f7f7f7;padding:8px;")
                .append("font-size:11px;overflow:auto}</style></head><body>\n");
        html.append("<h1>JetStream WAN benchmark: ").append(escape(r.scenario())).append(r.quick() ? " (quick)" : "")
                .append("</h1>\n");
        html.append("<p><b>").append(escape(r.resultLine())).append("</b></p>\n");
        header(html, r);
        summary(html, r);
        comparison(html, r);
        steps(html, r);
        events(html, r);
        HeterogeneousReport.html(html, r.variants());
        boolean stepped = r.variants().stream().anyMatch(v -> !v.steps().isEmpty());
        html.append(stepped ? "<h2>Latency over every step (CDF)</h2>\n" : "<h2>Latency at steady load (CDF)</h2>\n");
        SvgChart cdf = new SvgChart(stepped ? "End-to-end latency, all steps" : "End-to-end latency, latency phase",
                "latency (ms, log scale)",
                "fraction of records", 900, 340).logX().yTop(1.0);
        for (VariantResult v : r.variants()) {
            if (!v.latencyCdf().isEmpty()) {
                cdf.series(v.id(), v.latencyCdf());
            }
        }
        html.append(cdf.render());
        SvgChart trend = new SvgChart("Median latency per second of the latency phase (a climbing line: the"
                + " replicator fell behind the offered rate)", "seconds since the latency phase started",
                "median latency (ms)", 900, 300);
        for (VariantResult v : r.variants()) {
            List<double[]> points = new ArrayList<>();
            v.latencyOverTime().forEach(p -> points.add(new double[] {p[0], p[1]}));
            if (!points.isEmpty()) {
                trend.series(v.id(), points);
            }
        }
        html.append(trend.render());
        for (VariantResult v : r.variants()) {
            variant(html, v);
        }
        html.append("</body></html>\n");
        return html.toString();
    }

    private static void header(StringBuilder html, BenchResult r) {
        html.append("<table>");
        row(html, "command", r.commandLine());
        row(html, "git commit", r.gitCommit());
        row(html, "started", r.startedAt() + String.format(Locale.ROOT, " (%.0f s)", r.durationS()));
        row(html, "network", String.valueOf(r.network().get("network"))
                + (r.network().containsKey("fallback_reason") ? " (fallback: " + r.network().get("fallback_reason") + ")"
                : ""));
        row(html, "links", String.format(Locale.ROOT, "%s Mbit/s per uplink (%.2f MB/s), %s ms one way",
                r.network().get("uplink_mbit_s"), r.linkCapacityMbS(), r.network().get("one_way_delay_ms")));
        row(html, "machine", r.machine().toString());
        row(html, "workload", r.workload().toString());
        html.append("</table>\n");
    }

    private static void row(StringBuilder html, String key, String value) {
        html.append("<tr><th class=\"l\">").append(escape(key)).append("</th><td class=\"l\">").append(escape(value))
                .append("</td></tr>");
    }

    private static void summary(StringBuilder html, BenchResult r) {
        html.append("<h2>Summary</h2>\n<table><tr><th class=\"l\">variant</th><th>records MB/s</th><th>events/s</th>"
                + "<th>wire MB/s</th><th class=\"l\">wire MB/s per uplink</th><th>wire B/record</th>"
                + "<th>p50 ms</th><th>p99 ms</th><th>p99.9 ms</th><th>replicator cores</th><th>machine cores</th>"
                + "<th>core-s/MB</th><th>lost</th><th>dup</th><th>order</th></tr>\n");
        for (VariantResult v : r.variants()) {
            html.append("<tr><td class=\"l\">").append(escape(v.id())).append("<br><small>").append(escape(v.title()))
                    .append("</small></td>");
            VariantResult.BacklogPhase b = v.backlog();
            VariantResult.LatencyPhase l = v.latency();
            cells(html, b == null ? List.of("-", "-", "-") : List.of(f2(b.throughputMbS()), f0(b.eventsPerS()),
                    f2(b.wireMbS())));
            html.append("<td class=\"l\">").append(b == null ? "-" : escape(b.wirePerUplinkMbS().toString()))
                    .append("</td>");
            cells(html, List.of(b == null ? "-" : f0(b.wireBytesPerRecord()),
                    l == null ? "-" : Long.toString(l.latencyP50Ms()), l == null ? "-" : Long.toString(l.latencyP99Ms()),
                    l == null ? "-" : Long.toString(l.latencyP999Ms()), b == null ? "-" : f2(b.replicatorCores()),
                    b == null ? "-" : f2(b.machineCores()), b == null ? "-" : String.format(Locale.ROOT, "%.3f",
                            b.coreSecondsPerMb())));
            VariantResult.Verification ver = v.verification();
            if (ver == null) {
                html.append("<td colspan=\"3\" class=\"bad l\">").append(escape(String.valueOf(v.error())))
                        .append("</td>");
            } else {
                html.append(cell(Long.toString(ver.lost()), ver.lost() == 0))
                        .append(cell(Long.toString(ver.duplicates()), ver.duplicates() == 0))
                        .append(cell(ver.order(), "ok".equals(ver.order())));
            }
            html.append("</tr>\n");
        }
        html.append("</table>\n<p>Records MB/s: key + value + header bytes drained after the pause, divided by the time"
                + " from the resume to the last record at B. Wire: bytes the source hosts' uplinks sent in that window."
                + " Latency: at the steady rate of the latency phase. Cores: CPU seconds per second in the drain window;"
                + " replicator = Connect workers and relays of the variant (not brokers, not the benchmark).</p>\n");
    }

    private static void comparison(StringBuilder html, BenchResult r) {
        html.append("<h2>Comparison</h2>\n<table><tr><th class=\"l\">ratio</th><th>value</th></tr>");
        r.comparison().forEach((name, value) -> html.append("<tr><td class=\"l\">").append(escape(name))
                .append("</td><td>").append(String.format(Locale.ROOT, "%.2f", value)).append("</td></tr>"));
        html.append("</table>\n<table><tr><th class=\"l\">target (issue 10)</th><th class=\"l\">variant</th>"
                + "<th>measured</th><th>target</th><th>met</th></tr>");
        for (Comparison.Target t : r.targets()) {
            html.append("<tr><td class=\"l\">").append(escape(t.name())).append("</td><td class=\"l\">")
                    .append(escape(t.variant())).append("</td><td>").append(String.format(Locale.ROOT, "%.3f",
                            t.measured())).append("</td><td>").append(t.atMost() ? "&le; " : "&ge; ")
                    .append(String.format(Locale.ROOT, "%.3f", t.target())).append("</td>")
                    .append(cell(t.met() ? "yes" : "no", t.met())).append("</tr>");
        }
        html.append("</table>\n");
    }

    /** The varying-rate load: every variant's steps, then the defaults' verdict (nothing with the steady load). */
    private static void steps(StringBuilder html, BenchResult r) {
        if (r.variants().stream().allMatch(v -> v.steps().isEmpty())) {
            return;
        }
        html.append("<h2>Varying rate: steps</h2>\n<table><tr><th class=\"l\">variant</th><th class=\"l\">step</th>"
                + "<th>offered/s</th><th>delivered/s</th><th>kept up</th><th>p50 ms</th><th>p99 ms</th><th>max ms</th>"
                + "<th>records per batch</th><th>wire MB/s</th><th>replicator cores</th><th>machine cores</th>"
                + "<th>tasks' batch cap (records)</th><th>linger ms</th></tr>\n");
        for (VariantResult v : r.variants()) {
            for (VariantResult.Step s : v.steps()) {
                html.append("<tr><td class=\"l\">").append(escape(v.id())).append("</td><td class=\"l\">")
                        .append(escape(s.name())).append("</td>");
                cells(html, List.of(f0(s.offeredPerS()), f0(s.deliveredPerS())));
                html.append(cell(s.keptUp() ? "yes" : "no", s.keptUp()));
                cells(html, List.of(Long.toString(s.latencyP50Ms()), Long.toString(s.latencyP99Ms()),
                        Long.toString(s.latencyMaxMs()), String.format(Locale.ROOT, "%.1f", s.recordsPerBatch()),
                        f2(s.wireMbS()), f2(s.replicatorCores()), f2(s.machineCores())));
                TaskMetricsReader.Decisions d = s.decisions();
                cells(html, d == null ? List.of("-", "-") : List.of(String.valueOf(d.batchMaxRecordsMean()),
                        String.valueOf(d.lingerMsMean())));
                html.append("</tr>\n");
            }
        }
        html.append("</table>\n");
        RateComparison c = r.varyingRate();
        if (c == null) {
            html.append("<p>The shipped defaults (" + Variants.JS_1_ROUTE + ") did not complete: no verdict.</p>\n");
            return;
        }
        html.append("<h2>Varying rate: the shipped defaults against the fixed settings</h2>\n<p>Figure of merit: ")
                .append(escape(c.figureOfMerit())).append(".</p>\n<table><tr><th class=\"l\">step</th>"
                + "<th class=\"l\">best fixed (this step)</th><th>its p99 ms</th><th>defaults p99 ms</th>"
                + "<th>best fixed overall p99 ms</th><th>ratio</th><th>within 5%</th>"
                + "<th class=\"l\">fell behind</th></tr>\n");
        for (RateComparison.StepVerdict v : c.steps()) {
            html.append("<tr><td class=\"l\">").append(escape(v.step())).append("</td><td class=\"l\">")
                    .append(escape(v.bestFixed() == null ? "(none kept up)" : v.bestFixed())).append("</td>");
            cells(html, List.of(String.valueOf(v.bestFixedP99Ms()), Long.toString(v.defaultsP99Ms()),
                    String.valueOf(v.bestFixedOverallP99Ms()), f2(v.ratio())));
            html.append(cell(v.within5Percent() ? "yes" : "no", v.within5Percent())).append("<td class=\"l\">")
                    .append(escape(String.join(", ", v.fellBehind()))).append("</td></tr>\n");
        }
        html.append("</table>\n<table>");
        row(html, "scores (geometric mean of the steps' p99, ms)", String.valueOf(c.scores()));
        row(html, "best fixed setting overall", String.valueOf(c.bestFixedOverall()));
        row(html, escape(c.defaultsVariant()) + " (the shipped defaults) vs best fixed overall",
                c.defaultsVsBestFixed() == null ? "-" : f2(c.defaultsVsBestFixed()));
        html.append("<tr><th class=\"l\">steps within 5% of the step's best fixed setting</th>")
                .append(cell(c.stepsWithin5Percent() + " of " + c.stepsCompared(), c.everyStepWithin5Percent()))
                .append("</tr><tr><th class=\"l\">throughput kept wherever the step's best fixed setting kept it</th>")
                .append(cell(c.throughputKept() ? "yes" : "no", c.throughputKept())).append("</tr></table>\n");
    }

    /** Scenarios with events: every event of every variant, then per variant its series around the events. */
    private static void events(StringBuilder html, BenchResult r) {
        if (r.variants().stream().allMatch(v -> v.events() == null)) {
            return;
        }
        html.append("<h2>Events</h2>\n<p>Recovery: records per batch of the source tasks back within 20% of the"
                + " steady value of the 10 s before the event for two consecutive 1 s windows (target 5 s). Capacity"
                + " change: the ingress relay's split of bytes over the routes at 95% of the capacity-proportional"
                + " split (1 - total variation distance) for two consecutive 1 s windows (target 10 s, at most one"
                + " flap: a reversal of the changed route's share (3 s trailing) by more than 10 points).</p>\n");
        html.append("<table><tr><th class=\"l\">variant</th><th class=\"l\">event</th><th>at s</th>"
                + "<th>rec/batch before</th><th>right after</th><th>after</th><th>recovery s</th>"
                + "<th class=\"l\">route</th><th>share before</th><th>after</th><th>best</th><th>match</th>"
                + "<th>to 95% s</th><th>flaps</th><th>kept</th><th>p50 ms</th><th>p99 ms</th>"
                + "<th>within target</th></tr>\n");
        for (VariantResult v : r.variants()) {
            if (v.events() == null) {
                continue;
            }
            for (EventsResult.Event e : v.events().events()) {
                html.append("<tr><td class=\"l\">").append(escape(v.id())).append("</td><td class=\"l\">")
                        .append(escape(e.name())).append("</td>");
                cells(html, List.of(f2(e.atS()), opt(e.recordsPerBatchBefore()), opt(e.recordsPerBatchRightAfter()),
                        opt(e.recordsPerBatchAfter()), e.route() == null && e.recoveryS() == null ? "never"
                                : opt(e.recoveryS())));
                html.append("<td class=\"l\">").append(e.route() == null ? "" : escape(e.route())).append("</td>");
                cells(html, List.of(opt(e.shareBefore()), opt(e.shareAfter()),
                        e.bestSplit() == null ? "" : opt(e.bestSplit().get(e.route())), opt(e.matchAfter()),
                        e.route() != null && e.timeToMatchS() == null ? "never" : opt(e.timeToMatchS()),
                        e.flaps() == null ? "" : Integer.toString(e.flaps()), f2(e.throughputKept()),
                        Long.toString(e.latencyP50Ms()), Long.toString(e.latencyP99Ms())));
                html.append(e.withinTarget() == null ? "<td></td>" : cell(e.withinTarget() ? "yes" : "no",
                        e.withinTarget())).append("</tr>\n");
            }
        }
        html.append("</table>\n");
        for (VariantResult v : r.variants()) {
            EventsResult e = v.events();
            if (e == null) {
                continue;
            }
            Map<String, Double> marks = new java.util.LinkedHashMap<>();
            e.events().forEach(event -> marks.put(event.name(), event.atS()));
            if (!e.recordsPerBatch().isEmpty()) {
                SvgChart perBatch = new SvgChart(v.id() + ": records per batch of the source tasks (1 s windows)",
                        "seconds since the load started", "records per batch", 1100, 280).marks(marks);
                perBatch.series("records per batch", e.recordsPerBatch().stream()
                        .map(p -> new double[] {p[0], p[1]}).toList());
                html.append(perBatch.render());
            }
            if (!e.routeShares().isEmpty()) {
                SvgChart shares = new SvgChart(v.id() + ": share of bytes per route at the ingress relay (1 s windows)",
                        "seconds since the load started", "share", 1100, 280).marks(marks).yTop(1.0);
                e.routeShares().forEach(shares::series);
                html.append(shares.render());
            }
        }
    }

    private static String opt(Double value) {
        return value == null ? "" : f2(value);
    }

    private static void variant(StringBuilder html, VariantResult v) {
        html.append("<h2 id=\"").append(escape(v.id())).append("\">").append(escape(v.id())).append(": ")
                .append(escape(v.title())).append("</h2>\n");
        if (v.error() != null) {
            html.append("<p class=\"bad\">").append(escape(v.error())).append("</p>\n");
        }
        VariantResult.Timeline t = v.timeline();
        if (t != null && !t.seconds().isEmpty()) {
            SvgChart throughput = new SvgChart("Throughput over time (500 ms samples)",
                    "seconds since the variant started", "MB/s", 1100, 320).marks(t.marks()).yTop(throughputTop(t));
            t.uplinkMbS().forEach((uplink, rates) -> throughput.series("wire " + uplink, t.seconds(), rates));
            throughput.series("records at B", t.seconds(), t.arrivalsMbS());
            html.append(throughput.render());
            SvgChart cpu = new SvgChart("CPU per process", "seconds since the variant started", "cores", 1100, 320)
                    .marks(t.marks());
            t.cores().forEach((process, cores) -> {
                if (cores.stream().anyMatch(c -> c > 0.01)) {
                    cpu.series(process, t.seconds(), cores);
                }
            });
            cpu.series("machine (busy)", t.seconds(), t.machineCores()).dashed("machine (busy)");
            html.append(cpu.render());
        }
        if (v.backlog() != null) {
            html.append("<p>Drain bound by ").append(escape(v.backlog().binds())).append(".</p>\n");
            if (v.latency() != null) {
                html.append("<p>Latency phase bound by ").append(escape(v.latency().binds())).append(".</p>\n");
            }
            html.append("<p>Drain: cores per process ").append(escape(v.backlog().coresPerProcess().toString()))
                    .append(", of which JIT compilers ").append(escape(v.backlog().jitCoresPerProcess().toString()))
                    .append("; uplink fill ").append(escape(v.backlog().uplinkFill().toString()));
            if (!v.backlog().routeBytes().isEmpty()) {
                html.append("; bytes per route ").append(escape(v.backlog().routeBytes().toString()));
            }
            html.append("</p>\n");
        }
        if (v.verification() != null) {
            html.append("<details><summary>verification</summary><pre>")
                    .append(escape(String.join("\n", v.verification().runs()))).append("</pre></details>\n");
        }
        html.append("<details><summary>deployment (configs as sent)</summary><pre>").append(escape(json(v.deployment())))
                .append("</pre></details>\n");
    }

    /**
     * The y axis of a throughput plot: the highest wire rate or the 95th percentile of arrivals at B,
     * whichever is higher. Arrivals at B come in bursts (a read_committed reader sees a transaction at
     * once); a single burst would otherwise flatten every other line.
     */
    static double throughputTop(VariantResult.Timeline t) {
        double wire = t.uplinkMbS().values().stream().flatMap(List::stream).mapToDouble(Double::doubleValue).max()
                .orElse(0);
        double[] arrivals = t.arrivalsMbS().stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double p95 = arrivals.length == 0 ? 0 : arrivals[(int) Math.min(arrivals.length - 1, arrivals.length * 0.95)];
        return SvgChart.niceCeiling(Math.max(1, Math.max(wire, p95) * 1.1));
    }

    private static String json(Map<String, Object> value) {
        try {
            return PRETTY.writeValueAsString(value);
        } catch (IOException e) {
            return String.valueOf(value);
        }
    }

    private static void cells(StringBuilder html, List<String> values) {
        for (String value : new ArrayList<>(values)) {
            html.append("<td>").append(escape(value)).append("</td>");
        }
    }

    private static String cell(String value, boolean good) {
        return "<td class=\"" + (good ? "ok" : "bad") + "\">" + escape(value) + "</td>";
    }

    private static String f2(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }

    private static String f0(double value) {
        return String.format(Locale.ROOT, "%.0f", value);
    }
}
