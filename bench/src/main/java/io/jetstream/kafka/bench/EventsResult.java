package io.jetstream.kafka.bench;

import java.util.List;
import java.util.Map;

/**
 * What a variant measured under a scenario with events ({@code cold-start}, {@code capacity-change}):
 * the steady load, each event's figures, and the series behind them (for the report's plots). Written
 * to the JSON under {@code variants[].events} with snake_case names.
 *
 * @param scenario          {@code cold-start} or {@code capacity-change}
 * @param ratePerS          records/s offered for the whole load
 * @param seconds           length of the load
 * @param events            every event, in time order
 * @param recordsPerBatch   the source tasks' records per batch per 1 s window: {@code [s, records per batch, batches]}
 *                          (s since the load started); empty when their metrics could not be read
 * @param routeShares       per route, its share of the bytes the ingress relay sent per 1 s window: {@code [s, share]}
 * @param latencyP50Ms      median end-to-end latency over the whole load
 * @param latencyP99Ms      99th percentile over the whole load
 * @param eventsWithinTarget events that met their target (recovery within 5 s; split within 10 s without flapping)
 * @param eventsJudged      events with a target
 */
public record EventsResult(String scenario, double ratePerS, double seconds, List<Event> events,
                           List<double[]> recordsPerBatch, Map<String, List<double[]>> routeShares,
                           long latencyP50Ms, long latencyP99Ms, int eventsWithinTarget, int eventsJudged) {

    /** Issue 13: batches back to their steady size within this after a restart or a route failure. */
    public static final double RECOVERY_TARGET_S = 5;

    /** Issue 13: route shares at 95% of the best static split within this after a capacity or delay change. */
    public static final double CONVERGENCE_TARGET_S = 10;

    public EventsResult {
        events = List.copyOf(events);
        recordsPerBatch = List.copyOf(recordsPerBatch);
        routeShares = Map.copyOf(routeShares);
    }

    /**
     * One event as a variant went through it. Fields that do not apply to its kind are null.
     *
     * @param name                    the event's name
     * @param kind                    {@link BenchEvent.Kind} in lower case with dashes
     * @param host                    the host it happened to
     * @param atS                     when it happened (s since the load started; the action's start)
     * @param untilS                  the next event's time, or the end of the load: the interval judged
     * @param actionSeconds           how long the action took (a REST call, a relay's start until healthy, tc)
     * @param recordsPerBatchBefore   disruptions: the steady records per batch over the 10 s before
     * @param recordsPerBatchRightAfter disruptions: in the first 1 s window with batches after the event
     * @param recordsPerBatchAfter    disruptions: from the recovery (or the event) until {@code untilS}
     * @param recoveryS               disruptions: from the event until records per batch were within 20% of the
     *                                steady value for two consecutive 1 s windows; null when they never were
     * @param route                   capacity and delay changes ("capacity changes" below): the route whose cap
     *                                or delay changed
     * @param shareBefore             capacity changes: its mean share over the 10 s before the event
     * @param shareAfter              capacity changes: its mean share from the convergence (or 10 s after the
     *                                event) until {@code untilS}
     * @param bestSplit               capacity changes: the best static split for the new caps and delays
     *                                ({@link EventSchedule#bestSplitAfter}; equal delays: capacity-proportional)
     * @param matchAfter              capacity changes: mean of 1 - total variation distance to {@code bestSplit} over
     *                                the same windows as {@code shareAfter}
     * @param timeToMatchS            capacity changes: from the event until two consecutive 1 s windows matched the
     *                                best split at 95% or more; null when none did
     * @param flaps                   capacity changes: reversals of the route's share (3 s trailing) of more than 10 points
     *                                between the event and {@code untilS}
     * @param deliveredPerS           records/s arriving at B between the event and {@code untilS}
     * @param throughputKept          {@code deliveredPerS} over the offered rate
     * @param latencyP50Ms            median latency of the records that arrived in the event's window (disruptions:
     *                                until the recovery, at least 1 s, or {@code untilS}; capacity changes: until
     *                                {@code untilS})
     * @param latencyP99Ms            99th percentile of the same
     * @param targetS                 the event's target (5 s recovery, 10 s convergence)
     * @param withinTarget            whether the event met it (capacity changes: also at most one flap); null
     *                                for events without a target (a relay's start: its recovery is the route's)
     */
    public record Event(String name, String kind, String host, double atS, double untilS, double actionSeconds,
                        Double recordsPerBatchBefore, Double recordsPerBatchRightAfter, Double recordsPerBatchAfter,
                        Double recoveryS, String route, Double shareBefore, Double shareAfter,
                        Map<String, Double> bestSplit, Double matchAfter, Double timeToMatchS, Integer flaps,
                        double deliveredPerS, double throughputKept, long latencyP50Ms, long latencyP99Ms,
                        Double targetS, Boolean withinTarget) {
    }
}
