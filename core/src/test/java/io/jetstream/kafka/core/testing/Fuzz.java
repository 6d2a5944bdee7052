package io.jetstream.kafka.core.testing;

import io.jetstream.kafka.core.wire.ProtocolException;
import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Shared knobs and bookkeeping of the fuzz tests.
 *
 * <ul>
 *   <li>{@code -Djetstream.fuzz.tries=N}: generated cases per fuzz test (core/pom.xml sets 100,000;
 *       {@code -Pfuzz-long} sets 1,000,000).
 *   <li>{@code -Djetstream.fuzz.seed=S}: replay a run; every failure message names the seed and the
 *       case index, and case {@code i} depends only on {@code (seed, i)}.
 * </ul>
 */
public final class Fuzz {

    private final String name;
    private final long seed;
    private final Map<ProtocolException.Kind, Integer> rejected = new EnumMap<>(ProtocolException.Kind.class);
    private final Map<String, Integer> strategies = new TreeMap<>();
    private int accepted;
    private int cases;

    public Fuzz(String name) {
        this.name = name;
        Long fixed = Long.getLong("jetstream.fuzz.seed");
        this.seed = fixed != null ? fixed : new SplittableRandom().nextLong();
    }

    public static int tries() {
        return Integer.getInteger("jetstream.fuzz.tries", 100_000);
    }

    /** The generator of case {@code index}: reproducible from the seed alone. */
    public SplittableRandom random(long index) {
        return new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index);
    }

    public String where(long index) {
        return name + " case " + index + " (replay with -Djetstream.fuzz.seed=" + seed + ")";
    }

    public void strategy(String strategy) {
        strategies.merge(strategy, 1, Integer::sum);
        cases++;
    }

    public void accepted() {
        accepted++;
    }

    public void rejected(ProtocolException e) {
        rejected.merge(e.kind(), 1, Integer::sum);
    }

    public int cases() {
        return cases;
    }

    public int acceptedCount() {
        return accepted;
    }

    public Map<ProtocolException.Kind, Integer> rejectedByKind() {
        return rejected;
    }

    /** One line for the build log: proof of how many cases ran and what they hit. */
    public String summary() {
        return name + ": " + cases + " cases, seed " + seed + ", accepted " + accepted + ", rejected " + rejected
                + ", strategies " + strategies;
    }
}
