package io.jetstream.kafka.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The comparison figures of a run, from the variants that completed: ratios of records MB/s and of
 * wire bytes per record between JetStream and MirrorMaker 2 (same codec on the WAN where it matters),
 * and issue 10's targets with the measured value and whether it is met. Pure.
 */
final class Comparison {

    /** One target of issue 10: what was measured against what is asked. */
    record Target(String name, String variant, double measured, double target, boolean atMost, boolean met) {
    }

    private Comparison() {
    }

    /** Ratios by name, e.g. {@code js_3routes_vs_mm2_tuned_3workers}; only pairs that both completed. */
    static Map<String, Double> ratios(List<VariantResult> results) {
        Map<String, Double> ratios = new LinkedHashMap<>();
        throughputRatio(ratios, results, Variants.JS_1_ROUTE, Variants.MM2_TUNED_SRC);
        throughputRatio(ratios, results, Variants.JS_1_ROUTE_ZSTD, Variants.MM2_TUNED_SRC);
        throughputRatio(ratios, results, Variants.JS_3_ROUTES, Variants.MM2_TUNED_3WORKERS);
        throughputRatio(ratios, results, Variants.JS_3_ROUTES_ZSTD, Variants.MM2_TUNED_3WORKERS);
        throughputRatio(ratios, results, Variants.JS_3_ROUTES, Variants.MM2_TUNED_SRC);
        throughputRatio(ratios, results, Variants.JS_3_ROUTES, Variants.JS_1_ROUTE);
        throughputRatio(ratios, results, Variants.JS_3_ROUTES_ZSTD, Variants.JS_1_ROUTE_ZSTD);
        throughputRatio(ratios, results, Variants.JS_3_ROUTES, Variants.MM2_DEFAULT_DST);
        throughputRatio(ratios, results, Variants.JS_3_ROUTES, Variants.MM2_TUNED_DST);
        // the same guarantee on both sides: exactly-once
        throughputRatio(ratios, results, Variants.JS_1_ROUTE, Variants.MM2_TUNED_SRC_EOS);
        throughputRatio(ratios, results, Variants.JS_3_ROUTES, Variants.MM2_TUNED_SRC_EOS);
        latencyRatio(ratios, results, Variants.JS_1_ROUTE, Variants.MM2_TUNED_SRC_EOS);
        // ... and at-least-once
        throughputRatio(ratios, results, Variants.JS_1_ROUTE_ALO, Variants.MM2_TUNED_SRC);
        latencyRatio(ratios, results, Variants.JS_1_ROUTE_ALO, Variants.MM2_TUNED_SRC);
        latencyRatio(ratios, results, Variants.JS_1_ROUTE, Variants.MM2_TUNED_SRC);
        for (VariantResult js : completed(results)) {
            if (!"jetstream".equals(js.replicator())) {
                continue;
            }
            for (VariantResult mm2 : completed(results)) {
                if ("mirrormaker2".equals(mm2.replicator()) && js.wireCodec().equals(mm2.wireCodec())) {
                    ratios.put("wire_bytes_per_record_" + key(js.id()) + "_vs_" + key(mm2.id()),
                            round(js.backlog().wireBytesPerRecord() / mm2.backlog().wireBytesPerRecord()));
                }
            }
        }
        return ratios;
    }

    /** Issue 10's targets for JetStream's shipped defaults (and zstd variants where run). */
    static List<Target> targets(List<VariantResult> results, double oneWayDelayMs) {
        List<Target> targets = new ArrayList<>();
        for (String oneRoute : List.of(Variants.JS_1_ROUTE, Variants.JS_1_ROUTE_ZSTD)) {
            find(results, oneRoute).ifPresent(js -> {
                double fill = js.backlog().uplinkFill().getOrDefault("a1", 0.0);
                targets.add(new Target("one route fills >= 90% of its uplink", js.id(), fill, 0.9, false,
                        fill >= 0.9));
            });
        }
        Map<String, Double> ratios = ratios(results);
        ratioTarget(targets, ratios, Variants.JS_1_ROUTE, Variants.MM2_TUNED_SRC, 1.1,
                "one route >= 1.1x MM2 tuned at the source (records MB/s)");
        ratioTarget(targets, ratios, Variants.JS_1_ROUTE_ZSTD, Variants.MM2_TUNED_SRC, 1.1,
                "one route >= 1.1x MM2 tuned at the source (records MB/s)");
        ratioTarget(targets, ratios, Variants.JS_3_ROUTES, Variants.JS_1_ROUTE, 2.7,
                "three routes >= 2.7x one route");
        ratioTarget(targets, ratios, Variants.JS_3_ROUTES_ZSTD, Variants.JS_1_ROUTE_ZSTD, 2.7,
                "three routes >= 2.7x one route");
        ratioTarget(targets, ratios, Variants.JS_3_ROUTES, Variants.MM2_TUNED_3WORKERS, 1.5,
                "three routes >= 1.5x the best three-uplink MM2");
        ratioTarget(targets, ratios, Variants.JS_3_ROUTES_ZSTD, Variants.MM2_TUNED_3WORKERS, 1.5,
                "three routes >= 1.5x the best three-uplink MM2");
        for (VariantResult js : completed(results)) {
            if (!"jetstream".equals(js.replicator())) {
                continue;
            }
            double cpu = js.backlog().coreSecondsPerMb();
            targets.add(new Target("CPU <= 0.05 core-seconds per MB of records", js.id(), cpu, 0.05, true,
                    cpu <= 0.05));
            if (js.latency() != null) {
                double p99 = js.latency().latencyP99Ms();
                targets.add(new Target("p99 latency at ~20% load <= one-way delay + 50 ms", js.id(), p99,
                        oneWayDelayMs + 50, true, p99 <= oneWayDelayMs + 50));
            }
        }
        ratios.forEach((name, ratio) -> {
            if (name.startsWith("wire_bytes_per_record_")) {
                String variant = name.substring("wire_bytes_per_record_".length(), name.indexOf("_vs_"));
                targets.add(new Target("wire bytes per record <= MM2's with the same codec ("
                        + name.substring(name.indexOf("_vs_") + 4) + ")", variant.replace('_', '-'), ratio, 1.0,
                        true, ratio <= 1.0));
            }
        });
        return targets;
    }

    private static void ratioTarget(List<Target> targets, Map<String, Double> ratios, String a, String b, double goal,
                                    String name) {
        Double ratio = ratios.get(key(a) + "_vs_" + key(b));
        if (ratio != null) {
            targets.add(new Target(name + " [" + a + " / " + b + "]", a, ratio, goal, false, ratio >= goal));
        }
    }

    private static void throughputRatio(Map<String, Double> ratios, List<VariantResult> results, String a,
                                        String b) {
        Optional<VariantResult> first = find(results, a);
        Optional<VariantResult> second = find(results, b);
        if (first.isPresent() && second.isPresent() && second.get().backlog().throughputMbS() > 0) {
            ratios.put(key(a) + "_vs_" + key(b),
                    round(first.get().backlog().throughputMbS() / second.get().backlog().throughputMbS()));
        }
    }

    /** {@code latency_p99_<a>_vs_<b>}: p99 of the latency phase, a over b (below 1: a's tail is shorter). */
    private static void latencyRatio(Map<String, Double> ratios, List<VariantResult> results, String a, String b) {
        Optional<VariantResult> first = find(results, a);
        Optional<VariantResult> second = find(results, b);
        if (first.isPresent() && second.isPresent() && first.get().latency() != null && second.get().latency() != null
                && second.get().latency().latencyP99Ms() > 0) {
            ratios.put("latency_p99_" + key(a) + "_vs_" + key(b),
                    round((double) first.get().latency().latencyP99Ms() / second.get().latency().latencyP99Ms()));
        }
    }

    static Optional<VariantResult> find(List<VariantResult> results, String id) {
        return completed(results).stream().filter(r -> r.id().equals(id)).findFirst();
    }

    private static List<VariantResult> completed(List<VariantResult> results) {
        return results.stream().filter(r -> r.backlog() != null && r.backlog().throughputMbS() > 0).toList();
    }

    static String key(String id) {
        return id.replace('-', '_');
    }

    private static double round(double value) {
        return Math.round(value * 1000) / 1000.0;
    }
}
