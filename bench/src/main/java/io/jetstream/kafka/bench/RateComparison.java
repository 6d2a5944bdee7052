package io.jetstream.kafka.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The varying-rate load's verdict: the shipped defaults ({@link Variants#JS_1_ROUTE}) against the best
 * setting of the fixed sweep ({@link #SWEEP}: small, medium, large) in each step and over the whole
 * schedule, on the figure of merit of docs/bench/scenarios.md ("Varying rate"): at equal offered load, a
 * step's p99 end-to-end latency (a variant that falls behind pays for it in latency: its records wait);
 * over the schedule, the geometric mean of the steps' p99s (each step weighs the same, whatever its
 * rate). Lower is better; ratios are the sweep's over the defaults', so at least 1 means no setting of
 * the sweep did better than the defaults. Whether each kept the throughput (delivered at least 95% of
 * the offered rate) is reported beside it. Pure.
 *
 * @param figureOfMerit        what is compared, in words
 * @param defaultsVariant      the variant with the shipped defaults ({@code js-1route})
 * @param latencyTargetMs      the latency target: one-way delay + 50 ms (issue 10's)
 * @param scores               per variant: geometric mean of its steps' p99 (ms)
 * @param bestFixedOverall     the sweep's variant with the lowest score (null if none of the sweep ran)
 * @param defaultsVsBestFixed  best fixed overall score over the defaults' one; null when either is missing
 * @param stepsWithin5Percent  steps where the defaults' p99 was at most 1.05x the step's best fixed p99
 * @param stepsCompared        steps with a best fixed setting
 * @param everyStepWithin5Percent all compared steps within 5%
 * @param throughputKept       the defaults kept up in every rate step where the step's best fixed setting did
 * @param steps                the verdict of each step
 */
public record RateComparison(String figureOfMerit, String defaultsVariant, double latencyTargetMs,
                             Map<String, Double> scores, String bestFixedOverall, Double defaultsVsBestFixed,
                             int stepsWithin5Percent, int stepsCompared, boolean everyStepWithin5Percent,
                             boolean throughputKept, List<StepVerdict> steps) {

    /** The fixed settings the shipped defaults are compared with, small to large. */
    static final List<String> SWEEP = List.of(Variants.JS_1_ROUTE_FIXED_SMALL, Variants.JS_1_ROUTE_FIXED_MEDIUM,
            Variants.JS_1_ROUTE_FIXED_LARGE);
    /** Issue 13's tolerance for each step. */
    static final double STEP_TOLERANCE = 1.05;

    /**
     * One step.
     *
     * @param step                  the step's name
     * @param bestFixed             the sweep's variant with the lowest p99 in the step
     * @param bestFixedP99Ms        its p99
     * @param bestFixedKeptUp       whether it kept up
     * @param defaultsP99Ms         the defaults' p99
     * @param defaultsKeptUp        whether the defaults kept up
     * @param defaultsMetLatencyTarget the defaults' p99 at most the latency target
     * @param bestFixedOverallP99Ms the p99 of the best fixed setting overall in this step
     * @param ratio                 best fixed p99 over the defaults' p99
     * @param within5Percent        the defaults' p99 is at most 1.05x the best fixed p99
     * @param p99ByVariant          every variant's p99 in the step
     * @param fellBehind            the variants that delivered less than 95% of the offered rate in the step
     */
    public record StepVerdict(String step, String bestFixed, Long bestFixedP99Ms, boolean bestFixedKeptUp,
                              long defaultsP99Ms, boolean defaultsKeptUp, boolean defaultsMetLatencyTarget,
                              Long bestFixedOverallP99Ms, double ratio, boolean within5Percent,
                              Map<String, Long> p99ByVariant, List<String> fellBehind) {
    }

    /**
     * The verdict for a run's results, or empty when the shipped defaults ({@code js-1route}) did not run
     * the varying-rate load with steps.
     */
    static Optional<RateComparison> of(List<VariantResult> results, double oneWayDelayMs) {
        List<VariantResult> stepped = results.stream().filter(r -> r.error() == null && !r.steps().isEmpty())
                .toList();
        Optional<VariantResult> defaults = stepped.stream().filter(r -> r.id().equals(Variants.JS_1_ROUTE))
                .findFirst();
        if (defaults.isEmpty()) {
            return Optional.empty();
        }
        List<VariantResult> fixed = stepped.stream().filter(r -> SWEEP.contains(r.id())).toList();
        double latencyTarget = oneWayDelayMs + 50;
        Map<String, Double> scores = new LinkedHashMap<>();
        for (VariantResult v : stepped) {
            scores.put(v.id(), score(v));
        }
        String bestOverall = null;
        for (VariantResult f : fixed) {
            Double score = scores.get(f.id());
            if (score != null && (bestOverall == null || score < scores.get(bestOverall))) {
                bestOverall = f.id();
            }
        }
        VariantResult d = defaults.get();
        Optional<VariantResult> bestOverallResult = Optional.ofNullable(bestOverall)
                .flatMap(id -> fixed.stream().filter(f -> f.id().equals(id)).findFirst());
        List<StepVerdict> verdicts = new ArrayList<>();
        int within = 0;
        int compared = 0;
        boolean throughputKept = true;
        for (VariantResult.Step step : d.steps()) {
            Map<String, Long> p99s = new LinkedHashMap<>();
            List<String> behind = new ArrayList<>();
            VariantResult.Step best = null;
            String bestFixed = null;
            for (VariantResult v : stepped) {
                Optional<VariantResult.Step> s = stepOf(v, step.name());
                p99s.put(v.id(), s.map(VariantResult.Step::latencyP99Ms).orElse(null));
                s.filter(x -> !x.keptUp()).ifPresent(x -> behind.add(v.id()));
                if (fixed.contains(v) && s.isPresent() && (best == null || s.get().latencyP99Ms() < best.latencyP99Ms())) {
                    best = s.get();
                    bestFixed = v.id();
                }
            }
            Long overallP99 = bestOverallResult.flatMap(b -> stepOf(b, step.name()))
                    .map(VariantResult.Step::latencyP99Ms).orElse(null);
            double ratio = 0;
            boolean ok = false;
            if (best != null) {
                compared++;
                ratio = round(Math.max(1, best.latencyP99Ms()) / (double) Math.max(1, step.latencyP99Ms()));
                ok = step.latencyP99Ms() <= STEP_TOLERANCE * best.latencyP99Ms();
                within += ok ? 1 : 0;
                throughputKept &= step.keptUp() || !best.keptUp();
            }
            verdicts.add(new StepVerdict(step.name(), bestFixed, best == null ? null : best.latencyP99Ms(),
                    best != null && best.keptUp(), step.latencyP99Ms(), step.keptUp(),
                    step.latencyP99Ms() <= latencyTarget, overallP99, ratio, ok, p99s, behind));
        }
        Double defaultsScore = scores.get(d.id());
        Double vsBest = bestOverall == null || defaultsScore == null ? null
                : round(scores.get(bestOverall) / defaultsScore);
        return Optional.of(new RateComparison("p99 end-to-end latency of each step's records at equal offered load"
                + " (lower is better; falling behind shows as latency); over the schedule the geometric mean of the"
                + " steps' p99; ratios are best fixed / defaults (at least 1: no fixed setting did better than the"
                + " defaults)", d.id(), latencyTarget, scores, bestOverall, vsBest, within, compared,
                compared > 0 && within == compared, throughputKept, verdicts));
    }

    /** Geometric mean of the steps' p99 (each at least 1 ms), or null without steps. */
    static Double score(VariantResult v) {
        double logSum = 0;
        for (VariantResult.Step s : v.steps()) {
            logSum += Math.log(Math.max(1, s.latencyP99Ms()));
        }
        return v.steps().isEmpty() ? null : round(Math.exp(logSum / v.steps().size()));
    }

    private static Optional<VariantResult.Step> stepOf(VariantResult v, String name) {
        return v.steps().stream().filter(s -> s.name().equals(name)).findFirst();
    }

    private static double round(double value) {
        return Math.round(value * 1000) / 1000.0;
    }
}
