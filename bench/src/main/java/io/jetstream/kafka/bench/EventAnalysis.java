package io.jetstream.kafka.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The figures of a scenario with events, computed from what was sampled during the load: records per
 * batch over time and how long they took to come back to their steady size after a disruption
 * ({@code cold-start}); route shares over time, their match with the best static split for the new caps
 * and delays ({@link #fastestFirst}), the time to reach it and how often they flapped
 * ({@code capacity-change}). Pure functions of the samples,
 * so that each measure is unit tested apart from a run.
 *
 * <p>Series are lists of {@code double[]}: {@code [window start (s since the load started), value, weight]}.
 */
final class EventAnalysis {

    /** Records per batch within this fraction of the pre-event steady value count as recovered. */
    static final double RECOVERY_BAND = 0.2;

    /** Consecutive windows that must be in the band (recovered) or at the match (converged). */
    static final int STABLE_WINDOWS = 2;

    /** Seconds before an event over which its steady value is taken. */
    static final double STEADY_SECONDS = 10;

    /**
     * A route-share move of more than this (share of bytes) against the previous move is a flap. A 1 s
     * window holds a few dozen batches spread over three routes, so a route's share moves by several
     * points from one window to the next at a steady split (first quick run: 0.03-0.41 for a route at a
     * third before any change); shares are taken over {@link #SHARE_WINDOWS} windows and the band is 10
     * points.
     */
    static final double FLAP_BAND = 0.10;

    /** Route shares (match, flaps) are taken over this many trailing 1 s windows. */
    static final int SHARE_WINDOWS = 3;

    /** Convergence: 1 - total variation distance to the best static split at least this. */
    static final double MATCH_TARGET = 0.95;

    private EventAnalysis() {
    }

    /** A reading of the ingress relay's per-route byte counters. */
    record RoutePoint(long epochMillis, Map<String, Long> routeBytes) {
    }

    /**
     * Records per batch of a connector's tasks per window: the growth of {@code records-in-total} over
     * the growth of {@code batches-sent-total}, summed over the tasks, each delta put in the window of
     * the later sample. A counter that went down (a restarted task starts at 0) counts from 0.
     *
     * @return per window with batches: {@code [start s, records per batch, batches]}
     */
    static List<double[]> recordsPerBatch(List<TaskMetricsReader.Sample> samples, String connector,
                                          long originMillis, long windowMillis) {
        Map<String, List<TaskMetricsReader.Sample>> byTask = new TreeMap<>();
        for (TaskMetricsReader.Sample s : samples) {
            if (s.connector().equals(connector) && s.values().containsKey("batches-sent-total")
                    && s.values().containsKey("records-in-total")) {
                byTask.computeIfAbsent(s.task(), t -> new ArrayList<>()).add(s);
            }
        }
        TreeMap<Long, double[]> windows = new TreeMap<>();
        for (List<TaskMetricsReader.Sample> task : byTask.values()) {
            task.sort(Comparator.comparingLong(TaskMetricsReader.Sample::epochMillis));
            for (int i = 1; i < task.size(); i++) {
                TaskMetricsReader.Sample before = task.get(i - 1);
                TaskMetricsReader.Sample after = task.get(i);
                double records = delta(before, after, "records-in-total");
                double batches = delta(before, after, "batches-sent-total");
                long window = Math.floorDiv(after.epochMillis() - originMillis, windowMillis);
                double[] sums = windows.computeIfAbsent(window, w -> new double[2]);
                sums[0] += records;
                sums[1] += batches;
            }
        }
        List<double[]> series = new ArrayList<>();
        windows.forEach((window, sums) -> {
            if (sums[1] > 0) {
                series.add(new double[] {window * windowMillis / 1000.0, sums[0] / sums[1], sums[1]});
            }
        });
        return series;
    }

    private static double delta(TaskMetricsReader.Sample before, TaskMetricsReader.Sample after, String metric) {
        double from = before.values().get(metric);
        double to = after.values().get(metric);
        return to >= from ? to - from : to;
    }

    /**
     * How records per batch came back after an event at {@code eventS}, looking until {@code untilS}; both
     * are taken to the start of the window they fall in ({@link #windowStart}).
     *
     * @param before    batch-weighted records per batch over the {@link #STEADY_SECONDS} before the event
     * @param rightAfter the first window with batches from the event's own
     * @param after     batch-weighted over the windows from the recovery to {@code untilS} (or the
     *                  whole interval when it did not recover)
     * @param recoveryS from the event's window to the start of the first of {@link #STABLE_WINDOWS} consecutive
     *                  windows within {@link #RECOVERY_BAND} of {@code before}; null when none (or no
     *                  steady value before the event)
     */
    record Recovery(Double before, Double rightAfter, Double after, Double recoveryS) {
    }

    static Recovery recovery(List<double[]> series, double eventS, double untilS, double windowS) {
        double eventWindowS = windowStart(eventS, windowS);
        double untilWindowS = windowStart(untilS, windowS);
        Double before = weighted(series, eventWindowS - STEADY_SECONDS, eventWindowS);
        List<double[]> afterEvent = series.stream()
                .filter(p -> p[0] >= eventWindowS && p[0] < untilWindowS).toList();
        Double rightAfter = afterEvent.isEmpty() ? null : afterEvent.get(0)[1];
        Double recoveryS = null;
        if (before != null) {
            for (int i = 0; i + STABLE_WINDOWS <= afterEvent.size() && recoveryS == null; i++) {
                boolean stable = true;
                for (int k = 0; k < STABLE_WINDOWS && stable; k++) {
                    double[] p = afterEvent.get(i + k);
                    boolean contiguous = k == 0 || Math.abs(p[0] - afterEvent.get(i + k - 1)[0] - windowS) < 1e-6;
                    stable = contiguous && Math.abs(p[1] / before - 1) <= RECOVERY_BAND;
                }
                if (stable) {
                    recoveryS = round(afterEvent.get(i)[0] - eventWindowS);
                }
            }
        }
        double from = recoveryS == null ? eventWindowS : eventWindowS + recoveryS;
        return new Recovery(before, rightAfter == null ? null : round(rightAfter), weighted(series, from, untilWindowS),
                recoveryS);
    }

    /**
     * The start of the window that holds {@code s}. An event is applied a few milliseconds after its
     * scheduled second (at 12.001 s for 12 s), and a window holds the counter deltas read during it, so
     * the window the event falls in is the event's first: counted before it, it would put the event's
     * own effect (a restart's backlog, drained within a second) into the steady value it is judged by.
     */
    static double windowStart(double s, double windowS) {
        return Math.floor(s / windowS + 1e-6) * windowS;
    }

    /** Records over batches in {@code [fromS, toS)}; null without batches. */
    static Double weighted(List<double[]> series, double fromS, double toS) {
        double records = 0;
        double batches = 0;
        for (double[] p : series) {
            if (p[0] >= fromS && p[0] < toS) {
                records += p[1] * p[2];
                batches += p[2];
            }
        }
        return batches > 0 ? round(records / batches) : null;
    }

    /**
     * Each route's share of the bytes the ingress relay sent per window, from its counters (deltas put in
     * the window of the later reading; a reading without routes, the relay down, is skipped).
     *
     * @return window start (s) to route to share; windows without bytes left out
     */
    static TreeMap<Double, Map<String, Double>> routeShares(List<RoutePoint> points, long originMillis,
                                                            long windowMillis) {
        return routeShares(points, originMillis, windowMillis, 1);
    }

    /**
     * The same over {@code trailing} windows: the share at window {@code w} is that of the bytes of windows
     * {@code w - trailing + 1} to {@code w} (a smoother split; times then lag by up to {@code trailing - 1}
     * windows).
     */
    static TreeMap<Double, Map<String, Double>> routeShares(List<RoutePoint> points, long originMillis,
                                                            long windowMillis, int trailing) {
        TreeMap<Long, Map<String, Long>> bytes = new TreeMap<>();
        RoutePoint previous = null;
        for (RoutePoint point : points) {
            if (point.routeBytes().isEmpty()) {
                previous = null;
                continue;
            }
            if (previous != null) {
                long window = Math.floorDiv(point.epochMillis() - originMillis, windowMillis);
                Map<String, Long> sums = bytes.computeIfAbsent(window, w -> new TreeMap<>());
                for (Map.Entry<String, Long> route : point.routeBytes().entrySet()) {
                    long delta = route.getValue() - previous.routeBytes().getOrDefault(route.getKey(), 0L);
                    sums.merge(route.getKey(), Math.max(0, delta), Long::sum);
                }
            }
            previous = point;
        }
        TreeMap<Double, Map<String, Double>> shares = new TreeMap<>();
        bytes.forEach((window, last) -> {
            Map<String, Long> sums = new TreeMap<>();
            bytes.subMap(window - trailing + 1, true, window, true).values()
                    .forEach(w -> w.forEach((route, b) -> sums.merge(route, b, Long::sum)));
            long total = sums.values().stream().mapToLong(Long::longValue).sum();
            if (total > 0) {
                Map<String, Double> share = new TreeMap<>();
                sums.forEach((route, b) -> share.put(route, b / (double) total));
                shares.put(window * windowMillis / 1000.0, share);
            }
        });
        return shares;
    }

    /** Each route's cap over the sum of the caps. */
    static Map<String, Double> proportional(Map<String, Long> caps) {
        double total = caps.values().stream().mapToLong(Long::longValue).sum();
        Map<String, Double> split = new TreeMap<>();
        caps.forEach((route, cap) -> split.put(route, round(cap / total)));
        return split;
    }

    /**
     * The latency-optimal static split with headroom: routes in order of their extra one-way delay, each group
     * of equal delay taking the load still left up to {@code maxUtilisation} of its summed caps, split within
     * the group in proportion to the caps; the last group takes whatever is left. With equal delays this is
     * {@link #proportional}; when the load exceeds {@code maxUtilisation} of all the caps together, every route
     * is needed at more than that, and the split is {@link #proportional} too.
     *
     * @param caps             each route's cap (any unit, the same as {@code load})
     * @param extraDelayMillis each route's extra one-way delay; a route not in it has none
     * @param load             the load to carry, in the unit of {@code caps}
     * @param maxUtilisation   the largest fraction of its cap a route carries while slower routes have room
     * @return each route's share of the load
     */
    static Map<String, Double> fastestFirst(Map<String, Long> caps, Map<String, Long> extraDelayMillis, double load,
                                            double maxUtilisation) {
        double total = caps.values().stream().mapToLong(Long::longValue).sum();
        if (load <= 0 || load >= maxUtilisation * total) {
            return proportional(caps);
        }
        TreeMap<Long, List<String>> byDelay = new TreeMap<>();
        caps.keySet().forEach(route -> byDelay.computeIfAbsent(extraDelayMillis.getOrDefault(route, 0L),
                d -> new ArrayList<>()).add(route));
        Map<String, Double> split = new TreeMap<>();
        double left = load;
        for (Map.Entry<Long, List<String>> group : byDelay.entrySet()) {
            double groupCap = group.getValue().stream().mapToLong(caps::get).sum();
            double taken = group.getKey().equals(byDelay.lastKey()) ? left : Math.min(left, maxUtilisation * groupCap);
            for (String route : group.getValue()) {
                split.put(route, round(taken * caps.get(route) / groupCap / load));
            }
            left -= taken;
        }
        return split;
    }

    /** 1 - the total variation distance between two splits (1: the same split, 0: disjoint). */
    static double match(Map<String, Double> shares, Map<String, Double> best) {
        TreeSet<String> routes = new TreeSet<>(shares.keySet());
        routes.addAll(best.keySet());
        double distance = 0;
        for (String route : routes) {
            distance += Math.abs(shares.getOrDefault(route, 0.0) - best.getOrDefault(route, 0.0));
        }
        return 1 - distance / 2;
    }

    /** The byte-weighted mean share of {@code route} over the windows in {@code [fromS, toS)}; null without any. */
    static Double meanShare(TreeMap<Double, Map<String, Double>> shares, String route, double fromS, double toS) {
        List<Double> values = shares.subMap(fromS, true, toS, false).values().stream()
                .map(s -> s.getOrDefault(route, 0.0)).toList();
        return values.isEmpty() ? null : round(values.stream().mapToDouble(Double::doubleValue).average().orElse(0));
    }

    /**
     * Seconds from {@code eventS} to the start of the first of {@link #STABLE_WINDOWS} consecutive windows
     * whose split matches {@code best} at least {@link #MATCH_TARGET}; null when none before {@code untilS}.
     */
    static Double timeToMatch(TreeMap<Double, Map<String, Double>> shares, Map<String, Double> best, double eventS,
                              double untilS, double windowS) {
        List<Map.Entry<Double, Map<String, Double>>> windows = new ArrayList<>(
                shares.subMap(eventS, true, untilS, false).entrySet());
        for (int i = 0; i + STABLE_WINDOWS <= windows.size(); i++) {
            boolean stable = true;
            for (int k = 0; k < STABLE_WINDOWS && stable; k++) {
                boolean contiguous = k == 0
                        || Math.abs(windows.get(i + k).getKey() - windows.get(i + k - 1).getKey() - windowS) < 1e-6;
                stable = contiguous && match(windows.get(i + k).getValue(), best) >= MATCH_TARGET;
            }
            if (stable) {
                return round(windows.get(i).getKey() - eventS);
            }
        }
        return null;
    }

    /** The mean match with {@code best} over the windows in {@code [fromS, toS)}; null without any. */
    static Double meanMatch(TreeMap<Double, Map<String, Double>> shares, Map<String, Double> best, double fromS,
                            double toS) {
        return shares.subMap(fromS, true, toS, false).values().stream().mapToDouble(s -> match(s, best)).average()
                .stream().boxed().findFirst().map(EventAnalysis::round).orElse(null);
    }

    /**
     * Reversals of a share series: the first move of more than {@link #FLAP_BAND} sets a direction; each
     * later move of more than the band (from the last turning point) against it is one flap.
     */
    static int flaps(List<Double> values) {
        if (values.isEmpty()) {
            return 0;
        }
        int flaps = 0;
        int direction = 0;
        double anchor = values.get(0);
        for (double value : values) {
            double move = value - anchor;
            if (Math.abs(move) > FLAP_BAND) {
                int next = move > 0 ? 1 : -1;
                if (direction != 0 && next != direction) {
                    flaps++;
                }
                direction = next;
                anchor = value;
            } else if (direction > 0 && value > anchor || direction < 0 && value < anchor) {
                anchor = value;
            }
        }
        return flaps;
    }

    static double round(double value) {
        return Math.round(value * 1000) / 1000.0;
    }
}
