package io.jetstream.kafka.bench;

import java.util.List;
import java.util.Map;

/** Fixed variant results for the pure parts' tests. */
final class Fixtures {

    private Fixtures() {
    }

    static VariantResult variant(String id, String replicator, String codec, double mbPerS, double wireBytesPerRecord,
                                 double coreSecondsPerMb, long p99) {
        VariantResult.LatencyPhase latency = new VariantResult.LatencyPhase(10_000, 1000, 10, p99 / 2, p99, p99 + 10,
                p99 + 20, p99 / 2.0, Map.of("connect-A", 0.2), Map.of("connect-A", 0.01), 0.3, 1.1, 0.6,
                Map.of("connect-A", new JvmPauses.Pauses(12, 61.5, 31.0, 1)),
                "neither link nor CPU (the replicator's own pacing): uplinks at a1 12% of their cap, machine CPU 1.10"
                        + " of 2 cores busy");
        VariantResult.BacklogPhase backlog = new VariantResult.BacklogPhase(20_000, 21_000_000, 21_000_000 / 1e6 / mbPerS,
                mbPerS, mbPerS * 1e6 / 1050, mbPerS * 0.6, Map.of("a1", mbPerS * 0.6, "a2", 0.0, "a3", 0.0),
                Map.of("a1", 12_000_000L, "a2", 0L, "a3", 0L), Map.of("a1", mbPerS * 0.6 / 5, "a2", 0.0, "a3", 0.0),
                Map.of("direct", 12_000_000L), wireBytesPerRecord, Map.of("connect-A", 0.4, "relay-a1", 0.1),
                Map.of("connect-A", 0.02, "relay-a1", 0.0), 0.5, 1.6, coreSecondsPerMb, "link: uplinks at a1 98% of"
                        + " their cap (machine CPU 1.60 of 2 cores busy)");
        VariantResult.Verification verification = new VariantResult.Verification(30_600, 30_600, 0, 0, "ok", 0,
                List.of("events=30600 delivered=30600 lost=0 duplicates=0 order=ok fields=ok"));
        VariantResult.Timeline timeline = new VariantResult.Timeline(List.of(0.5, 1.0, 1.5),
                Map.of("a1", List.of(0.0, 4.0, 4.5), "a2", List.of(0.0, 0.0, 0.0)), List.of(0.0, 6.0, 7.0),
                Map.of("connect-A", List.of(0.1, 0.5, 0.6)), List.of(0.5, 1.8, 1.9),
                Map.of("resumed", 0.7, "drained", 1.4));
        return new VariantResult(id, "title of " + id, replicator, "bench." + id, "A.bench." + id, codec, latency,
                backlog, verification, Map.of("connector", Map.of("tasks.max", "6")), timeline,
                List.of(new double[] {p99 / 2.0, 0.5}, new double[] {p99, 0.99}, new double[] {p99 + 20, 1.0}),
                List.of(new double[] {1, p99 / 2.0, p99}, new double[] {2, p99 / 2.0, p99 + 20}), null);
    }

    static VariantResult failed(String id) {
        return new VariantResult(id, "title of " + id, "mirrormaker2", "bench." + id, "A.bench." + id, "zstd", null,
                null, null, Map.of(), new VariantResult.Timeline(List.of(), Map.of(), List.of(), Map.of(), List.of(),
                Map.of()), List.of(), List.of(), "java.util.concurrent.TimeoutException: drain <stuck> & \"quoted\"");
    }

    static BenchResult result(List<VariantResult> variants) {
        return new BenchResult("wan-quick", true, "ok", "RESULT scenario=wan-quick lost=0", "./jetstream bench wan --quick",
                "abc123", "2026-12-01T12:00:00Z", 95.5,
                Map.of("network", "namespaces", "uplink_mbit_s", 40.0, "one_way_delay_ms", 25),
                Map.of("nproc", 2, "cpu_model", "test cpu"), Map.of("partitions", 6), variants.get(0).id(),
                variants.get(0).backlog().throughputMbS(), variants.get(0).backlog().eventsPerS(),
                variants.get(0).latency().latencyP50Ms(), variants.get(0).latency().latencyP99Ms(), 5.0,
                variants.get(0).backlog().wireMbS(), variants.get(0).backlog().routeBytes(),
                variants.get(0).backlog().uplinkBytes(), Comparison.ratios(variants),
                Comparison.targets(variants, 25), variants);
    }
}
