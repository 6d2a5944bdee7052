package io.jetstream.kafka.bench;

import java.util.List;
import java.util.Map;

/**
 * A benchmark run's result, written as {@code target/bench/<scenario>.json} (snake_case names). The
 * top-level figures ({@code throughput_mb_s}, {@code events_per_s}, {@code latency_p50_ms},
 * {@code latency_p99_ms}, {@code wire_mb_s}, {@code route_bytes}, {@code uplink_bytes}) are those of
 * the headline variant (JetStream with the most routes and the shipped defaults that ran);
 * {@code link_capacity_mb_s} is one uplink's cap; {@code comparison} holds the ratios between
 * variants and {@code targets} issue 10's goals with the measured values; {@code varyingRate} the
 * varying-rate load's verdict (the shipped defaults against the fixed sweep), null with the steady load.
 */
public record BenchResult(
        String scenario,
        boolean quick,
        String status,
        String resultLine,
        String commandLine,
        String gitCommit,
        String startedAt,
        double durationS,
        Map<String, Object> network,
        Map<String, Object> machine,
        Map<String, Object> workload,
        String headlineVariant,
        double throughputMbS,
        double eventsPerS,
        long latencyP50Ms,
        long latencyP99Ms,
        double linkCapacityMbS,
        double wireMbS,
        Map<String, Long> routeBytes,
        Map<String, Long> uplinkBytes,
        Map<String, Double> comparison,
        List<Comparison.Target> targets,
        List<VariantResult> variants,
        RateComparison varyingRate) {

    /** A result without a varying-rate verdict. */
    public BenchResult(String scenario, boolean quick, String status, String resultLine, String commandLine,
                       String gitCommit, String startedAt, double durationS, Map<String, Object> network,
                       Map<String, Object> machine, Map<String, Object> workload, String headlineVariant,
                       double throughputMbS, double eventsPerS, long latencyP50Ms, long latencyP99Ms,
                       double linkCapacityMbS, double wireMbS, Map<String, Long> routeBytes,
                       Map<String, Long> uplinkBytes, Map<String, Double> comparison, List<Comparison.Target> targets,
                       List<VariantResult> variants) {
        this(scenario, quick, status, resultLine, commandLine, gitCommit, startedAt, durationS, network, machine,
                workload, headlineVariant, throughputMbS, eventsPerS, latencyP50Ms, latencyP99Ms, linkCapacityMbS,
                wireMbS, routeBytes, uplinkBytes, comparison, targets, variants, null);
    }

    /** Every variant completed with nothing lost, duplicated or out of order. */
    public boolean ok() {
        return !variants.isEmpty() && variants.stream().allMatch(VariantResult::ok);
    }
}
