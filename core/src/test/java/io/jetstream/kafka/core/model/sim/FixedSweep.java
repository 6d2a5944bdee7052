package io.jetstream.kafka.core.model.sim;

import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.DecisionReason;
import io.jetstream.kafka.core.model.FixedBatchPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.DoubleUnaryOperator;
import java.util.function.ToDoubleFunction;

/** Runs one trace with every fixed batch size of a grid (and each linger given) and keeps the results. */
public final class FixedSweep {

    public static final int[] SIZES = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128};

    private final List<SimResult> results = new ArrayList<>();

    public static FixedBatchPolicy fixed(int records, Duration linger) {
        return fixed(records, linger, 256, 16L << 20);
    }

    public static FixedBatchPolicy fixed(int records, Duration linger, int window, long windowBytes) {
        return new FixedBatchPolicy(BatchDecision.of(records, (int) Math.min(Integer.MAX_VALUE, records * 4096L),
                linger, window, windowBytes, DecisionReason.FIXED));
    }

    public static FixedSweep run(PathParams path, DoubleUnaryOperator rate, double seconds, double warmupSeconds,
                                 double targetMillis, long seed, Duration... lingers) {
        return run(path, rate, seconds, warmupSeconds, targetMillis, seed, SIZES, 256, 16L << 20, lingers);
    }

    /** The sweep over {@code sizes}, with a window of {@code window} batches and {@code windowBytes}. */
    public static FixedSweep run(PathParams path, DoubleUnaryOperator rate, double seconds, double warmupSeconds,
                                 double targetMillis, long seed, int[] sizes, int window, long windowBytes,
                                 Duration... lingers) {
        FixedSweep sweep = new FixedSweep();
        for (Duration linger : lingers) {
            for (int b : sizes) {
                BatchingSim sim = new BatchingSim(path, fixed(b, linger, window, windowBytes), rate, seed);
                sweep.results.add(sim.run("fixed " + b + " linger " + linger.toMillis() + "ms", seconds, warmupSeconds,
                        targetMillis));
            }
        }
        return sweep;
    }

    /** The best result by {@code metric} (lower is better) among runs that delivered all but 0.1%. */
    public SimResult bestBy(ToDoubleFunction<SimResult> metric) {
        return results.stream()
                .filter(r -> r.delivered() >= 0.999 * r.arrived())
                .min(Comparator.comparingDouble(metric))
                .orElseThrow();
    }

    /** The highest throughput (records delivered per second in the measured time) among all runs. */
    public SimResult bestThroughput() {
        return results.stream().max(Comparator.comparingDouble(SimResult::drainedPerSecond)).orElseThrow();
    }

    public List<SimResult> results() {
        return results;
    }
}
