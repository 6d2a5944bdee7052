package io.jetstream.kafka.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code ./jetstream bench wan --partitions 6,120,1200}: the same plan run once per partition count
 * (each count a run of its own, brokers started anew, files under {@code <out>/p<count>/}), then the
 * cost curve: one {@code SWEEP} line per count and variant, {@code partition-sweep.json} and
 * {@code partition-sweep.html} (core-seconds per MB against partitions, one line per variant, the
 * partition axis logarithmic). Pure functions but for the files, so the summary is tested.
 */
public final class PartitionSweep {

    private static final ObjectMapper JSON = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * One variant at one partition count. {@code coreSecondsPerMb} and the record and wire rates are
     * the backlog drain's; {@code steadyReplicatorCores}, {@code steadyCores} and the percentiles the
     * latency phase's (a steady rate); {@code idleReplicatorCores} and {@code idleCores} the idle phase's
     * (-1 and empty when the run had none); {@code error} is the failure, or null.
     */
    public record Point(int partitions, String variant, double recordMbS, double wireMbS, double wireBytesPerRecord,
                        double coreSecondsPerMb, Map<String, Double> backlogCores, double steadyReplicatorCores,
                        Map<String, Double> steadyCores, long p50Ms, long p99Ms, double idleReplicatorCores,
                        Map<String, Double> idleCores, String error) {
    }

    private PartitionSweep() {
    }

    /** The points of one run at {@code partitions}: one per variant, a failed variant with its error. */
    public static List<Point> points(int partitions, BenchResult result) {
        List<Point> points = new ArrayList<>();
        for (VariantResult v : result.variants()) {
            VariantResult.BacklogPhase b = v.backlog();
            VariantResult.LatencyPhase l = v.latency();
            String error = v.error() != null ? v.error() : b == null ? "no backlog phase" : null;
            points.add(new Point(partitions, v.id(), b == null ? 0 : b.throughputMbS(), b == null ? 0 : b.wireMbS(),
                    b == null ? 0 : b.wireBytesPerRecord(), b == null ? 0 : b.coreSecondsPerMb(),
                    b == null ? Map.of() : new TreeMap<>(b.coresPerProcess()), l == null ? 0 : l.replicatorCores(),
                    l == null ? Map.of() : new TreeMap<>(l.coresPerProcess()), l == null ? 0 : l.latencyP50Ms(),
                    l == null ? 0 : l.latencyP99Ms(), v.idle() == null ? -1 : v.idle().replicatorCores(),
                    v.idle() == null ? Map.of() : new TreeMap<>(v.idle().coresPerProcess()), error));
        }
        return points;
    }

    /** The summary line of a point. */
    public static String line(Point p) {
        if (p.error() != null) {
            return String.format(Locale.ROOT, "SWEEP partitions=%d variant=%s status=failed error=%s", p.partitions(),
                    p.variant(), p.error().replace('\n', ' '));
        }
        return String.format(Locale.ROOT, "SWEEP partitions=%d variant=%s record_mb_s=%.2f wire_mb_s=%.2f"
                        + " wire_bytes_per_record=%.0f core_s_per_mb=%.4f steady_replicator_cores=%.2f p50_ms=%d"
                        + " p99_ms=%d%s backlog_cores=%s steady_cores=%s%s status=ok",
                p.partitions(), p.variant(), p.recordMbS(), p.wireMbS(), p.wireBytesPerRecord(), p.coreSecondsPerMb(),
                p.steadyReplicatorCores(), p.p50Ms(), p.p99Ms(),
                p.idleReplicatorCores() < 0 ? "" : String.format(Locale.ROOT, " idle_replicator_cores=%.3f",
                        p.idleReplicatorCores()),
                cores(p.backlogCores()), cores(p.steadyCores()),
                p.idleReplicatorCores() < 0 ? "" : " idle_cores=" + cores(p.idleCores(), "%.3f"));
    }

    private static String cores(Map<String, Double> byProcess) {
        return cores(byProcess, "%.2f");
    }

    private static String cores(Map<String, Double> byProcess, String format) {
        StringBuilder out = new StringBuilder();
        byProcess.forEach((process, cores) -> out.append(out.length() == 0 ? "" : ",").append(process).append(':')
                .append(String.format(Locale.ROOT, format, cores)));
        return out.length() == 0 ? "-" : out.toString();
    }

    /** Prints every point's line and writes {@code partition-sweep.json} and {@code .html} under {@code dir}. */
    public static void report(List<Point> points, Path dir, String commandLine, PrintStream out) throws IOException {
        points.forEach(p -> out.println(line(p)));
        Files.createDirectories(dir);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("command_line", commandLine);
        json.put("points", points);
        JSON.writeValue(dir.resolve("partition-sweep.json").toFile(), json);
        Files.writeString(dir.resolve("partition-sweep.html"), html(points, commandLine));
        out.println("Cost curve: " + dir.resolve("partition-sweep.json") + " and " + dir.resolve("partition-sweep.html"));
    }

    /** A self-contained page: core-seconds per MB (backlog) against partitions, one polyline per variant. */
    static String html(List<Point> points, String commandLine) {
        Map<String, List<Point>> byVariant = new TreeMap<>();
        double maxCost = 1e-9;
        int minP = Integer.MAX_VALUE;
        int maxP = 1;
        for (Point p : points) {
            if (p.error() != null) {
                continue;
            }
            byVariant.computeIfAbsent(p.variant(), v -> new ArrayList<>()).add(p);
            maxCost = Math.max(maxCost, p.coreSecondsPerMb());
            minP = Math.min(minP, p.partitions());
            maxP = Math.max(maxP, p.partitions());
        }
        double logMin = Math.log10(Math.max(1, minP == Integer.MAX_VALUE ? 1 : minP));
        double logSpan = Math.max(1e-9, Math.log10(maxP) - logMin);
        String[] colours = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
        StringBuilder svg = new StringBuilder("<svg xmlns='http://www.w3.org/2000/svg' width='640' height='360'>"
                + "<line x1='60' y1='300' x2='620' y2='300' stroke='black'/><line x1='60' y1='20' x2='60' y2='300'"
                + " stroke='black'/><text x='300' y='340'>partitions (log scale)</text>"
                + "<text x='5' y='15'>core-s per MB (backlog)</text>");
        svg.append(String.format(Locale.ROOT, "<text x='5' y='30'>%.3f</text><text x='40' y='300'>0</text>", maxCost));
        int colour = 0;
        for (Map.Entry<String, List<Point>> e : byVariant.entrySet()) {
            String c = colours[colour++ % colours.length];
            StringBuilder poly = new StringBuilder();
            for (Point p : e.getValue()) {
                double x = 60 + 560 * (Math.log10(p.partitions()) - logMin) / logSpan;
                double y = 300 - 280 * p.coreSecondsPerMb() / maxCost;
                poly.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
                svg.append(String.format(Locale.ROOT, "<circle cx='%.1f' cy='%.1f' r='3' fill='%s'/>"
                        + "<text x='%.1f' y='320' font-size='11'>%d</text>", x, y, c, x - 10, p.partitions()));
            }
            svg.append("<polyline fill='none' stroke='").append(c).append("' points='").append(poly).append("'/>");
            svg.append(String.format(Locale.ROOT, "<text x='470' y='%d' fill='%s'>%s</text>", 30 + 16 * colour, c,
                    escape(e.getKey())));
        }
        svg.append("</svg>");
        StringBuilder rows = new StringBuilder();
        for (Point p : points) {
            rows.append("<tr><td>").append(p.partitions()).append("</td><td>").append(escape(p.variant()))
                    .append("</td><td>").append(p.error() != null ? "failed: " + escape(p.error())
                            : String.format(Locale.ROOT, "%.2f</td><td>%.2f</td><td>%.4f</td><td>%.2f</td><td>%d / %d"
                            + "</td><td>%s", p.recordMbS(), p.wireMbS(), p.coreSecondsPerMb(), p.steadyReplicatorCores(),
                            p.p50Ms(), p.p99Ms(), p.idleReplicatorCores() < 0 ? "-"
                                    : String.format(Locale.ROOT, "%.3f", p.idleReplicatorCores())))
                    .append("</td></tr>");
        }
        return "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Partition sweep</title></head><body>"
                + "<h1>Cost against partitions</h1><p><code>" + escape(commandLine) + "</code></p>" + svg
                + "<table border='1'><tr><th>partitions</th><th>variant</th><th>record MB/s</th><th>wire MB/s</th>"
                + "<th>core-s/MB</th><th>replicator cores, steady</th><th>p50 / p99 ms, steady</th><th>replicator cores, idle</th></tr>" + rows
                + "</table></body></html>\n";
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;");
    }
}
