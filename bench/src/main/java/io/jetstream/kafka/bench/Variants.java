package io.jetstream.kafka.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The variants the benchmark knows, in the order a full run takes them (JetStream first while its
 * workers run, then MirrorMaker 2 at the destination, then at the source, so that each group of
 * Connect workers starts once).
 */
public final class Variants {

    public static final String JS_WARMUP = "js-warmup";
    public static final String JS_WARMUP_AGAIN = "js-warmup-again";
    public static final String JS_1_ROUTE = "js-1route";
    public static final String JS_3_ROUTES = "js-3routes";
    public static final String JS_1_ROUTE_ZSTD = "js-1route-zstd";
    public static final String JS_3_ROUTES_ZSTD = "js-3routes-zstd";
    public static final String JS_1_ROUTE_ALO = "js-1route-alo";
    public static final String JS_1_ROUTE_FIXED_SMALL = "js-1route-fixed-small";
    public static final String JS_1_ROUTE_FIXED_MEDIUM = "js-1route-fixed-medium";
    public static final String JS_1_ROUTE_FIXED_LARGE = "js-1route-fixed-large";
    public static final String JS_1_ROUTE_FIXED_MEDIUM_AGAIN = "js-1route-fixed-medium-again";
    /** fixed-medium's source connector keys, for both of its runs. */
    private static final Map<String, String> FIXED_MEDIUM_KEYS = Map.of("batch.max.records", "256",
            "batch.linger.ms", "5");
    public static final String JS_1_ROUTE_AGAIN = "js-1route-again";
    public static final String JS_HETERO_ADAPTIVE = "js-hetero-adaptive";
    public static final String JS_HETERO_ROUND_ROBIN = "js-hetero-rr";
    public static final String JS_1_ROUTE_DIRECT = "js-1route-direct";
    public static final String MM2_DEFAULT_DST = "mm2-default-dst";
    public static final String MM2_TUNED_DST = "mm2-tuned-dst";
    public static final String MM2_TUNED_SRC = "mm2-tuned-src";
    public static final String MM2_TUNED_3WORKERS = "mm2-tuned-3workers";
    public static final String MM2_TUNED_SRC_EOS = "mm2-tuned-src-eos";
    public static final String MM2_TUNED_ONCE = "mm2-tuned-once";
    public static final String MM2_WARMUP = "mm2-warmup";

    private static final Map<String, Variant> CATALOG = new LinkedHashMap<>();

    static {
        // The environment grid's first round in each cell (every JVM of a cell is new): JetStream's defaults,
        // run only so that the brokers and workers have compiled their paths before the variants that are
        // compared run; its figures are reported but never compared (the first variant of a cell had its p50
        // 20-30 ms above the same settings run later).
        add(Variant.jetStream(JS_WARMUP, "JetStream, 1 route, shipped defaults: the grid's warm-up round, not"
                + " compared", 1, null));
        // The second warm-up round: the second deployment of the replicator on a cell's workers still set their
        // compilers going (0.27-0.34 JIT cores in each Connect worker during the next latency phase, run of
        // 7 December, even after waiting 40 s for quiet compilers after the first round); this round then waits
        // for quiet compilers (the third deployment, following at once, still measured 0.26-0.50 JIT cores).
        add(Variant.jetStream(JS_WARMUP_AGAIN, "JetStream, 1 route, shipped defaults: the grid's second warm-up"
                + " round, not compared", 1, null));
        add(Variant.jetStream(JS_1_ROUTE, "JetStream, 1 route (shipped defaults)", 1, null));
        add(Variant.jetStream(JS_3_ROUTES, "JetStream, 3 routes (shipped defaults)", 3, null));
        // One route without a relay at the source site (issue 30): the source-site tasks connect over the
        // WAN to the egress relay, which is its own ingress; two JVMs on the path instead of three.
        add(Variant.jetStreamDirect(JS_1_ROUTE_DIRECT, "JetStream, 1 route, source straight to the egress relay"));
        add(Variant.jetStream(JS_1_ROUTE_ZSTD, "JetStream, 1 route, zstd", 1, "zstd"));
        add(Variant.jetStream(JS_3_ROUTES_ZSTD, "JetStream, 3 routes, zstd", 3, "zstd"));
        // MirrorMaker 2's guarantee (at-least-once) on JetStream's side too: latency and CPU compared
        // like with like with mm2-tuned-src; js-1route against mm2-tuned-src-eos is the exactly-once pair.
        add(Variant.jetStreamAtLeastOnce(JS_1_ROUTE_ALO, "JetStream, 1 route, at-least-once (MM2's guarantee)", 1));
        // The varying-rate scenario's batching: the shipped defaults (js-1route) against a sweep of fixed
        // caps, small to large, on one route.
        add(Variant.jetStreamWith(JS_1_ROUTE_FIXED_SMALL, "JetStream, 1 route, fixed: 32 records, 2 ms linger",
                Map.of("batch.max.records", "32", "batch.linger.ms", "2")));
        add(Variant.jetStreamWith(JS_1_ROUTE_FIXED_MEDIUM, "JetStream, 1 route, fixed: 256 records, 5 ms linger",
                FIXED_MEDIUM_KEYS));
        add(Variant.jetStreamWith(JS_1_ROUTE_FIXED_LARGE, "JetStream, 1 route, fixed: 4 MiB, 100 ms linger",
                Map.of("batch.max.bytes", "4194304", "batch.linger.ms", "100")));
        // The environment grid's second run of fixed-medium in the 1,200-partition cells, after the defaults'
        // second: there a 10 s phase's p99 depends on whether a hump of 0.2-0.3 s hits the run, so the setting
        // the defaults are compared with is measured as often as they are (EnvironmentGrid.variants).
        add(Variant.jetStreamWith(JS_1_ROUTE_FIXED_MEDIUM_AGAIN, "JetStream, 1 route, fixed: 256 records, 5 ms"
                + " linger, again (after the defaults' second run)", FIXED_MEDIUM_KEYS));
        // The environment grid's second run of the shipped defaults, after the fixed settings: the defaults run
        // first and last of the compared JetStream settings and are judged on the mean of the two, so that
        // the compilers still busy after the warm-up round (0.3-0.4 JIT cores in the next variant's latency
        // phase) weigh on them no more than on the settings they are compared with.
        add(Variant.jetStream(JS_1_ROUTE_AGAIN, "JetStream, 1 route, shipped defaults again (after the fixed"
                + " settings)", 1, null));
        // The heterogeneous scenario's routes (Heterogeneous): priced, capped adaptive routing against round-robin.
        add(Variant.jetStream(JS_HETERO_ADAPTIVE, "JetStream, 3 unequal routes, adaptive routing with prices and a"
                + " spend cap", 3, null));
        add(Variant.jetStream(JS_HETERO_ROUND_ROBIN, "JetStream, 3 unequal routes, round-robin", 3, null));
        // The environment grid's warm-up round for MirrorMaker 2 (the grid runs every cell on the same workers):
        // MM2 tuned once on its worker, run before the first MM2 variant compared, so that MM2 too is measured
        // on a worker that has compiled its paths; reported, never compared.
        add(Variant.mirrorMaker(MM2_WARMUP, "MM2 tuned once, at the source: the grid's warm-up round, not compared",
                new Variant.Mm2Setup(List.of("a1"), true, true, 6, false, BenchPlan.PARTITIONS), 1.0));
        // Default MM2 drains about 1.4 MB/s: a third of the backlog keeps its drain near a minute.
        add(Variant.mirrorMaker(MM2_DEFAULT_DST, "MM2 defaults, at the destination",
                new Variant.Mm2Setup(List.of("b2"), false, false, 1), 1.0 / 3));
        add(Variant.mirrorMaker(MM2_TUNED_DST, "MM2 tuned, at the destination",
                new Variant.Mm2Setup(List.of("b2"), false, true, 6), 1.0));
        add(Variant.mirrorMaker(MM2_TUNED_SRC, "MM2 tuned, at the source (zstd before the WAN)",
                new Variant.Mm2Setup(List.of("a1"), true, true, 6), 1.0));
        // The environment grid's MM2 as operators run it: tuned once, on the default cell (6 partitions),
        // and left so when the partitions change; mm2-tuned-src is MM2 retuned for each cell.
        add(Variant.mirrorMaker(MM2_TUNED_ONCE, "MM2 tuned once (for 6 partitions), at the source",
                new Variant.Mm2Setup(List.of("a1"), true, true, 6, false, BenchPlan.PARTITIONS), 1.0));
        add(Variant.mirrorMaker(MM2_TUNED_3WORKERS, "MM2 tuned, one worker on each of a1, a2, a3",
                new Variant.Mm2Setup(List.of("a1", "a2", "a3"), true, true, 6), 1.0));
        // JetStream's guarantee by default: exactly-once. MM2 at the source then commits its
        // transactions across the WAN; a third of the backlog until its drain rate is known.
        add(Variant.mirrorMaker(MM2_TUNED_SRC_EOS, "MM2 tuned, at the source, exactly-once",
                new Variant.Mm2Setup(List.of("a1"), true, true, 6, true), 1.0 / 3));
    }

    private Variants() {
    }

    private static void add(Variant variant) {
        CATALOG.put(variant.id(), variant);
    }

    /** Every variant, in run order. */
    public static List<Variant> all() {
        return List.copyOf(CATALOG.values());
    }

    /** Every variant id, in run order. */
    public static List<String> ids() {
        return List.copyOf(CATALOG.keySet());
    }

    /** The variants of a full run of scenario {@code wan} with the steady load (issue 10's set). */
    public static List<String> fullRun() {
        return List.of(JS_1_ROUTE, JS_3_ROUTES, JS_1_ROUTE_ZSTD, JS_3_ROUTES_ZSTD, JS_1_ROUTE_ALO, MM2_DEFAULT_DST,
                MM2_TUNED_DST, MM2_TUNED_SRC, MM2_TUNED_3WORKERS, MM2_TUNED_SRC_EOS);
    }

    /**
     * The varying-rate load's variants: the shipped defaults and the sweep of fixed settings they are
     * compared with (small, medium, large), all on one route, so that the top step fits one uplink.
     */
    public static List<String> varyingRateRun() {
        return List.of(JS_1_ROUTE, JS_1_ROUTE_FIXED_SMALL, JS_1_ROUTE_FIXED_MEDIUM, JS_1_ROUTE_FIXED_LARGE);
    }

    /** The quick varying-rate load: the shipped defaults and the sweep's small setting. */
    public static List<String> varyingRateQuick() {
        return List.of(JS_1_ROUTE, JS_1_ROUTE_FIXED_SMALL);
    }

    /** The cold-start scenario's variants: the shipped defaults on one route and on three (adaptive routing). */
    public static List<String> coldStartRun() {
        return List.of(JS_1_ROUTE, JS_3_ROUTES);
    }

    /** The capacity-change scenario's variants: the shipped defaults on three routes (adaptive routing). */
    public static List<String> capacityChangeRun() {
        return List.of(JS_3_ROUTES);
    }

    /** The quick form of either scenario with events: three routes. */
    public static List<String> eventsQuick() {
        return List.of(JS_3_ROUTES);
    }

    /** The variants of {@code --quick}: JetStream's three routes against MM2 tuned at the source. */
    public static List<String> quickRun() {
        return List.of(JS_3_ROUTES, MM2_TUNED_SRC);
    }

    /**
     * The named variants in run order (not the order given).
     *
     * @throws IllegalArgumentException naming the unknown ids and the known ones
     */
    public static List<Variant> select(List<String> ids) {
        List<String> unknown = new ArrayList<>();
        for (String id : ids) {
            if (!CATALOG.containsKey(id)) {
                unknown.add(id);
            }
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown variant(s) " + unknown + "; known: "
                    + String.join(", ", CATALOG.keySet()));
        }
        if (ids.isEmpty()) {
            throw new IllegalArgumentException("no variant selected; known: " + String.join(", ", CATALOG.keySet()));
        }
        return CATALOG.values().stream().filter(v -> ids.contains(v.id())).toList();
    }

    public static Variant byId(String id) {
        return select(List.of(id)).get(0);
    }
}
