package io.jetstream.kafka.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
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
import java.util.Objects;
import java.util.Optional;

/**
 * {@code ./jetstream bench wan --scenario grid}: the environment grid (issue 33). A fractional design of
 * cells, each moving one or two axes away from the default cell (40 Mbit/s uplinks, 25 ms one way, 1 KiB
 * records, 6 partitions): uplink 10 / 40 / 200 Mbit/s, one-way delay 5 / 25 / 75 ms, records 100 B / 1 KiB
 * / 16 KiB, partitions 6 / 1,200. All cells run in one {@link WanEnvironment}: the network is built once and
 * reshaped for each cell (every uplink's cap, the one-way delay), the brokers and the Connect workers start once
 * and stay up, warm, from cell to cell; each cell is a steady-load run with files of its own under
 * {@code <out>/<cell>/}, in which every variant meets both loads: the latency phase offers 10% of one uplink (in
 * record bytes, before compression) and gives the p99; the backlog drain offers more than the link carries (100%)
 * and gives the throughput and the CPU per MB. (Until 7 December 2026 each cell built its own network, brokers
 * and workers and ran its own warm-up rounds: 88 minutes for the grid, and the first variants of every cell
 * measured while the new JVMs still compiled.)
 *
 * <p>Variants per cell, in the first cell after two warm-up rounds ({@code js-warmup}, {@code js-warmup-again}:
 * the defaults, run first so that nothing compared runs while the JIT compilers of the new brokers and workers
 * are busy; reported, never compared):
 * JetStream's shipped defaults ({@code js-1route}: 10,000 records, 1 MiB, the linger following the path's
 * round trip, 5-20 ms), two hand-tuned fixed settings on either side of them ({@code js-1route-fixed-medium}:
 * 256 records, 5 ms linger, for latency; {@code js-1route-fixed-large}: 4 MiB, 100 ms linger, for
 * throughput), the defaults again ({@code js-1route-again}: judged on the mean of their two runs, first and
 * last of the compared JetStream settings), MirrorMaker 2 tuned once for the default
 * cell ({@code mm2-tuned-once}) and, where its tuning rule gives a different configuration for the cell
 * (more than {@value Mm2Configs#MANY_PARTITIONS} partitions), MirrorMaker 2 tuned for the cell
 * ({@code mm2-tuned-src}); elsewhere the once-tuned configuration is the cell's tuned one. In the first cell
 * MirrorMaker 2's worker gets a warm-up round of its own ({@code mm2-warmup}) before MM2 tuned once.
 *
 * <p>After all cells: one {@code GRID} line per cell and variant, one {@code CELL} line per cell with the
 * verdicts (the defaults against the best fixed setting, MM2 once against MM2 for the cell, the defaults
 * against MM2 once), {@code <out>/grid.json} and {@code <out>/grid.md} (the table).
 */
public final class EnvironmentGrid {

    /** The default cell's values, from which every other cell moves. */
    public static final long DEFAULT_UPLINK_BITS = 40_000_000L;
    public static final int DEFAULT_DELAY_MS = 25;
    public static final int DEFAULT_VALUE_BYTES = BenchPlan.VALUE_BYTES;
    public static final int DEFAULT_PARTITIONS = BenchPlan.PARTITIONS;

    /**
     * The hosts' TCP congestion control the grid runs with unless {@code --congestion-control} says otherwise:
     * reno. With bbr (the other scenarios' default) ProbeRTT stalls every steadily busy relay link for ~200 ms
     * every 10-20 s, which decides a latency phase's p99 by whether a stall falls into it
     * ({@code docs/operations.md}, "TCP congestion control on relay hosts"); the grid compares batch settings,
     * not the hosts' TCP.
     */
    public static final String CONGESTION_CONTROL = "reno";

    /**
     * Where the grid's brokers keep their logs unless {@code --broker-storage} says otherwise: in memory. On this
     * machine's virtual disk the destination broker's stores into the index files of 1,200 partitions fault for
     * up to seconds and stall every exactly-once setting alike at 100-byte records
     * ({@code docs/bench/2026-12-06-environment-grid.md}, "The stalls at 1,200 partitions are broker B's page
     * faults"); the grid compares the replicators' settings, not the machine's disk. Since 7 December 2026.
     */
    public static final BenchPlan.BrokerStorage BROKER_STORAGE = BenchPlan.BrokerStorage.MEMORY;

    /**
     * A variant's warm-up at the latency phase's rate, after its burst (below the settling step): the relays'
     * and the tasks' first seconds at the steady rate (the path-following linger needs receipts of batches
     * that did not queue). 8 s until 7 December 2026; 6 s since the cells share warm JVMs.
     */
    static final Duration WARMUP = Duration.ofSeconds(6);

    /**
     * The largest backlog of a cell, in record bytes. At 200 Mbit/s the drain is CPU-bound on this machine at
     * ~30 MB/s of records: 250 MB drained in 7-8 s, where a second of start-up or of a late transaction moved
     * the figure by 10-15% (the run of 6 December); 10 s of the uplink (425 MB) drains in about 14 s.
     */
    static final double MAX_BACKLOG_BYTES = 450e6;

    /**
     * How long the second warm-up round waits at most, after its backlog drain, for quiet compilers (the
     * {@link CompilerSettling} steps). With two rounds and no wait (run of 7 December 2026, 01:49-02:20 UTC)
     * the first compared variant still measured 0.26-0.50 JIT cores in its latency phase, the next ones
     * 0.04-0.18, and the defaults, run first, had p99 148 against 121 ms for the same settings run last (75 ms
     * one way); one round that waited 40 s did not help either, for the next deployment compiled again.
     */
    static final Duration WARMUP_ROUND_SETTLING = Duration.ofSeconds(40);

    /**
     * The shortest latency phase: 1,140-4,570 records at 1 KiB. One hiccup of 100-200 ms sets such a phase's top
     * 1%, so the defaults run twice, around fixed-medium ({@link #variants}); 20 s phases would take the grid
     * past its hour.
     */
    static final Duration LATENCY_PHASE = Duration.ofSeconds(10);

    /**
     * The latency phase of the cells with more partitions than the default: 13,710-68,550 records. There the
     * defaults (a 6.25 ms linger at 25 ms one way) and fixed-medium (5 ms) traded places from run to run on a
     * 10 s phase's p99 (0.60-1.04 over five runs of 7 December 2026, the machine at 1.7-2.0 cores; humps of
     * 0.1-0.3 s in single seconds): three times the records make the 99th percentile a second's hump cannot
     * decide alone. About 7 minutes more on a full run.
     */
    static final Duration MANY_PARTITIONS_LATENCY_PHASE = Duration.ofSeconds(30);

    /** The latency phase's load: this fraction of one uplink, in record bytes. */
    public static final double LOW_LOAD = 0.10;

    /** JetStream's shipped defaults in the grid. */
    public static final String DEFAULTS = Variants.JS_1_ROUTE;

    /**
     * The defaults' second run in a full cell, after the fixed settings: a cell's verdict takes the defaults'
     * figures as the mean of their two runs (first and last of the compared JetStream settings), so that the
     * compilers still busy after the warm-up round weigh on them no more than on the fixed settings.
     */
    public static final String DEFAULTS_AGAIN = Variants.JS_1_ROUTE_AGAIN;

    /**
     * fixed-medium's second run, in the 1,200-partition cells only ({@link #variants}): there a cell's verdict
     * takes fixed-medium's figures as the mean of its two runs too.
     */
    public static final String FIXED_MEDIUM_AGAIN = Variants.JS_1_ROUTE_FIXED_MEDIUM_AGAIN;

    /** The fixed settings, the defaults among them: the best of these is a cell's "best fixed". */
    public static final List<String> FIXED = List.of(Variants.JS_1_ROUTE, Variants.JS_1_ROUTE_FIXED_MEDIUM,
            Variants.JS_1_ROUTE_FIXED_LARGE);

    private static final ObjectMapper JSON = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(SerializationFeature.INDENT_OUTPUT);

    private EnvironmentGrid() {
    }

    /**
     * One environment.
     *
     * @param name                short id, also the folder of its run
     * @param moves               what differs from the default cell, in words
     * @param uplinkBitsPerSecond every host's uplink cap
     * @param oneWayDelayMs       one-way delay between the sites
     * @param valueBytes          value size of every record
     * @param partitions          partitions of the topic
     */
    public record Cell(String name, String moves, long uplinkBitsPerSecond, int oneWayDelayMs, int valueBytes,
                       int partitions) {
        public Cell {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(moves, "moves");
        }

        /** Uplink capacity in bytes per second. */
        public double uplinkBytesPerSecond() {
            return uplinkBitsPerSecond / 8.0;
        }
    }

    /**
     * The cells of the full grid (eleven: the default cell, each axis moved alone to both its other values
     * where it has two, and three pairs where two constraints meet), or of the quick grid (two small cells
     * for {@code mvn verify -Plong}: the default cell and the short round trip with small records).
     */
    public static List<Cell> cells(boolean quick) {
        Cell base = new Cell("default", "-", DEFAULT_UPLINK_BITS, DEFAULT_DELAY_MS, DEFAULT_VALUE_BYTES,
                DEFAULT_PARTITIONS);
        if (quick) {
            return List.of(base, new Cell("d5-r100", "5 ms, 100 B records", DEFAULT_UPLINK_BITS, 5, 100,
                    DEFAULT_PARTITIONS));
        }
        return List.of(base,
                new Cell("up10", "10 Mbit/s", 10_000_000L, DEFAULT_DELAY_MS, DEFAULT_VALUE_BYTES, DEFAULT_PARTITIONS),
                new Cell("up200", "200 Mbit/s", 200_000_000L, DEFAULT_DELAY_MS, DEFAULT_VALUE_BYTES,
                        DEFAULT_PARTITIONS),
                new Cell("d5", "5 ms one way", DEFAULT_UPLINK_BITS, 5, DEFAULT_VALUE_BYTES, DEFAULT_PARTITIONS),
                new Cell("d75", "75 ms one way", DEFAULT_UPLINK_BITS, 75, DEFAULT_VALUE_BYTES, DEFAULT_PARTITIONS),
                new Cell("r100", "100 B records", DEFAULT_UPLINK_BITS, DEFAULT_DELAY_MS, 100, DEFAULT_PARTITIONS),
                new Cell("r16k", "16 KiB records", DEFAULT_UPLINK_BITS, DEFAULT_DELAY_MS, 16 << 10, DEFAULT_PARTITIONS),
                new Cell("p1200", "1,200 partitions", DEFAULT_UPLINK_BITS, DEFAULT_DELAY_MS, DEFAULT_VALUE_BYTES,
                        1200),
                new Cell("up10-d75", "10 Mbit/s, 75 ms one way", 10_000_000L, 75, DEFAULT_VALUE_BYTES,
                        DEFAULT_PARTITIONS),
                new Cell("up200-p1200", "200 Mbit/s, 1,200 partitions", 200_000_000L, DEFAULT_DELAY_MS,
                        DEFAULT_VALUE_BYTES, 1200),
                new Cell("r100-p1200", "100 B records, 1,200 partitions", DEFAULT_UPLINK_BITS, DEFAULT_DELAY_MS, 100,
                        1200));
    }

    /**
     * The cells named in {@code names} ({@code --cells}), in the grid's order.
     *
     * @throws IllegalArgumentException naming the unknown names and the known ones
     */
    public static List<Cell> select(List<Cell> cells, List<String> names) {
        List<String> known = cells.stream().map(Cell::name).toList();
        List<String> unknown = names.stream().filter(n -> !known.contains(n)).toList();
        if (names.isEmpty() || !unknown.isEmpty()) {
            throw new IllegalArgumentException("--cells: " + (names.isEmpty() ? "no cell given" : "unknown " + unknown)
                    + "; known: " + String.join(", ", known));
        }
        return cells.stream().filter(c -> names.contains(c.name())).toList();
    }

    /**
     * The variants a cell runs, in the order they run ({@code quick}: the defaults and MM2 tuned once). The grid's
     * {@code first} cell also runs the warm-up rounds: JetStream's two ({@code js-warmup}, {@code js-warmup-again})
     * before its compared variants, MirrorMaker 2's one ({@code mm2-warmup}) before MM2's; every later cell meets
     * the same, warm, brokers and workers. JetStream's compared settings run as fixed-large, the defaults,
     * fixed-medium, the defaults again: the defaults' two runs bracket the setting that sets the cells' best p99
     * (fixed-medium), and fixed-large, whose p99 is about twice anyone's, takes the cell's first place, which
     * measured worse than the same settings later in the cell (the run of 7 December 2026, 05:00 UTC: the
     * defaults' p99 78 and 80 ms first in the default cell and in {@code up10}, 66 and 61 ms fourth). In the
     * cells of more partitions than the default cell's, fixed-medium runs a second time, last of the compared
     * JetStream settings, and is judged on the mean of its two runs as the defaults are on theirs: there a
     * 10 s phase's p99 depends on whether a hump of 0.2-0.3 s hits the run (every setting had them in one run
     * or another, the runs of 7 December 2026, 08:55 and 09:51 UTC), and comparing the mean of two runs with
     * one run favoured the setting run once (about 70 s more per cell).
     */
    public static List<String> variants(Cell cell, boolean quick, boolean first) {
        List<String> ids = new ArrayList<>();
        boolean warmUp = first && !quick;
        if (warmUp) {
            ids.add(Variants.JS_WARMUP);
            ids.add(Variants.JS_WARMUP_AGAIN);
        }
        if (!quick) {
            ids.add(Variants.JS_1_ROUTE_FIXED_LARGE);
        }
        ids.add(DEFAULTS);
        if (!quick) {
            ids.add(Variants.JS_1_ROUTE_FIXED_MEDIUM);
            ids.add(DEFAULTS_AGAIN);
            if (cell.partitions() > DEFAULT_PARTITIONS) {
                ids.add(FIXED_MEDIUM_AGAIN);
            }
        }
        if (warmUp) {
            ids.add(Variants.MM2_WARMUP);
        }
        ids.add(Variants.MM2_TUNED_ONCE);
        if (!quick && mm2RetunedDiffers(cell)) {
            ids.add(Variants.MM2_TUNED_SRC);
        }
        return ids;
    }

    /** The variants of a cell's plan in the plan's order ({@link #variants}), not the catalogue's. */
    static List<Variant> inOrder(BenchPlan plan) {
        return plan.variants().stream().map(Variants::byId).toList();
    }

    /** Whether MM2's tuning rule gives the cell a configuration other than the default cell's. */
    static boolean mm2RetunedDiffers(Cell cell) {
        return !Mm2Configs.tuning(cell.partitions()).equals(Mm2Configs.tuning(DEFAULT_PARTITIONS));
    }

    /**
     * The steady-load plan of a cell, on top of {@code base} (its network mode, connector keys, command
     * line; its output folder gets the cell's name). The latency phase offers {@link #LOW_LOAD} of one
     * uplink for at least {@link #LATENCY_PHASE} ({@link #MANY_PARTITIONS_LATENCY_PHASE} above the default
     * partition count) and 1,000 records (at most 30 s); the backlog is 10 s of the uplink at the
     * compression the records get (about 1.7x), within 20-450 MB ({@link #MAX_BACKLOG_BYTES}) and at most 500,000 records; the warm-up
     * is a quarter of the backlog as a burst (it compiles the busy path of the variant's new relay JVMs),
     * then {@link #WARMUP} at the latency phase's rate, shorter than {@link CompilerSettling#STEP} so that
     * no settling steps follow (waiting until every compiler is quiet took up to 120 s per variant: the
     * grid would not fit its hour). In the {@code first} cell every JVM is new, so two warm-up rounds
     * ({@code js-warmup}, {@code js-warmup-again}) run first: without a warm-up round the first variant of each cell had its p50
     * 20-30 ms above the same settings run later; after one round, even one that then waited 40 s for quiet
     * compilers, the replicator's second deployment set the Connect workers compiling again (0.27-0.34 JIT cores
     * each in its latency phase, p50 / p99 62 / 89 ms against 51 / 71 for the same settings run fourth); the
     * third deployment still compiled (0.26-0.50 JIT cores) when it followed at once, so the second round then
     * waits for quiet compilers (at most {@link #WARMUP_ROUND_SETTLING}); MirrorMaker 2's worker gets one round
     * ({@code mm2-warmup}). Later cells meet the same JVMs and run no warm-up round. No idle phase. Quick: 2 s of warm-up
     * without burst, a 5 s latency phase, 8 MB of backlog at most.
     */
    public static BenchPlan plan(Cell cell, BenchPlan base, boolean quick, boolean first) {
        double recordBytes = cell.valueBytes() + (double) BenchPlan.RECORD_OVERHEAD_BYTES;
        double rate = Math.max(1, Math.round(LOW_LOAD * cell.uplinkBytesPerSecond() / recordBytes));
        long shortest = cell.partitions() > BenchPlan.PARTITIONS ? MANY_PARTITIONS_LATENCY_PHASE.toSeconds()
                : LATENCY_PHASE.toSeconds();
        double latencySeconds = quick ? 5 : Math.min(30, Math.max(shortest, 1000 / rate));
        double backlog = Math.min(MAX_BACKLOG_BYTES, Math.max(20e6, cell.uplinkBytesPerSecond() * 1.7 * 10));
        backlog = Math.min(backlog, 500_000 * recordBytes);
        if (quick) {
            backlog = Math.min(backlog, 8e6);
        }
        long burst = quick ? 0 : Math.round(backlog / 4);
        return base.withValueBytes(cell.valueBytes())
                .withPartitions(cell.partitions())
                .withNetwork(base.network(), cell.uplinkBitsPerSecond(), Duration.ofMillis(cell.oneWayDelayMs()))
                .withPhases(quick ? Duration.ofSeconds(2) : WARMUP, burst,
                        Duration.ofMillis(Math.round(latencySeconds * 1000)),
                        rate, Math.max(1_000_000, Math.round(backlog)))
                .withIdlePhase(Duration.ZERO)
                .withVariants(variants(cell, quick, first))
                .withOutputDir(base.outputDir().resolve(cell.name()));
    }

    /**
     * One variant in one cell: throughput (record and wire MB/s of the drain, its CPU per MB and what
     * bound it), the latency phase's percentiles and replicator cores at 10% load, the cores every JVM's
     * JIT compilers took in that phase (summed: above ~0.1 the figures were measured while compiling),
     * and whether everything arrived once and in order; {@code error} is the failure, or null.
     */
    public record Row(String cell, String variant, double recordMbS, double wireMbS, double coreSecondsPerMb,
                      double drainReplicatorCores, long p50Ms, long p99Ms, double steadyReplicatorCores,
                      double steadyJitCores, boolean delivered, String binds, String error) {

        boolean ok() {
            return error == null && delivered;
        }
    }

    /** The rows of one cell's run: one per variant, a failed one with its error. */
    public static List<Row> rows(Cell cell, BenchResult result) {
        List<Row> rows = new ArrayList<>();
        for (VariantResult v : result.variants()) {
            VariantResult.BacklogPhase b = v.backlog();
            VariantResult.LatencyPhase l = v.latency();
            boolean delivered = v.verification() != null && v.verification().ok();
            String error = v.error() != null ? v.error() : b == null || l == null ? "a phase is missing"
                    : !delivered ? "lost, duplicated or reordered records: " + v.verification() : null;
            rows.add(new Row(cell.name(), v.id(), b == null ? 0 : b.throughputMbS(), b == null ? 0 : b.wireMbS(),
                    b == null ? 0 : b.coreSecondsPerMb(), b == null ? 0 : b.replicatorCores(),
                    l == null ? 0 : l.latencyP50Ms(), l == null ? 0 : l.latencyP99Ms(),
                    l == null ? 0 : l.replicatorCores(),
                    l == null ? 0 : VariantRunner.round(l.jitCoresPerProcess().values().stream()
                            .mapToDouble(Double::doubleValue).sum()),
                    delivered, b == null ? "-" : b.binds(), error));
        }
        return rows;
    }

    /**
     * A cell's verdicts. {@code defaultsRecordMbS} and {@code defaultsP99Ms} are the defaults' figures (the
     * mean of their two runs, {@link #defaults}; NaN and -1 when neither delivered). {@code bestFixedThroughput} / {@code bestFixedP99} name the fixed settings with the
     * highest throughput and the lowest p99 (each may be the defaults); the ratios are the defaults' against
     * them (throughput: defaults / best; p99: best / defaults, so 1.0 is level and above 0.9 meets the
     * target either way); {@code mm2OnceVsCell} is MM2 once / MM2 for the cell (1.0 where they are the same
     * configuration); {@code defaultsVsMm2Once} the defaults' throughput over MM2 once's. Ratios are NaN
     * where a variant is missing or failed.
     */
    public record Verdict(String cell, double defaultsRecordMbS, long defaultsP99Ms, String bestFixedThroughput,
                          double throughputVsBest, String bestFixedP99, double p99VsBest, double mm2OnceVsCell,
                          double defaultsVsMm2Once, boolean allDelivered) {

        /** Whether the defaults reach 0.9x the best fixed setting on both figures. */
        public boolean defaultsWithinTenPercent() {
            return throughputVsBest >= 0.9 && p99VsBest >= 0.9;
        }
    }

    /** The verdict of one cell's rows. */
    public static Verdict verdict(String cell, List<Row> rows) {
        Map<String, Row> byVariant = new LinkedHashMap<>();
        rows.stream().filter(r -> r.cell().equals(cell) && r.ok()).forEach(r -> byVariant.put(r.variant(), r));
        Optional<Row> defaults = meanOfRuns(DEFAULTS, byVariant.get(DEFAULTS), byVariant.get(DEFAULTS_AGAIN));
        defaults.ifPresent(d -> byVariant.put(DEFAULTS, d));
        meanOfRuns(Variants.JS_1_ROUTE_FIXED_MEDIUM, byVariant.get(Variants.JS_1_ROUTE_FIXED_MEDIUM),
                byVariant.get(FIXED_MEDIUM_AGAIN)).ifPresent(m -> byVariant.put(Variants.JS_1_ROUTE_FIXED_MEDIUM, m));
        Optional<Row> bestThroughput = FIXED.stream().map(byVariant::get).filter(Objects::nonNull)
                .max(java.util.Comparator.comparingDouble(Row::recordMbS));
        Optional<Row> bestP99 = FIXED.stream().map(byVariant::get).filter(Objects::nonNull)
                .min(java.util.Comparator.comparingLong(Row::p99Ms));
        Optional<Row> once = Optional.ofNullable(byVariant.get(Variants.MM2_TUNED_ONCE));
        // MM2 retuned for the cell where it ran; MM2 once where it did not (the same configuration), never
        // MM2 once in place of a retuned run that failed
        boolean retunedRan = rows.stream().anyMatch(r -> r.cell().equals(cell)
                && r.variant().equals(Variants.MM2_TUNED_SRC));
        Optional<Row> forCell = retunedRan ? Optional.ofNullable(byVariant.get(Variants.MM2_TUNED_SRC)) : once;
        boolean allDelivered = rows.stream().filter(r -> r.cell().equals(cell)).allMatch(Row::ok);
        return new Verdict(cell, defaults.map(Row::recordMbS).orElse(Double.NaN),
                defaults.map(Row::p99Ms).orElse(-1L), bestThroughput.map(Row::variant).orElse("-"),
                ratio(defaults.map(Row::recordMbS), bestThroughput.map(Row::recordMbS)),
                bestP99.map(Row::variant).orElse("-"),
                ratio(bestP99.map(r -> (double) r.p99Ms()), defaults.map(r -> (double) r.p99Ms())),
                ratio(once.map(Row::recordMbS), forCell.map(Row::recordMbS)),
                ratio(defaults.map(Row::recordMbS), once.map(Row::recordMbS)), allDelivered);
    }

    /**
     * A setting's figures in a cell from its runs (the defaults', fixed-medium's at 1,200 partitions): the mean
     * of the two where both delivered (throughput, p50 and p99, cores), the one run that did otherwise; named
     * {@code name}.
     */
    static Optional<Row> meanOfRuns(String name, Row first, Row again) {
        if (first == null || again == null) {
            return Optional.ofNullable(first != null ? first : again)
                    .map(r -> new Row(r.cell(), name, r.recordMbS(), r.wireMbS(), r.coreSecondsPerMb(),
                            r.drainReplicatorCores(), r.p50Ms(), r.p99Ms(), r.steadyReplicatorCores(),
                            r.steadyJitCores(), r.delivered(), r.binds(), r.error()));
        }
        return Optional.of(new Row(first.cell(), name, mean(first.recordMbS(), again.recordMbS()),
                mean(first.wireMbS(), again.wireMbS()), mean(first.coreSecondsPerMb(), again.coreSecondsPerMb()),
                mean(first.drainReplicatorCores(), again.drainReplicatorCores()),
                Math.round(mean(first.p50Ms(), again.p50Ms())), Math.round(mean(first.p99Ms(), again.p99Ms())),
                mean(first.steadyReplicatorCores(), again.steadyReplicatorCores()),
                mean(first.steadyJitCores(), again.steadyJitCores()), true, first.binds(), null));
    }

    private static double mean(double a, double b) {
        return (a + b) / 2;
    }

    private static double ratio(Optional<Double> numerator, Optional<Double> denominator) {
        if (numerator.isEmpty() || denominator.isEmpty() || denominator.get() <= 0) {
            return Double.NaN;
        }
        return Math.round(numerator.get() / denominator.get() * 1000) / 1000.0;
    }

    /** The summary line of a row. */
    public static String line(Row r) {
        if (r.error() != null) {
            return String.format(Locale.ROOT, "GRID cell=%s variant=%s status=failed error=%s", r.cell(), r.variant(),
                    r.error().replace('\n', ' '));
        }
        return String.format(Locale.ROOT, "GRID cell=%s variant=%s record_mb_s=%.2f wire_mb_s=%.2f core_s_per_mb=%.4f"
                        + " drain_replicator_cores=%.2f p50_ms=%d p99_ms=%d steady_replicator_cores=%.2f"
                        + " steady_jit_cores=%.2f binds=\"%s\" status=ok", r.cell(), r.variant(), r.recordMbS(),
                r.wireMbS(), r.coreSecondsPerMb(), r.drainReplicatorCores(), r.p50Ms(), r.p99Ms(),
                r.steadyReplicatorCores(), r.steadyJitCores(), r.binds());
    }

    /** The verdict line of a cell. */
    public static String line(Verdict v) {
        return String.format(Locale.ROOT, "CELL cell=%s defaults_record_mb_s=%.2f defaults_p99_ms=%d"
                        + " defaults_throughput_vs_best_fixed=%.2f (best %s)"
                        + " defaults_p99_vs_best_fixed=%.2f (best %s)"
                        + " mm2_once_vs_mm2_cell=%.2f defaults_vs_mm2_once=%.2f"
                        + " within_10pct=%s delivered=%s", v.cell(), v.defaultsRecordMbS(), v.defaultsP99Ms(),
                v.throughputVsBest(), v.bestFixedThroughput(),
                v.p99VsBest(), v.bestFixedP99(),
                v.mm2OnceVsCell(), v.defaultsVsMm2Once(), v.defaultsWithinTenPercent(), v.allDelivered());
    }

    /** What a grid run gave: every row, every cell's verdict, and whether every variant delivered everything. */
    public record Outcome(List<Row> rows, List<Verdict> verdicts, boolean ok) {
    }

    /**
     * Runs {@code cells} in turn in one {@link WanEnvironment}: the network is built once with the shortest
     * one-way delay of the cells and {@link WanEnvironment#reshape reshaped} for each (every uplink's cap, the
     * delay each way), the brokers and Connect workers start once and stay up from cell to cell (each cell's
     * topics have names of their own: {@code bench.<cell>.<variant>}). Each cell writes its own
     * {@code <out>/<cell>/wan.json} and {@code .html}; then {@link #report}s under {@code base}'s output folder.
     */
    public static Outcome run(List<Cell> cells, BenchPlan base, boolean quick, PrintStream out)
            throws IOException, java.util.concurrent.TimeoutException, InterruptedException {
        if (cells.isEmpty()) {
            throw new IllegalArgumentException("the grid needs at least one cell");
        }
        List<Row> rows = new ArrayList<>();
        boolean ok = true;
        BenchPlan first = plan(cells.get(0), base, quick, true);
        int shortest = cells.stream().mapToInt(Cell::oneWayDelayMs).min().orElseThrow();
        BenchPlan built = first.withNetwork(base.network(), cells.get(0).uplinkBitsPerSecond(),
                Duration.ofMillis(shortest)).withOutputDir(base.outputDir());
        try (WanEnvironment environment = WanEnvironment.open(built, out)) {
            environment.cluster().keepIdleWorkers();
            environment.cluster().collectGarbageBetweenVariants();
            for (int i = 0; i < cells.size(); i++) {
                Cell cell = cells.get(i);
                BenchPlan plan = plan(cell, base, quick, i == 0);
                out.println("JetStream bench grid, cell " + cell.name() + " (" + cell.moves() + "): variants "
                        + String.join(", ", plan.variants()));
                long startNanos = System.nanoTime();
                String startedAt = java.time.Instant.now().toString();
                environment.reshape(cell.uplinkBitsPerSecond(), Duration.ofMillis(cell.oneWayDelayMs()));
                if (i == 0) {
                    environment.warmBrokers(plan);
                }
                BenchNetwork network = environment.network();
                Map<String, Object> shape = network.describe();
                List<String> skipped = new ArrayList<>();
                List<VariantResult> results = environment.run(plan, inOrder(plan),
                        "bench." + cell.name() + ".", skipped);
                BenchResult result = WanBench.report(plan, shape, network.oneWayDelay(),
                        network.uplinkBytesPerSecond(), results, skipped, startedAt,
                        (System.nanoTime() - startNanos) / 1e9, out);
                ok &= result.ok();
                rows.addAll(rows(cell, result));
            }
        }
        List<Verdict> verdicts = report(cells, rows, base.outputDir(), base.commandLine(), out);
        return new Outcome(rows, verdicts, ok && rows.stream().allMatch(Row::ok));
    }

    /** Prints every row's and cell's line and writes {@code grid.json} and {@code grid.md} under {@code dir}. */
    public static List<Verdict> report(List<Cell> cells, List<Row> rows, Path dir, String commandLine, PrintStream out)
            throws IOException {
        rows.forEach(r -> out.println(line(r)));
        List<Verdict> verdicts = cells.stream().map(c -> verdict(c.name(), rows)).toList();
        verdicts.forEach(v -> out.println(line(v)));
        Files.createDirectories(dir);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("command_line", commandLine);
        json.put("cells", cells);
        json.put("rows", rows);
        json.put("verdicts", verdicts);
        JSON.writeValue(dir.resolve("grid.json").toFile(), json);
        Files.writeString(dir.resolve("grid.md"), markdown(cells, rows, verdicts, commandLine));
        out.println("Grid: " + dir.resolve("grid.json") + " and " + dir.resolve("grid.md"));
        return verdicts;
    }

    /** The grid as Markdown tables: one row per cell and variant, then one per cell with its verdicts. */
    static String markdown(List<Cell> cells, List<Row> rows, List<Verdict> verdicts, String commandLine) {
        StringBuilder md = new StringBuilder("# Environment grid\n\n`").append(commandLine).append("`\n\n");
        md.append("| cell | moves | variant | record MB/s (100%) | wire MB/s | core-s/MB | p50 / p99 ms (10%) |"
                + " cores (10%) | JIT cores (10%) | binds (drain) |\n");
        md.append("|---|---|---|---:|---:|---:|---:|---:|---:|---|\n");
        for (Cell c : cells) {
            for (Row r : rows) {
                if (!r.cell().equals(c.name())) {
                    continue;
                }
                md.append("| ").append(c.name()).append(" | ").append(c.moves()).append(" | ").append(r.variant());
                if (r.error() != null) {
                    md.append(" | failed: ").append(r.error().replace('|', '/').replace('\n', ' ')).append(" | | | | | | |\n");
                } else {
                    md.append(String.format(Locale.ROOT, " | %.2f | %.2f | %.4f | %d / %d | %.2f | %.2f | %s |%n",
                            r.recordMbS(), r.wireMbS(), r.coreSecondsPerMb(), r.p50Ms(), r.p99Ms(),
                            r.steadyReplicatorCores(), r.steadyJitCores(), r.binds().replace('|', '/')));
                }
            }
        }
        md.append("\n| cell | defaults (mean of 2 runs): MB/s, p99 ms | defaults / best fixed, throughput |"
                + " best fixed / defaults, p99 | MM2 once / MM2 for the cell | defaults / MM2 once | within 10% |"
                + " delivered |\n");
        md.append("|---|---:|---:|---:|---:|---:|---|---|\n");
        for (Verdict v : verdicts) {
            md.append(String.format(Locale.ROOT, "| %s | %.2f, %d | %.2f (%s) | %.2f (%s) | %.2f | %.2f | %s | %s |%n",
                    v.cell(), v.defaultsRecordMbS(), v.defaultsP99Ms(), v.throughputVsBest(), v.bestFixedThroughput(), v.p99VsBest(), v.bestFixedP99(),
                    v.mm2OnceVsCell(), v.defaultsVsMm2Once(),
                    v.defaultsWithinTenPercent() ? "yes" : "no", v.allDelivered() ? "yes" : "no"));
        }
        return md.toString();
    }
}
