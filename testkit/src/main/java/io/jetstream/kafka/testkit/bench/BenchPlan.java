package io.jetstream.kafka.testkit.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a benchmark run does: which variants, how long and how hard each phase is, the network.
 * Validated on construction; every message names the command-line option that sets the value.
 *
 * @param scenario        scenario name, the output file's name ({@code wan}; {@code wan-quick} with --quick)
 * @param quick           the small variant of the scenario (for {@code mvn verify})
 * @param variants        variant ids ({@link Variants}), run in catalog order
 * @param warmup          duration of the warm-up at {@code warmupRate}
 * @param warmupRate      records/s of the warm-up
 * @param warmupBurstBytes record bytes produced unthrottled at the start of each variant's warm-up
 *                        (the replicator running), so that the code of the busy path is compiled too
 *                        and the JIT is quiet when the phases are measured; 0 for none
 * @param latencyPhase    duration of the latency phase
 * @param latencyRate     records/s of the latency phase (~20% of one uplink at 1 KiB)
 * @param backlogBytes    record bytes produced while paused, then drained
 * @param uplinkBitsPerSecond rate cap of each host's WAN uplink
 * @param oneWayDelay     one-way delay between the sites
 * @param network         which network to build
 * @param outputDir       where {@code <scenario>.json} and {@code .html} go
 * @param commandLine     the command as typed, for the result
 * @param sourceProps     keys set on JetStream's source-site connector on top of {@code config/source-connector.json}
 *                        (for experiments; the shipped file is what a run measures when empty)
 * @param sinkProps       the same for the destination-site connector and {@code config/sink-connector.json}
 */
public record BenchPlan(String scenario, boolean quick, List<String> variants, Duration warmup, double warmupRate,
                        long warmupBurstBytes, Duration latencyPhase, double latencyRate, long backlogBytes, long uplinkBitsPerSecond,
                        Duration oneWayDelay, NetworkMode network, Path outputDir, String commandLine,
                        Map<String, String> sourceProps, Map<String, String> sinkProps) {

    /** Scenarios this version knows. */
    public static final List<String> SCENARIOS = List.of("wan");

    /** Records per partition split: every variant's topic has this many partitions. */
    public static final int PARTITIONS = 6;

    /** Value size of every record: 1 KiB of random A-Z letters. */
    public static final int VALUE_BYTES = 1024;

    /** Which network the run builds. */
    public enum NetworkMode {
        /** Namespaces when available, else the loopback emulator (said in the output). */
        AUTO,
        /** Namespaces or fail. */
        NAMESPACES,
        /** The loopback emulator even where namespaces work. */
        LOOPBACK
    }

    public BenchPlan {
        Objects.requireNonNull(scenario, "scenario");
        variants = List.copyOf(variants);
        Objects.requireNonNull(network, "network");
        Objects.requireNonNull(outputDir, "outputDir");
        Objects.requireNonNull(commandLine, "commandLine");
        sourceProps = Map.copyOf(sourceProps);
        sinkProps = Map.copyOf(sinkProps);
        require(SCENARIOS.contains(scenario), "scenario '" + scenario + "' is not one of " + SCENARIOS);
        Variants.select(variants);
        require(!warmup.isNegative(), "--warmup-s must be >= 0, was " + warmup.toSeconds());
        require(warmupRate > 0, "warm-up rate must be > 0, was " + warmupRate);
        require(warmupBurstBytes >= 0, "--warmup-burst-mb must be >= 0, was " + warmupBurstBytes / 1e6);
        require(latencyPhase.toMillis() >= 1000, "--latency-s must be >= 1, was " + latencyPhase.toMillis() / 1000.0);
        require(latencyRate > 0, "--latency-rate must be > 0, was " + latencyRate);
        require(backlogBytes >= 1_000_000, "--backlog-mb must be >= 1, was " + backlogBytes / 1e6);
        require(uplinkBitsPerSecond >= 1_000_000, "--uplink-mbit must be >= 1, was " + uplinkBitsPerSecond / 1e6);
        require(!oneWayDelay.isNegative() && oneWayDelay.toMillis() <= 1000,
                "--delay-ms must be within 0-1000, was " + oneWayDelay.toMillis());
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    /**
     * The defaults of a scenario: full run (every variant; a warm-up of a 60 MB burst and then 90 s at
     * the latency phase's rate, so that every JVM's JIT has settled before anything is measured; 30 s
     * latency phase at 1000 records/s, 300 MB backlog) or quick (JetStream 3 routes and MM2 tuned at
     * the source, 3 s warm-up without burst, 10 s latency phase, 25 MB backlog), 40 Mbit/s uplinks,
     * 25 ms one-way delay, output under {@code outputDir}.
     */
    public static BenchPlan defaults(String scenario, boolean quick, Path outputDir, String commandLine) {
        return new BenchPlan(scenario, quick, quick ? Variants.quickRun() : Variants.fullRun(),
                Duration.ofSeconds(quick ? 3 : 90), 1000, quick ? 0 : 60_000_000L, Duration.ofSeconds(quick ? 10 : 30),
                1000,
                quick ? 25_000_000L : 300_000_000L, 40_000_000L, Duration.ofMillis(25), NetworkMode.AUTO, outputDir,
                commandLine, Map.of(), Map.of());
    }

    /** The name of the output files: the scenario, with {@code -quick} for the quick variant. */
    public String outputName() {
        return quick ? scenario + "-quick" : scenario;
    }

    public BenchPlan withVariants(List<String> ids) {
        return new BenchPlan(scenario, quick, ids, warmup, warmupRate, warmupBurstBytes, latencyPhase, latencyRate, backlogBytes,
                uplinkBitsPerSecond, oneWayDelay, network, outputDir, commandLine, sourceProps, sinkProps);
    }

    public BenchPlan withPhases(Duration newWarmup, long newWarmupBurstBytes, Duration newLatencyPhase,
                                double newLatencyRate, long newBacklogBytes) {
        return new BenchPlan(scenario, quick, variants, newWarmup, newLatencyRate, newWarmupBurstBytes, newLatencyPhase, newLatencyRate,
                newBacklogBytes, uplinkBitsPerSecond, oneWayDelay, network, outputDir, commandLine, sourceProps, sinkProps);
    }

    /** The same plan with these keys set on JetStream's connectors on top of the shipped config files. */
    public BenchPlan withConnectorProps(Map<String, String> newSourceProps, Map<String, String> newSinkProps) {
        return new BenchPlan(scenario, quick, variants, warmup, warmupRate, warmupBurstBytes, latencyPhase,
                latencyRate, backlogBytes, uplinkBitsPerSecond, oneWayDelay, network, outputDir, commandLine,
                newSourceProps, newSinkProps);
    }

    public BenchPlan withNetwork(NetworkMode mode, long newUplinkBitsPerSecond, Duration newOneWayDelay) {
        return new BenchPlan(scenario, quick, variants, warmup, warmupRate, warmupBurstBytes, latencyPhase,
                latencyRate, backlogBytes, newUplinkBitsPerSecond, newOneWayDelay, mode, outputDir, commandLine, sourceProps, sinkProps);
    }
}
