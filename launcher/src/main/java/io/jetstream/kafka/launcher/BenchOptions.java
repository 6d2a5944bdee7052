package io.jetstream.kafka.launcher;

import io.jetstream.kafka.testkit.bench.BenchPlan;
import io.jetstream.kafka.testkit.bench.Variants;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Options of {@code ./jetstream bench <scenario>}, parsed into a {@link BenchPlan}. Every error names
 * the option and what it accepts.
 */
final class BenchOptions {

    static final String USAGE = String.join("\n",
            "usage: ./jetstream bench <scenario> [options]",
            "  scenarios: " + String.join(", ", BenchPlan.SCENARIOS),
            "  --quick            JetStream 3 routes vs MM2 tuned at the source, small volumes (output <scenario>-quick)",
            "  --variants a,b     run only these variants (known: " + String.join(", ", Variants.fullRun()) + ")",
            "  --warmup-s S       warm-up at the latency phase's rate (default 90, quick 3)",
            "  --warmup-burst-mb M record MB produced unthrottled before that warm-up, the replicator running,",
            "                     so that the busy path's code is compiled too (default 60, quick 0)",
            "  --latency-s S      latency phase duration (default 30, quick 10)",
            "  --latency-rate R   latency phase rate in records/s (default 1000: ~20% of one 40 Mbit/s uplink)",
            "  --backlog-mb M     record MB produced while paused, then drained (default 300, quick 25)",
            "  --uplink-mbit M    rate cap of each host's WAN uplink in Mbit/s (default 40)",
            "  --delay-ms D       one-way delay between the sites in ms (default 25)",
            "  --network N        auto, namespaces or loopback (default auto: namespaces when root and available)",
            "  --source-prop K=V  set K on JetStream's source-site connector on top of config/source-connector.json",
            "                     (repeatable; for experiments: the report lists every changed key)",
            "  --sink-prop K=V    the same for the destination-site connector and config/sink-connector.json",
            "  --out DIR          output folder (default target/bench)");

    private BenchOptions() {
    }

    static BenchPlan parse(String[] args, Path defaultOutput) throws JetstreamCli.UsageException {
        if (args.length == 0 || args[0].startsWith("-")) {
            if (args.length > 0 && ("--help".equals(args[0]) || "-h".equals(args[0]))) {
                throw new JetstreamCli.UsageException(USAGE);
            }
            throw new JetstreamCli.UsageException("bench needs a scenario\n" + USAGE);
        }
        String scenario = args[0];
        if (!BenchPlan.SCENARIOS.contains(scenario)) {
            throw new JetstreamCli.UsageException("unknown scenario '" + scenario + "'; known: "
                    + String.join(", ", BenchPlan.SCENARIOS));
        }
        boolean quick = Arrays.asList(args).contains("--quick");
        Path output = defaultOutput;
        for (int i = 1; i < args.length; i++) {
            if ("--out".equals(args[i])) {
                output = Path.of(value(args, i + 1, "--out"));
            }
        }
        String commandLine = "./jetstream bench " + String.join(" ", args);
        BenchPlan plan = BenchPlan.defaults(scenario, quick, output, commandLine);
        List<String> variants = plan.variants();
        double warmupS = plan.warmup().toMillis() / 1000.0;
        double burstMb = plan.warmupBurstBytes() / 1e6;
        double latencyS = plan.latencyPhase().toMillis() / 1000.0;
        double latencyRate = plan.latencyRate();
        double backlogMb = plan.backlogBytes() / 1e6;
        double uplinkMbit = plan.uplinkBitsPerSecond() / 1e6;
        long delayMs = plan.oneWayDelay().toMillis();
        BenchPlan.NetworkMode network = plan.network();
        Map<String, String> sourceProps = new LinkedHashMap<>();
        Map<String, String> sinkProps = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--quick" -> { }
                case "--out" -> i++;
                case "--variants" -> variants = variants(value(args, ++i, arg));
                case "--warmup-s" -> warmupS = number(args, ++i, arg, 0, 600);
                case "--warmup-burst-mb" -> burstMb = number(args, ++i, arg, 0, 10_000);
                case "--latency-s" -> latencyS = number(args, ++i, arg, 1, 3600);
                case "--latency-rate" -> latencyRate = number(args, ++i, arg, 1, 1_000_000);
                case "--backlog-mb" -> backlogMb = number(args, ++i, arg, 1, 100_000);
                case "--uplink-mbit" -> uplinkMbit = number(args, ++i, arg, 1, 10_000);
                case "--delay-ms" -> delayMs = (long) number(args, ++i, arg, 0, 1000);
                case "--network" -> network = network(value(args, ++i, arg));
                case "--source-prop" -> property(value(args, ++i, arg), arg, sourceProps);
                case "--sink-prop" -> property(value(args, ++i, arg), arg, sinkProps);
                case "--help", "-h" -> throw new JetstreamCli.UsageException(USAGE);
                default -> throw new JetstreamCli.UsageException("unknown option: " + arg + "\n" + USAGE);
            }
        }
        try {
            return plan.withVariants(variants)
                    .withPhases(Duration.ofMillis(Math.round(warmupS * 1000)), Math.round(burstMb * 1e6),
                            Duration.ofMillis(Math.round(latencyS
                            * 1000)), latencyRate, Math.round(backlogMb * 1e6))
                    .withNetwork(network, Math.round(uplinkMbit * 1e6), Duration.ofMillis(delayMs))
                    .withConnectorProps(sourceProps, sinkProps);
        } catch (IllegalArgumentException e) {
            throw new JetstreamCli.UsageException(e.getMessage());
        }
    }

    private static List<String> variants(String list) throws JetstreamCli.UsageException {
        List<String> ids = new ArrayList<>();
        for (String id : list.split(",")) {
            if (!id.isBlank()) {
                ids.add(id.trim());
            }
        }
        List<String> unknown = ids.stream().filter(id -> !Variants.fullRun().contains(id)).toList();
        if (ids.isEmpty() || !unknown.isEmpty()) {
            throw new JetstreamCli.UsageException("--variants: " + (ids.isEmpty() ? "no variant given"
                    : "unknown " + unknown) + "; known: " + String.join(", ", Variants.fullRun()));
        }
        return ids;
    }

    private static void property(String pair, String option, Map<String, String> into)
            throws JetstreamCli.UsageException {
        int eq = pair.indexOf('=');
        if (eq <= 0) {
            throw new JetstreamCli.UsageException(option + ": '" + pair + "' is not KEY=VALUE");
        }
        into.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
    }

    private static BenchPlan.NetworkMode network(String value) throws JetstreamCli.UsageException {
        return switch (value) {
            case "auto" -> BenchPlan.NetworkMode.AUTO;
            case "namespaces" -> BenchPlan.NetworkMode.NAMESPACES;
            case "loopback" -> BenchPlan.NetworkMode.LOOPBACK;
            default -> throw new JetstreamCli.UsageException("--network: '" + value
                    + "' is not one of auto, namespaces, loopback");
        };
    }

    private static String value(String[] args, int index, String option) throws JetstreamCli.UsageException {
        if (index >= args.length) {
            throw new JetstreamCli.UsageException(option + " needs a value\n" + USAGE);
        }
        return args[index];
    }

    private static double number(String[] args, int index, String option, double min, double max)
            throws JetstreamCli.UsageException {
        String text = value(args, index, option);
        double value;
        try {
            value = Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new JetstreamCli.UsageException(option + ": '" + text + "' is not a number");
        }
        if (value < min || value > max) {
            throw new JetstreamCli.UsageException(option + ": " + text + " is not between " + min + " and " + max);
        }
        return value;
    }
}
