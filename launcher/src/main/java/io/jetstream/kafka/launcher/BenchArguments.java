package io.jetstream.kafka.launcher;

import static io.jetstream.kafka.launcher.OptionChecks.requireWithin;

import io.jetstream.kafka.bench.BenchPlan;
import io.jetstream.kafka.bench.EnvironmentGrid;
import io.jetstream.kafka.bench.Variants;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The scenario and options of {@code ./jetstream bench} as picocli reads them (a mixin of
 * {@link BenchCommand}); {@link #plan} lays them over the scenario's defaults ({@link
 * BenchPlan#defaults}, which depend on {@code --quick}) and checks them. Every error names the
 * option and what it accepts.
 */
final class BenchArguments {

    @Spec(Spec.Target.MIXEE)
    private CommandSpec command;

    @Parameters(index = "0", paramLabel = "<scenario>", completionCandidates = Scenarios.class,
            description = "the scenario: ${COMPLETION-CANDIDATES}")
    private String scenario;

    @Option(names = "--scenario", paramLabel = "S", completionCandidates = Loads.class,
            description = "the offered load: ${COMPLETION-CANDIDATES} (default steady: warm-up, latency phase,"
                    + " backlog; varying-rate: rate steps 10x up and down with bursts, the shipped defaults"
                    + " against a sweep of fixed settings, output <scenario>-varying-rate; cold-start: a steady load"
                    + " while the source tasks restart and a relay fails and returns, time until batches are back to"
                    + " their steady size; capacity-change: three routes while one route's uplink cap is lowered to a"
                    + " quarter and raised again, then another route's delay grows, time until the route shares match"
                    + " the best static split; heterogeneous: three routes"
                    + " of different capacity, delay and price at a target rate, adaptive routing with a spend cap"
                    + " against round-robin, output <scenario>-heterogeneous; grid: the environment grid, eleven cells"
                    + " of uplink, delay, record size and partitions (about an hour here), each a steady run of JetStream's defaults, fixed"
                    + " settings and MM2 tuned once, output <out>/grid.json and grid.md)")
    private String load;

    /** The {@code --scenario} value that runs the environment grid ({@link EnvironmentGrid}). */
    static final String GRID = "grid";

    @Option(names = "--quick",
            description = "small volumes (output <scenario>-quick); steady: JetStream 3 routes vs MM2 tuned at the"
                    + " source; varying-rate: the shipped defaults vs the small fixed setting, 6 s steps; cold-start"
                    + " and capacity-change: js-3routes only, a 48-65 s load")
    private boolean quick;

    @Option(names = "--variants", paramLabel = "a,b", completionCandidates = VariantIds.class,
            description = "run only these variants (known: ${COMPLETION-CANDIDATES})")
    private String variants;

    @Option(names = "--warmup-s", paramLabel = "S",
            description = "warm-up at the latency phase's rate (default 90, varying-rate 30, quick 3)")
    private Double warmupS;

    @Option(names = "--warmup-burst-mb", paramLabel = "M",
            description = "record MB produced unthrottled before that warm-up, the replicator running, so that the"
                    + " busy path's code is compiled too (default 60, varying-rate 30, quick 0)")
    private Double warmupBurstMb;

    @Option(names = "--latency-s", paramLabel = "S", description = "latency phase duration (default 30, quick 10)")
    private Double latencyS;

    @Option(names = "--idle-s", paramLabel = "S", description = "after the latency phase, seconds without records,"
            + " the CPU of every process measured (default 20, quick 0 = no idle phase)")
    private Double idleS;

    @Option(names = "--latency-rate", paramLabel = "R",
            description = "latency phase rate in records/s (default 1000: ~20%% of one 40 Mbit/s uplink)")
    private Double latencyRate;

    @Option(names = "--backlog-mb", paramLabel = "M",
            description = "record MB produced while paused, then drained (default 300, quick 25)")
    private Double backlogMb;

    @Option(names = "--uplink-mbit", paramLabel = "M",
            description = "rate cap of each host's WAN uplink in Mbit/s (default 40, capacity-change 10)")
    private Double uplinkMbit;

    @Option(names = "--delay-ms", paramLabel = "D", description = "one-way delay between the sites in ms (default 25)")
    private Long delayMs;

    @Option(names = "--congestion-control", paramLabel = "CC",
            description = "TCP congestion control of the namespace hosts (default bbr, reno with --scenario grid;"
                    + " reno and bbr are allowed in network namespaces on a stock kernel). bbr's ProbeRTT stalls a"
                    + " steadily busy connection for ~200 ms every ~10 s (JetStream's relay links), not MM2's"
                    + " fetches: docs/benchmarks.md")
    private String congestionControl;

    @Option(names = "--broker-storage", paramLabel = "S",
            description = "where both brokers keep their logs: disk (default; under the work folder) or memory"
                    + " (default with --scenario grid; tmpfs under /dev/shm). On a slow virtual disk, a broker's"
                    + " writes into the index files of 1,200 partitions stall it in page faults; memory measures"
                    + " the replicators as on brokers whose disks keep up: docs/benchmarks.md")
    private String brokerStorage;

    @Option(names = "--cells", paramLabel = "c[,c..]",
            description = "--scenario grid only: run just these cells (names as in docs/benchmarks.md), e.g. to"
                    + " measure again after a change")
    private String cells;

    @Option(names = "--record-bytes", paramLabel = "B",
            description = "value size of every record in bytes (default 1024; random letters A-Z)")
    private Integer recordBytes;

    @Option(names = "--partitions", paramLabel = "P[,P..]",
            description = "partitions of every variant's topic (default 6; MirrorMaker 2's tuned variants use"
                    + " 128 KiB producer batches above 32); several counts run the plan once per count and print"
                    + " the cost curve (SWEEP lines, <out>/partition-sweep.json and .html; each run under <out>/p<P>)")
    private String partitions;

    @Option(names = "--jfr", paramLabel = "DIR",
            description = "record every child JVM (brokers, workers, relays) with the JDK's Flight Recorder"
                    + " (settings=profile) into DIR/<process>-<pid>.jfr; read with 'jfr print' or 'jfr summary'")
    private Path jfr;

    @Option(names = "--network", paramLabel = "N",
            description = "auto, namespaces or loopback (default auto: namespaces when root and available)")
    private String network;

    @Option(names = "--source-prop", paramLabel = "K=V",
            description = "set K on JetStream's source-site connector on top of config/source-connector.json"
                    + " (repeatable; for experiments: the report lists every changed key)")
    private List<String> sourceProps;

    @Option(names = "--sink-prop", paramLabel = "K=V",
            description = "the same for the destination-site connector and config/sink-connector.json")
    private List<String> sinkProps;

    @Option(names = "--out", paramLabel = "DIR", description = "output folder (default target/bench)")
    private Path output;

    /**
     * The plan these options describe: the scenario's defaults, each option given laid over them.
     *
     * @param defaultOutput where the files go without {@code --out}
     * @param commandLine   the command as typed, for the report
     */
    BenchPlan plan(Path defaultOutput, String commandLine) {
        CommandLine cli = command.commandLine();
        if (!BenchPlan.SCENARIOS.contains(scenario)) {
            throw new ParameterException(cli, "unknown scenario '" + scenario + "'; known: "
                    + String.join(", ", BenchPlan.SCENARIOS));
        }
        BenchPlan.Load chosen;
        if (grid()) {
            // every cell sets these itself (EnvironmentGrid.plan)
            rejectWithGrid(cli, "--warmup-s", warmupS);
            rejectWithGrid(cli, "--warmup-burst-mb", warmupBurstMb);
            rejectWithGrid(cli, "--latency-s", latencyS);
            rejectWithGrid(cli, "--latency-rate", latencyRate);
            rejectWithGrid(cli, "--backlog-mb", backlogMb);
            rejectWithGrid(cli, "--idle-s", idleS);
            rejectWithGrid(cli, "--uplink-mbit", uplinkMbit);
            rejectWithGrid(cli, "--delay-ms", delayMs);
            rejectWithGrid(cli, "--partitions", partitions);
            rejectWithGrid(cli, "--record-bytes", recordBytes);
            rejectWithGrid(cli, "--variants", variants);
        }
        try {
            chosen = load == null || grid() ? BenchPlan.Load.STEADY : BenchPlan.Load.of(load);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cli, e.getMessage() + " or " + GRID, e);
        }
        BenchPlan plan = BenchPlan.defaults(scenario, chosen, quick, output != null ? output : defaultOutput,
                commandLine);
        List<String> ids = variants != null ? variantIds(cli, variants) : plan.variants();
        double warmup = given(cli, "--warmup-s", warmupS, 0, 600, plan.warmup().toMillis() / 1000.0);
        double burstMb = given(cli, "--warmup-burst-mb", warmupBurstMb, 0, 10_000, plan.warmupBurstBytes() / 1e6);
        double latency = given(cli, "--latency-s", latencyS, 1, 3600, plan.latencyPhase().toMillis() / 1000.0);
        double rate = given(cli, "--latency-rate", latencyRate, 1, 1_000_000, plan.latencyRate());
        double backlog = given(cli, "--backlog-mb", backlogMb, 1, 100_000, plan.backlogBytes() / 1e6);
        double idle = given(cli, "--idle-s", idleS, 0, 3600, plan.idlePhase().toMillis() / 1000.0);
        double uplink = given(cli, "--uplink-mbit", uplinkMbit, 1, 10_000, plan.uplinkBitsPerSecond() / 1e6);
        long delay = delayMs != null ? delayMs : plan.oneWayDelay().toMillis();
        requireWithin(cli, "--delay-ms", delay, 0, 1000);
        BenchPlan.NetworkMode mode = network != null ? networkMode(cli, network) : plan.network();
        int partitionCount = partitions != null ? partitionCounts().get(0) : plan.partitions();
        try {
            return plan.withVariants(ids)
                    .withPhases(Duration.ofMillis(Math.round(warmup * 1000)), Math.round(burstMb * 1e6),
                            Duration.ofMillis(Math.round(latency * 1000)), rate, Math.round(backlog * 1e6))
                    .withNetwork(mode, Math.round(uplink * 1e6), Duration.ofMillis(delay))
                    .withConnectorProps(properties(cli, "--source-prop", sourceProps),
                            properties(cli, "--sink-prop", sinkProps))
                    .withPartitions(partitionCount)
                    .withIdlePhase(Duration.ofMillis(Math.round(idle * 1000)))
                    .withValueBytes(recordBytes != null ? recordBytes : plan.valueBytes())
                    .withCongestionControl(congestionControl != null ? congestionControl
                            : grid() ? EnvironmentGrid.CONGESTION_CONTROL : plan.congestionControl())
                    .withBrokerStorage(brokerStorage != null ? BenchPlan.BrokerStorage.of(brokerStorage)
                            : grid() ? EnvironmentGrid.BROKER_STORAGE : plan.brokerStorage());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cli, e.getMessage(), e);
        }
    }

    /**
     * The partition counts of {@code --partitions} in the order given (one for a single run, several for
     * a sweep); empty when the option was not given.
     */
    List<Integer> partitionCounts() {
        if (partitions == null) {
            return List.of();
        }
        CommandLine cli = command.commandLine();
        List<Integer> counts = new ArrayList<>();
        for (String part : partitions.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            int count;
            try {
                count = Integer.parseInt(part.trim());
            } catch (NumberFormatException e) {
                throw new ParameterException(cli, "--partitions: '" + part.trim() + "' is not a whole number");
            }
            requireWithin(cli, "--partitions", count, 1, BenchPlan.MAX_PARTITIONS);
            if (counts.contains(count)) {
                throw new ParameterException(cli, "--partitions: " + count + " is given twice");
            }
            counts.add(count);
        }
        if (counts.isEmpty()) {
            throw new ParameterException(cli, "--partitions: no count given");
        }
        return counts;
    }

    /** Whether {@code --scenario grid} was given: the plan is then the base every cell lays its values over. */
    boolean grid() {
        return GRID.equals(load);
    }

    /** The grid's cells to run: {@code --cells} if given, else all of them (or the quick ones). */
    List<EnvironmentGrid.Cell> gridCells() {
        CommandLine cli = command.commandLine();
        List<EnvironmentGrid.Cell> all = EnvironmentGrid.cells(quick);
        if (cells == null) {
            return all;
        }
        if (!grid()) {
            throw new ParameterException(cli, "--cells: only --scenario " + GRID + " has cells");
        }
        List<String> names = java.util.Arrays.stream(cells.split(",")).map(String::trim).filter(n -> !n.isEmpty())
                .toList();
        try {
            return EnvironmentGrid.select(all, names);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cli, e.getMessage(), e);
        }
    }

    /** Whether {@code --quick} was given. */
    boolean quick() {
        return quick;
    }

    private static void rejectWithGrid(CommandLine cli, String option, Object value) {
        if (value != null) {
            throw new ParameterException(cli, option + ": --scenario " + GRID + " sets it per cell"
                    + " (docs/benchmarks.md, \"Environment grid\"); leave it out");
        }
    }

    /** Where {@code --jfr} records the child JVMs, if given. */
    java.util.Optional<Path> flightRecordings() {
        return java.util.Optional.ofNullable(jfr);
    }

    /** The option's value if given (checked against its range), else the scenario's default. */
    private static double given(CommandLine cli, String option, Double value, double min, double max,
                                double scenarioDefault) {
        if (value == null) {
            return scenarioDefault;
        }
        requireWithin(cli, option, value, min, max);
        return value;
    }

    private static List<String> variantIds(CommandLine cli, String list) {
        List<String> ids = new ArrayList<>();
        for (String id : list.split(",")) {
            if (!id.isBlank()) {
                ids.add(id.trim());
            }
        }
        List<String> unknown = ids.stream().filter(id -> !Variants.ids().contains(id)).toList();
        if (ids.isEmpty() || !unknown.isEmpty()) {
            throw new ParameterException(cli, "--variants: " + (ids.isEmpty() ? "no variant given"
                    : "unknown " + unknown) + "; known: " + String.join(", ", Variants.ids()));
        }
        return ids;
    }

    private static BenchPlan.NetworkMode networkMode(CommandLine cli, String value) {
        return switch (value) {
            case "auto" -> BenchPlan.NetworkMode.AUTO;
            case "namespaces" -> BenchPlan.NetworkMode.NAMESPACES;
            case "loopback" -> BenchPlan.NetworkMode.LOOPBACK;
            default -> throw new ParameterException(cli, "--network: '" + value
                    + "' is not one of auto, namespaces, loopback");
        };
    }

    /** {@code K=V} pairs in the order given, keys and values trimmed; a later key wins. */
    private static Map<String, String> properties(CommandLine cli, String option, List<String> pairs) {
        Map<String, String> properties = new LinkedHashMap<>();
        for (String pair : pairs != null ? pairs : List.<String>of()) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new ParameterException(cli, option + ": '" + pair + "' is not KEY=VALUE");
            }
            properties.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
        return properties;
    }

    /** The scenarios, for the usage text. */
    static final class Scenarios implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return BenchPlan.SCENARIOS.iterator();
        }
    }

    /** The variant ids, for the usage text. */
    static final class VariantIds implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Variants.ids().iterator();
        }
    }

    /** The loads, for the usage text. */
    static final class Loads implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            List<String> ids = new ArrayList<>(BenchPlan.Load.ids());
            ids.add(GRID);
            return ids.iterator();
        }
    }
}
