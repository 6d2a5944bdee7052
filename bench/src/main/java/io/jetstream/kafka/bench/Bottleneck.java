package io.jetstream.kafka.bench;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Which resource bound a phase, from what the phase measured: a WAN uplink (carrying at least
 * {@link #LINK_FULL} of its cap), the machine's CPU (busy at least {@link #CPU_FULL} of its cores),
 * or neither (the replicator's own pacing: batching waits, windows, round trips). Named with the
 * figures that show it, and for CPU the processes that used most of it, with the share their JIT
 * compilers took. Pure: it only reads its arguments.
 */
final class Bottleneck {

    /** An uplink at or above this fraction of its cap is full (tbf lets ~97-99% through). */
    static final double LINK_FULL = 0.90;
    /** A machine busy at or above this fraction of its cores is CPU-bound. */
    static final double CPU_FULL = 0.90;
    /** Uplinks carrying less than this fraction of their cap were not used by the variant. */
    private static final double LINK_USED = 0.05;
    private static final int TOP_PROCESSES = 3;

    private Bottleneck() {
    }

    /**
     * @param uplinkFill   each source uplink's wire rate as a fraction of its cap
     * @param machineCores cores the whole machine was busy
     * @param cpus         the machine's cores
     * @param cores        cores per watched process
     * @param jitCores     of those, cores of each process's JIT compiler threads
     */
    static String of(Map<String, Double> uplinkFill, double machineCores, int cpus, Map<String, Double> cores,
                     Map<String, Double> jitCores) {
        List<Map.Entry<String, Double>> used = uplinkFill.entrySet().stream()
                .filter(e -> e.getValue() >= LINK_USED).sorted(Map.Entry.comparingByKey()).toList();
        boolean allUsedFull = !used.isEmpty() && used.stream().allMatch(e -> e.getValue() >= LINK_FULL);
        boolean cpuFull = machineCores >= CPU_FULL * cpus;
        String links = used.isEmpty() ? "no uplink used"
                : used.stream().map(e -> String.format(Locale.ROOT, "%s %.0f%%", e.getKey(), 100 * e.getValue()))
                        .collect(Collectors.joining(", ", "uplinks at ", " of their cap"));
        String cpu = String.format(Locale.ROOT, "machine CPU %.2f of %d cores busy", machineCores, cpus);
        if (allUsedFull) {
            return "link: " + links + " (" + cpu + ")";
        }
        if (cpuFull) {
            return "CPU: " + cpu + "; most: " + top(cores, jitCores) + " (" + links + ")";
        }
        return "neither link nor CPU (the replicator's own pacing): " + links + ", " + cpu;
    }

    /**
     * The JVMs that stopped longest during the phase, for the latency tail: "; JVM pauses of 20 ms
     * or more: connect-B 3 (longest 118 ms), broker-B 1 (longest 31 ms)", or "" when none did.
     */
    static String pauses(Map<String, JvmPauses.Pauses> pauses) {
        List<Map.Entry<String, JvmPauses.Pauses>> longOnes = pauses.entrySet().stream()
                .filter(e -> e.getValue().longPauses() > 0)
                .sorted(Comparator.comparing((Map.Entry<String, JvmPauses.Pauses> e) -> e.getValue().maxMs())
                        .reversed().thenComparing(Map.Entry.comparingByKey()))
                .toList();
        if (longOnes.isEmpty()) {
            return "";
        }
        return longOnes.stream()
                .map(e -> String.format(Locale.ROOT, "%s %d (longest %.0f ms)", e.getKey(),
                        e.getValue().longPauses(), e.getValue().maxMs()))
                .collect(Collectors.joining(", ", String.format(Locale.ROOT, "; JVM pauses of %.0f ms or more: ",
                        JvmPauses.LONG_PAUSE_MS), ""));
    }

    private static String top(Map<String, Double> cores, Map<String, Double> jitCores) {
        return cores.entrySet().stream()
                .sorted(Map.Entry.<String, Double>comparingByValue(Comparator.reverseOrder())
                        .thenComparing(Map.Entry.comparingByKey()))
                .limit(TOP_PROCESSES)
                .map(e -> {
                    double jit = jitCores.getOrDefault(e.getKey(), 0.0);
                    return String.format(Locale.ROOT, "%s %.2f", e.getKey(), e.getValue())
                            + (jit >= 0.005 ? String.format(Locale.ROOT, " (JIT %.2f)", jit) : "");
                })
                .collect(Collectors.joining(", "));
    }
}
