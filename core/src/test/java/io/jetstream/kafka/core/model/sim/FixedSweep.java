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
        return new FixedBatchPolicy(BatchDecision.of(records, records * 4096, linger, 256, 16L << 20,
                DecisionReason.FIXED));
    }

    public static FixedSweep run(PathParams path, DoubleUnaryOperator rate, double seconds, double warmupSeconds,
                                 double targetMillis, long seed, Duration... lingers) {
        FixedSweep sweep = new FixedSweep();
        for (Duration linger : lingers) {
            for (int b : SIZES) {
                BatchingSim sim = new BatchingSim(path, fixed(b, linger), rate, seed);
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

    public List<SimResult> results() {
        return results;
    }
}
