package io.jetstream.kafka.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What a benchmark run does: which variants, how long and how hard each phase is, the network.
 * Validated on construction; every message names the command-line option that sets the value.
 *
 * @param scenario        scenario name, the output file's name ({@code wan}; {@code wan-quick} with --quick)
 * @param load            the offered load: {@link Load#STEADY} (warm-up, latency phase, backlog) or
 *                        {@link Load#VARYING_RATE} (warm-up, then the steps of {@link #rateSteps()})
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
 * @param partitions      partitions of every variant's topic ({@code --partitions}, default {@value #PARTITIONS})
 * @param idlePhase       steady load only: how long the replicator is left without records after the latency phase,
 *                        its CPU measured ({@code --idle-s}; 20 s, quick 0 = no idle phase)
 * @param valueBytes      value size of every record ({@code --record-bytes}, default {@value #VALUE_BYTES})
 * @param congestionControl TCP congestion control of the namespace hosts ({@code --congestion-control}, default
 *                        {@value #CONGESTION_CONTROL}); the loopback network ignores it
 * @param brokerStorage   where both brokers keep their logs ({@code --broker-storage}, default disk)
 */
public record BenchPlan(String scenario, Load load, boolean quick, List<String> variants, Duration warmup, double warmupRate,
                        long warmupBurstBytes, Duration latencyPhase, double latencyRate, long backlogBytes, long uplinkBitsPerSecond,
                        Duration oneWayDelay, NetworkMode network, Path outputDir, String commandLine,
                        Map<String, String> sourceProps, Map<String, String> sinkProps, int partitions,
                        Duration idlePhase, int valueBytes, String congestionControl, BrokerStorage brokerStorage) {

    /**
     * The TCP congestion control of the namespace hosts by default ({@code --congestion-control}): bbr,
     * as the benchmark always ran. Its ProbeRTT phase (every ~10 s without a lower round-trip sample,
     * 4 packets in flight for 200 ms) stalls a steadily busy connection such as a relay's WAN link, and
     * spares request/response connections that go idle between responses (MirrorMaker 2's fetches);
     * see docs/benchmarks.md.
     */
    public static final String CONGESTION_CONTROL = "bbr";

    /** Scenarios this version knows. */
    public static final List<String> SCENARIOS = List.of("wan");

    /** The default partition count of every variant's topic ({@code --partitions}). */
    public static final int PARTITIONS = 6;

    /** The most partitions {@code --partitions} takes (one broker per site holds them all). */
    public static final int MAX_PARTITIONS = 20_000;

    /** Default value size of every record ({@code --record-bytes}): 1 KiB of random A-Z letters. */
    public static final int VALUE_BYTES = 1024;

    /** The smallest value {@code --record-bytes} takes: the workload's stamp (run id, sequence, time) fits. */
    public static final int MIN_VALUE_BYTES = io.jetstream.kafka.testkit.workload.WorkloadSpec.MIN_VALUE_BYTES;

    /** The largest value {@code --record-bytes} takes (1 MiB: Kafka's default record size limit). */
    public static final int MAX_VALUE_BYTES = 1 << 20;

    /**
     * Bytes a record carries besides its value, for sizing the phases in records: the key, the two
     * headers (run id and sequence) and Kafka's per-record framing, about 70.
     */
    public static final int RECORD_OVERHEAD_BYTES = 70;

    /** The offered load of a run ({@code --scenario}). */
    public enum Load {
        /** Warm-up, latency phase at one rate, backlog drain: issue 10's phases. */
        STEADY("steady"),
        /**
         * Warm-up, then the rate steps 10x up and down with bursts ({@link RateStep#varyingRate}),
         * every step's latency, delivered rate and CPU measured: issue 13's first scenario.
         */
        VARYING_RATE("varying-rate"),
        /**
         * A steady load while the source-site tasks restart and a relay fails and comes back
         * ({@link EventSchedule#coldStart}): how fast batches grow back to their steady size.
         */
        COLD_START("cold-start"),
        /**
         * Three routes at a steady load while one route's uplink cap is lowered and raised again
         * ({@link EventSchedule#capacityChange}): how fast and how steadily the routes' shares follow.
         */
        CAPACITY_CHANGE("capacity-change"),
        /**
         * Warm-up, then one step at a target rate over three routes of different capacity, delay and
         * price ({@link Heterogeneous}): issue 13's heterogeneous scenario.
         */
        HETEROGENEOUS("heterogeneous");

        private final String id;

        Load(String id) {
            this.id = id;
        }

        /** The name on the command line and in the output. */
        public String id() {
            return id;
        }

        /** A steady load with timed events ({@link EventSchedule}). */
        public boolean hasEvents() {
            return this == COLD_START || this == CAPACITY_CHANGE;
        }

        /** @throws IllegalArgumentException naming {@code --scenario} and the known ids */
        public static Load of(String id) {
            for (Load load : values()) {
                if (load.id.equals(id)) {
                    return load;
                }
            }
            throw new IllegalArgumentException("--scenario: '" + id + "' is not one of " + ids());
        }

        public static List<String> ids() {
            return java.util.Arrays.stream(values()).map(Load::id).toList();
        }
    }

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
        Objects.requireNonNull(load, "load");
        variants = List.copyOf(variants);
        Objects.requireNonNull(network, "network");
        Objects.requireNonNull(outputDir, "outputDir");
        Objects.requireNonNull(commandLine, "commandLine");
        Objects.requireNonNull(brokerStorage, "brokerStorage");
        sourceProps = Map.copyOf(sourceProps);
        sinkProps = Map.copyOf(sinkProps);
        require(SCENARIOS.contains(scenario), "scenario '" + scenario + "' is not one of " + SCENARIOS);
        List<Variant> chosen = Variants.select(variants);
        if (load.hasEvents()) {
            for (Variant v : chosen) {
                require(v.isJetStream() && (load != Load.CAPACITY_CHANGE || v.routes() >= 3), "--variants: "
                        + v.id() + " cannot run --scenario " + load.id() + (load == Load.CAPACITY_CHANGE
                        ? " (it needs JetStream with three routes)" : " (it needs JetStream)"));
            }
        }
        require(!warmup.isNegative(), "--warmup-s must be >= 0, was " + warmup.toSeconds());
        require(warmupRate > 0, "warm-up rate must be > 0, was " + warmupRate);
        require(warmupBurstBytes >= 0, "--warmup-burst-mb must be >= 0, was " + warmupBurstBytes / 1e6);
        require(latencyPhase.toMillis() >= 1000, "--latency-s must be >= 1, was " + latencyPhase.toMillis() / 1000.0);
        require(latencyRate > 0, "--latency-rate must be > 0, was " + latencyRate);
        require(backlogBytes >= 1_000_000, "--backlog-mb must be >= 1, was " + backlogBytes / 1e6);
        require(uplinkBitsPerSecond >= 1_000_000, "--uplink-mbit must be >= 1, was " + uplinkBitsPerSecond / 1e6);
        require(!oneWayDelay.isNegative() && oneWayDelay.toMillis() <= 1000,
                "--delay-ms must be within 0-1000, was " + oneWayDelay.toMillis());
        require(!idlePhase.isNegative() && idlePhase.toSeconds() <= 3600,
                "--idle-s must be within 0-3600, was " + idlePhase.toMillis() / 1000.0);
        require(valueBytes >= MIN_VALUE_BYTES && valueBytes <= MAX_VALUE_BYTES, "--record-bytes must be within "
                + MIN_VALUE_BYTES + "-" + MAX_VALUE_BYTES + ", was " + valueBytes);
        require(congestionControl != null && congestionControl.matches("[a-z0-9_]{1,15}"),
                "--congestion-control must be a kernel congestion control name such as bbr, cubic or reno, was '"
                        + congestionControl + "'");
        require(partitions >= 1 && partitions <= MAX_PARTITIONS,
                "--partitions must be within 1-" + MAX_PARTITIONS + ", was " + partitions);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    /**
     * The defaults of a scenario with the steady load: full run (every variant; a warm-up of a 60 MB
     * burst and then 90 s at the latency phase's rate, so that every JVM's JIT has settled before
     * anything is measured; 30 s latency phase at 1000 records/s, 20 s idle, 300 MB backlog) or quick (JetStream 3
     * routes and MM2 tuned at the source, 3 s warm-up without burst, 10 s latency phase, 25 MB
     * backlog), 40 Mbit/s uplinks, 25 ms one-way delay, output under {@code outputDir}.
     */
    public static BenchPlan defaults(String scenario, boolean quick, Path outputDir, String commandLine) {
        return defaults(scenario, Load.STEADY, quick, outputDir, commandLine);
    }

    /**
     * The defaults of a scenario and load. Steady: see {@link #defaults(String, boolean, Path, String)}.
     * Varying rate: the shipped defaults and the fixed sweep on one route ({@link Variants#varyingRateRun},
     * quick: the defaults and the sweep's small setting); a warm-up of a
     * 30 MB burst and 30 s at 1,000 records/s (quick: 3 s, no burst); no backlog phase (the schedule
     * has its own bursts; {@code backlogBytes} stays at its default and is not used).
     */
    public static BenchPlan defaults(String scenario, Load load, boolean quick, Path outputDir, String commandLine) {
        if (load.hasEvents()) {
            return eventDefaults(scenario, load, quick, outputDir, commandLine);
        }
        boolean varying = load == Load.VARYING_RATE || load == Load.HETEROGENEOUS;
        List<String> variants = load == Load.HETEROGENEOUS ? Heterogeneous.variants()
                : varying ? (quick ? Variants.varyingRateQuick() : Variants.varyingRateRun())
                : quick ? Variants.quickRun() : Variants.fullRun();
        Duration warmup = Duration.ofSeconds(quick ? 3 : varying ? 30 : 90);
        long burst = quick || load == Load.HETEROGENEOUS ? 0 : varying ? 30_000_000L : 60_000_000L;
        return new BenchPlan(scenario, load, quick, variants, warmup, 1000, burst, Duration.ofSeconds(quick ? 10 : 30),
                1000, quick ? 25_000_000L : 300_000_000L, 40_000_000L, Duration.ofMillis(25), NetworkMode.AUTO,
                outputDir, commandLine, Map.of(), Map.of(), PARTITIONS, Duration.ofSeconds(quick || load != Load.STEADY ? 0 : 20),
                VALUE_BYTES, CONGESTION_CONTROL, BrokerStorage.DISK);
    }

    /**
     * Cold start and capacity change: the scenario's variants ({@link Variants#coldStartRun},
     * {@link Variants#capacityChangeRun}; quick: {@link Variants#eventsQuick}), a warm-up of a 30 MB burst
     * and 30 s at 1,000 records/s (quick: 3 s, no burst), no latency or backlog phase (the schedule is the
     * load). Capacity change runs 5 Mbit/s uplinks, so that 60% of three of them (~1,630 records/s) is a
     * load the 2-core machine carries without its CPU becoming the bottleneck instead of the links (at 10
     * Mbit/s, 3,250 records/s, a quick run on a busy machine was CPU-bound, its batches at their cap).
     */
    private static BenchPlan eventDefaults(String scenario, Load load, boolean quick, Path outputDir,
                                           String commandLine) {
        List<String> variants = quick ? Variants.eventsQuick()
                : load == Load.COLD_START ? Variants.coldStartRun() : Variants.capacityChangeRun();
        long uplink = load == Load.CAPACITY_CHANGE ? 5_000_000L : 40_000_000L;
        return new BenchPlan(scenario, load, quick, variants, Duration.ofSeconds(quick ? 3 : 30), 1000,
                quick ? 0 : 30_000_000L, Duration.ofSeconds(10), 1000, 25_000_000L, uplink, Duration.ofMillis(25),
                NetworkMode.AUTO, outputDir, commandLine, Map.of(), Map.of(), PARTITIONS, Duration.ZERO, VALUE_BYTES,
                CONGESTION_CONTROL, BrokerStorage.DISK);
    }

    /**
     * The steady load and events of a scenario with events for a variant with {@code routes} routes;
     * empty for the other loads.
     */
    public java.util.Optional<EventSchedule> eventSchedule(int routes) {
        return switch (load) {
            case COLD_START -> java.util.Optional.of(EventSchedule.coldStart(quick, uplinkBitsPerSecond, routes));
            case CAPACITY_CHANGE -> java.util.Optional.of(EventSchedule.capacityChange(quick, uplinkBitsPerSecond));
            default -> java.util.Optional.empty();
        };
    }

    /**
     * The steps of the varying-rate load for this plan's uplinks ({@link RateStep#varyingRate}), of the
     * heterogeneous load ({@link Heterogeneous#steps}); empty for the steady load.
     */
    public List<RateStep> rateSteps() {
        return switch (load) {
            case VARYING_RATE -> RateStep.varyingRate(quick, uplinkBitsPerSecond);
            case HETEROGENEOUS -> Heterogeneous.steps(quick);
            case STEADY, COLD_START, CAPACITY_CHANGE -> List.of();
        };
    }

    /** How long a phase waits with nothing new arriving at B before it fails, unless the destination waits longer. */
    public static final Duration STALL = Duration.ofSeconds(90);

    /**
     * How long a phase waits with nothing new arriving at B before it fails: {@link #STALL}, or, where
     * the plan gives the destination more patience with records that are written but not yet readable
     * ({@code exactly.once.stable.timeout.ms} in the sink's properties), that plus 30 s. The bench must not
     * call a stall what the destination is still waiting out: it reports the task's own verdict instead.
     */
    public Duration stallPatience() {
        String stable = sinkProps.get("exactly.once.stable.timeout.ms");
        if (stable == null) {
            return STALL;
        }
        Duration destination;
        try {
            destination = Duration.ofMillis(Long.parseLong(stable.trim())).plusSeconds(30);
        } catch (NumberFormatException e) {
            return STALL; // the connector refuses the value itself, naming the key
        }
        return destination.compareTo(STALL) > 0 ? destination : STALL;
    }

    /**
     * The name of the output files: the scenario, {@code -varying-rate} for that load, {@code -quick}
     * for the quick variant ({@code wan}, {@code wan-quick}, {@code wan-varying-rate-quick}).
     */
    public String outputName() {
        return scenario + (load == Load.STEADY ? "" : "-" + load.id()) + (quick ? "-quick" : "");
    }

    public BenchPlan withVariants(List<String> ids) {
        return new BenchPlan(scenario, load, quick, ids, warmup, warmupRate, warmupBurstBytes, latencyPhase, latencyRate, backlogBytes,
                uplinkBitsPerSecond, oneWayDelay, network, outputDir, commandLine, sourceProps, sinkProps, partitions, idlePhase, valueBytes, congestionControl, brokerStorage);
    }

    public BenchPlan withPhases(Duration newWarmup, long newWarmupBurstBytes, Duration newLatencyPhase,
                                double newLatencyRate, long newBacklogBytes) {
        return new BenchPlan(scenario, load, quick, variants, newWarmup, newLatencyRate, newWarmupBurstBytes, newLatencyPhase, newLatencyRate,
                newBacklogBytes, uplinkBitsPerSecond, oneWayDelay, network, outputDir, commandLine, sourceProps, sinkProps, partitions, idlePhase, valueBytes, congestionControl, brokerStorage);
    }

    /** The same plan with these keys set on JetStream's connectors on top of the shipped config files. */
    public BenchPlan withConnectorProps(Map<String, String> newSourceProps, Map<String, String> newSinkProps) {
        return new BenchPlan(scenario, load, quick, variants, warmup, warmupRate, warmupBurstBytes, latencyPhase,
                latencyRate, backlogBytes, uplinkBitsPerSecond, oneWayDelay, network, outputDir, commandLine,
                newSourceProps, newSinkProps, partitions, idlePhase, valueBytes, congestionControl, brokerStorage);
    }

    /** The same plan writing its files under {@code dir}. */
    public BenchPlan withOutputDir(Path dir) {
        return new BenchPlan(scenario, load, quick, variants, warmup, warmupRate, warmupBurstBytes, latencyPhase,
                latencyRate, backlogBytes, uplinkBitsPerSecond, oneWayDelay, network, dir, commandLine,
                sourceProps, sinkProps, partitions, idlePhase, valueBytes, congestionControl, brokerStorage);
    }

    /** The same plan with {@code count} partitions in every variant's topic. */
    public BenchPlan withPartitions(int count) {
        return new BenchPlan(scenario, load, quick, variants, warmup, warmupRate, warmupBurstBytes, latencyPhase,
                latencyRate, backlogBytes, uplinkBitsPerSecond, oneWayDelay, network, outputDir, commandLine,
                sourceProps, sinkProps, count, idlePhase, valueBytes, congestionControl, brokerStorage);
    }

    /** The same plan with an idle phase of {@code idle} after the latency phase (zero: none). */
    public BenchPlan withIdlePhase(Duration idle) {
        return new BenchPlan(scenario, load, quick, variants, warmup, warmupRate, warmupBurstBytes, latencyPhase,
                latencyRate, backlogBytes, uplinkBitsPerSecond, oneWayDelay, network, outputDir, commandLine,
                sourceProps, sinkProps, partitions, idle, valueBytes, congestionControl, brokerStorage);
    }

    public BenchPlan withNetwork(NetworkMode mode, long newUplinkBitsPerSecond, Duration newOneWayDelay) {
        return new BenchPlan(scenario, load, quick, variants, warmup, warmupRate, warmupBurstBytes, latencyPhase,
                latencyRate, backlogBytes, newUplinkBitsPerSecond, newOneWayDelay, mode, outputDir, commandLine, sourceProps, sinkProps, partitions, idlePhase, valueBytes, congestionControl, brokerStorage);
    }

    /** The same plan with records of {@code bytes} value bytes. */
    public BenchPlan withValueBytes(int bytes) {
        return new BenchPlan(scenario, load, quick, variants, warmup, warmupRate, warmupBurstBytes, latencyPhase,
                latencyRate, backlogBytes, uplinkBitsPerSecond, oneWayDelay, network, outputDir, commandLine,
                sourceProps, sinkProps, partitions, idlePhase, bytes, congestionControl, brokerStorage);
    }

    /** The same plan with the namespace hosts' TCP congestion control {@code name}. */
    public BenchPlan withCongestionControl(String name) {
        return new BenchPlan(scenario, load, quick, variants, warmup, warmupRate, warmupBurstBytes, latencyPhase,
                latencyRate, backlogBytes, uplinkBitsPerSecond, oneWayDelay, network, outputDir, commandLine,
                sourceProps, sinkProps, partitions, idlePhase, valueBytes, name, brokerStorage);
    }

    /** The same plan with the brokers' logs kept on {@code storage}. */
    public BenchPlan withBrokerStorage(BrokerStorage storage) {
        return new BenchPlan(scenario, load, quick, variants, warmup, warmupRate, warmupBurstBytes, latencyPhase,
                latencyRate, backlogBytes, uplinkBitsPerSecond, oneWayDelay, network, outputDir, commandLine,
                sourceProps, sinkProps, partitions, idlePhase, valueBytes, congestionControl, storage);
    }

    /**
     * Where both brokers keep their log directories ({@code --broker-storage}). {@code disk}: under the run's work
     * folder, on whatever file system holds it (as every run before 7 December 2026). {@code memory}: in a folder
     * under {@code /dev/shm} (tmpfs), removed when the run ends. On this machine's virtual disk (ext4), a broker's
     * writes into the memory-mapped index files of 1,200 partitions stall its request threads in page faults for
     * up to seconds (profiled in {@code docs/bench/2026-12-06-environment-grid.md}, "The stalls at 1,200
     * partitions are broker B's page faults"); in memory they do not, as on a broker whose disk keeps up. The
     * replicators' own processes are the same either way.
     */
    public enum BrokerStorage {
        DISK, MEMORY;

        /** The option's value: {@code disk} or {@code memory}. */
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The storage {@code id} names ({@code disk} or {@code memory}). */
        public static BrokerStorage of(String id) {
            for (BrokerStorage s : values()) {
                if (s.id().equals(id)) {
                    return s;
                }
            }
            throw new IllegalArgumentException("--broker-storage must be disk or memory, was '" + id + "'");
        }

        /**
         * A new folder for a broker's logs on this storage, named {@code prefix} and a random suffix: under
         * {@code diskParent} for {@code disk}, under {@code /dev/shm} for {@code memory}. The caller removes it.
         *
         * @throws IOException if the folder cannot be made, or {@code /dev/shm} is not a writable folder
         */
        public Path newLogFolder(Path diskParent, String prefix) throws IOException {
            if (this == DISK) {
                return Files.createTempDirectory(Files.createDirectories(diskParent), prefix);
            }
            Path shm = Path.of("/dev/shm");
            if (!Files.isDirectory(shm) || !Files.isWritable(shm)) {
                throw new IOException("--broker-storage memory needs a writable tmpfs at " + shm);
            }
            return Files.createTempDirectory(shm, prefix);
        }
    }

    /** Records of this plan's size that make {@code bytes} record bytes (value and overhead). */
    public long recordsFor(double bytes) {
        return Math.max(1, Math.round(bytes / (valueBytes + (double) RECORD_OVERHEAD_BYTES)));
    }
}
