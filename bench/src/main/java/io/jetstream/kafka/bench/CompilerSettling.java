package io.jetstream.kafka.bench;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Whether the JIT compilers of the processes a phase measures have gone quiet: the warm-up goes on at
 * its rate, a {@link #STEP} at a time, until every one of them spent less than {@link #QUIET_CORES} on
 * compiling in the last step, or {@link #MAX} has passed. A fixed warm-up is not enough: on two cores
 * the Connect workers and the destination broker (whose transaction paths only a JetStream variant
 * runs) were still compiling 0.1-0.2 cores each 70 s into a 40 s warm-up at the latency rate, taken
 * from the latency phase of whichever variant ran first, while the variants after it found the
 * brokers compiled. Pure arithmetic on {@link Window}s; the runner produces the load.
 */
final class CompilerSettling {

    /** The length of one step of extra warm-up. */
    static final Duration STEP = Duration.ofSeconds(10);
    /** At most this much extra warm-up; the phases are then measured and the report says who still compiled. */
    static final Duration MAX = Duration.ofSeconds(120);
    /** A process whose compilers used less than this over a step is settled (about one core-second a minute). */
    static final double QUIET_CORES = 0.02;

    private final List<String> processes;

    /** {@code processes}: the variant's replicator processes and the brokers. */
    CompilerSettling(List<String> processes) {
        this.processes = List.copyOf(processes);
    }

    /** The processes (of those watched) whose compilers used {@link #QUIET_CORES} or more in {@code step}, with their cores. */
    Map<String, Double> stillCompiling(Window step) {
        Map<String, Double> busy = new TreeMap<>();
        Map<String, Double> jit = step.jitCores();
        for (String process : processes) {
            Double cores = jit.get(process);
            if (cores != null && cores >= QUIET_CORES) {
                busy.put(process, Math.round(cores * 1000) / 1000.0);
            }
        }
        return busy;
    }

    /** How many steps fit in {@link #MAX}. */
    static int maxSteps() {
        return (int) (MAX.toMillis() / STEP.toMillis());
    }

    /** The line the runner prints once settled (or not). */
    static String summary(int steps, Map<String, Double> stillCompiling) {
        long seconds = steps * STEP.toSeconds();
        return stillCompiling.isEmpty()
                ? String.format(Locale.ROOT, "warm-up: JIT compilers quiet (under %.2f cores each) after %d s more",
                        QUIET_CORES, seconds)
                : String.format(Locale.ROOT, "warm-up: JIT compilers still busy after %d s more: %s cores", seconds,
                        stillCompiling);
    }
}
