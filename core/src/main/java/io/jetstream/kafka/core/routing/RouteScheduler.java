package io.jetstream.kafka.core.routing;

import io.jetstream.kafka.core.model.LinkEstimates;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Chooses the route of each batch at the ingress relay: splits batches over routes in proportion
 * to their capacity, uses costlier routes only when cheaper ones are full or miss the latency
 * target, never exceeds the spend cap, and moves traffic off failed routes.
 *
 * <p>Policy of {@link #choose}:
 * <ol>
 *   <li>Candidates: routes not {@link RouteState#DOWN}, and down routes whose recovery probe is due
 *       (one batch).</li>
 *   <li>Per candidate: capacity {@code C} ({@link CapacityEstimate}), base RTT {@code R}, expected
 *       completion {@code ECT = max(inFlight/C - R, 0) + bytes/C + R/2}: the queue ahead (what is in
 *       flight beyond the route's pipe of {@code C * R}), the batch's own transmission and the one-way
 *       delay. Without heartbeats, {@code C} is the
 *       routes' reference capacity and {@code R} the routes' common (smallest) round trip, unless the
 *       route's own transfers of the last 2 s all took longer than that by more than 30 ms or a quarter
 *       of it (a longer path, a delay that grew): then that. {@code inFlight} is every byte
 *       chosen for the route and not yet received by its egress relay ({@link #onReceived}),
 *       acknowledged or failed (so it includes whatever waits at the next hops, and not what waits
 *       at the destination), cost (egress, plus a relay lease if due), and effective price per GB
 *       ({@link CostModel#effectivePricePerGb}).</li>
 *   <li>Probing: a healthy, affordable route of the cheapest tier not chosen in the last
 *       {@code ceil(1/probeShare)} choices or for {@code probeInterval} gets this batch (the one
 *       waiting longest first), so every route keeps at least that share and its estimates stay
 *       fresh; routes of costlier tiers likewise with {@code costlyProbeShare} (0 by default: a
 *       probe there costs money).</li>
 *   <li>Price tiers, cheapest first (prices within {@code priceTolerance} share a tier): the
 *       healthy candidate with the earliest completion that is affordable, not full and within the
 *       latency target. Full: bytes in flight beyond {@code C * (R' + A + D)}, where {@code D} is half
 *       the amount by which the longest round trip of the route's tier exceeds its own (a batch queued
 *       that much longer still arrives no later than on the longest route), and
 *       {@code R'} is the larger of {@code R} and the smallest recent ack latency and {@code A} the
 *       route's spill allowance ({@code queueAllowance}, doubled, up to 1 s, when the route ran short
 *       of work after its overflow went to a costlier tier; decaying back while it stays busy), or its smoothed
 *       ack latency exceeds the best route's by {@code A} while batches are in flight
 *       (a queue of its own is seen; this is what stops a route whose {@code C} is too optimistic
 *       from being flooded; delays at the destination reach every route and cancel out). Within
 *       the latency target: the route's own {@code (inFlight + bytes)/C + R/2}.</li>
 *   <li>Else the same among {@link RouteState#DEGRADED} routes; else, everything being full, with a
 *       latency target the earliest completion among all affordable candidates (queue where it
 *       completes first), without one the earliest completion in the cheapest tier of them (queue
 *       where it costs least); else none (the cap is reached: the caller applies backpressure).</li>
 * </ol>
 * Earliest completions within {@code completionTolerance} of each other are a tie, won by the route
 * chosen least recently: equal routes alternate instead of the first one taking every batch while
 * the load is light. Within a tier, earliest completion with in-flight accounting joins the
 * shortest queue: a saturating load splits in proportion to capacity.
 *
 * <p><b>Queue drains.</b> Transfers on a busy route include the route's own queue, and a cheap route
 * kept full on purpose (its spill allowance) holds a standing queue that no window of minimum
 * transfers gets below: such a route would be ranked by its queue, not by its path. From the sender
 * alone a queue and a longer path look alike (both raise the transfer, and the bytes in flight with
 * it); only a transfer with nothing of the route's own ahead tells them apart. So, like BBR's
 * ProbeRTT, a route without heartbeats whose recent transfers exceed the common round trip by more
 * than the margin, and that measured no unqueued transfer (a batch sent onto the empty route) in
 * the last 2 s, is drained: it takes no new batch (it counts as full; only when no other route can
 * take one does it) until nothing is in flight on it, at most 3 s, and its next batch measures the
 * route without a queue. At most one route drains at a time, and none while no other route is up
 * or degraded. While the route's recent transfers stay within the margin of what they were when its
 * last drain began (the same queue), it is ranked by the smaller of them and that unqueued
 * transfer, for up to 13 s; a route whose transfers grew since (more queue, or a delay that grew)
 * is ranked by them and drained again after 2 s. A drain costs the route about one round trip of
 * idle link (the pipe empties), every 10 s while the queue stands.
 *
 * <p>A route with batches in flight and no receipt or acknowledgement for {@code stallTimeout} plus the time
 * to transmit one of its batches goes down while another route was acknowledged within
 * {@code stallTimeout} (silence on every route is the destination's, not a route's); so does one
 * whose connection is lost, or that failed {@code downAfterFailures} times in a row.
 *
 * <p>Money is charged when a batch is chosen (so concurrent callers cannot overspend): its egress,
 * and for routes with priced relays a lease of {@code relayLease} when the previous one ran out.
 * Probes are chosen and charged like any batch, so they never exceed the cap either.
 *
 * <p>Thread-safe: every public method is synchronized; Netty event loops of several connections
 * may call it. Each call is O(routes).
 */
public final class RouteScheduler<R extends PricedRoute> {

    /**
     * A route holds in flight at most what it delivered over about this many seconds (the time
     * constant of {@code RouteEntry.deliveredBytes}).
     */
    static final double COMMIT_SECONDS = 2.0;
    /** ... but always this much (a route that delivered little yet still fills its pipe). */
    static final double COMMIT_FLOOR_BYTES = 4 << 20;
    /** The most queue (seconds at its capacity) a route's spill allowance grows to. */
    static final double MAX_SPILL_ALLOWANCE_SECONDS = 1.0;
    /** Time constant with which a grown spill allowance decays back to {@code queueAllowance}. */
    static final double SPILL_ALLOWANCE_DECAY_SECONDS = 5.0;
    /**
     * A route without heartbeats is ranked by its own recent round trip (receipts) only when that
     * exceeds the common one by more than this, or by {@link #OWN_RTT_MARGIN_SHARE} of it if more:
     * on the emulated WAN, the receipt minimums of equal routes differ by 5-25 ms (CPU scheduling on
     * the relays), which must not rank them apart.
     */
    static final double OWN_RTT_MARGIN_SECONDS = 0.030;
    static final double OWN_RTT_MARGIN_SHARE = 0.25;
    /** A route whose own queue explained its recent transfers is drained again after this long. */
    static final long QUEUE_DRAIN_INTERVAL_NANOS = 10_000_000_000L;
    /**
     * No drain while the route's latest unqueued transfer is younger than this, nor sooner after the
     * previous drain (unless its recent transfers grew since that one, then not sooner than this).
     */
    static final long QUEUE_DRAIN_RECHECK_NANOS = 2_000_000_000L;
    /** A drain that has not emptied the route after this long is given up (the route takes batches again). */
    static final long QUEUE_DRAIN_LIMIT_NANOS = 3_000_000_000L;

    private final RouteSchedulerSettings settings;
    private final Map<String, RouteEntry> routes = new LinkedHashMap<>();
    private final SpendLedger ledger;
    private long choices;

    /** A usable route's figures of one choice, each computed once. */
    private record Usable(RouteEntry entry, LinkEstimates estimates, double capacity, double pathRtt, double price) {
    }

    private record Candidate(RouteEntry entry, double ectSeconds, double cost, double price, boolean affordable,
                             boolean full, boolean meetsTarget, boolean healthy, boolean draining) {
    }

    public RouteScheduler(List<? extends R> specs, RouteSchedulerSettings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
        for (R spec : specs) {
            if (routes.putIfAbsent(spec.name(), new RouteEntry(spec, settings, 0)) != null) {
                throw new IllegalArgumentException("duplicate route name " + spec.name());
            }
        }
        this.ledger = new SpendLedger(settings.spendCap(), settings.spendWindow(), 60);
    }

    /**
     * The route for a batch of {@code wireBytes}, already charged to it (bytes in flight, money),
     * or empty if no route can take it now (all down, or the spend cap reached). The caller sends
     * the batch on the route and reports its outcome with {@link #onAcked} or {@link #onNack}, or
     * hands it back with {@link #onReleased} if it did not send it after all.
     */
    public synchronized Optional<R> choose(int wireBytes, long nowNanos) {
        Map<RouteEntry, LinkEstimates> estimates = estimates(nowNanos);
        double reference = referenceCapacity(estimates.values());
        detectStalls(estimates, reference, nowNanos);
        double bestAckLatency = bestAckLatency(estimates);
        double commonAckRtt = commonAckRtt(estimates);
        updateQueueDrains(estimates, commonAckRtt, nowNanos);
        List<Usable> usable = new ArrayList<>();
        for (Map.Entry<RouteEntry, LinkEstimates> item : estimates.entrySet()) {
            RouteEntry entry = item.getKey();
            if (entry.health.usable(nowNanos)) {
                double capacity = capacity(entry, item.getValue(), reference, nowNanos);
                usable.add(new Usable(entry, item.getValue(), capacity,
                        pathRtt(entry, item.getValue(), commonAckRtt, nowNanos),
                        CostModel.effectivePricePerGb(entry.spec, capacity)));
            }
        }
        List<Candidate> candidates = new ArrayList<>(usable.size());
        for (Usable u : usable) {
            candidates.add(candidate(u, reference, bestAckLatency, longestRttOfTier(u.price(), usable), wireBytes,
                    nowNanos));
        }
        // a route at its in-flight cap takes nothing more now; none left: the caller refuses the
        // batch retriably and its sender keeps it
        candidates.removeIf(c -> overcommits(c.entry(), wireBytes, nowNanos));
        Optional<Candidate> chosen = probe(candidates, nowNanos)
                .or(() -> preferred(candidates, true))
                .or(() -> preferred(candidates, false))
                .or(() -> overflow(candidates));
        chosen.ifPresent(c -> {
            commit(c, wireBytes, nowNanos);
            noteSpills(candidates, c);
        });
        return chosen.map(c -> route(c.entry()));
    }

    /**
     * Every route is full (or misses the latency target). With a latency target, the batch queues
     * where it completes first: time is what the operator asked for. Without one, it queues on the
     * cheapest tier (earliest completion within it): a queue costs latency, a costlier route costs
     * money, and a cheaper route that is full is busy, so what it queues it carries at its own price
     * (the in-flight cap still bounds that queue; a route at its cap is no candidate).
     */
    private Optional<Candidate> overflow(List<Candidate> candidates) {
        List<Candidate> affordable = candidates.stream().filter(Candidate::affordable).toList();
        if (affordable.stream().anyMatch(c -> !c.draining())) {
            affordable = affordable.stream().filter(c -> !c.draining()).toList();
        }
        if (settings.latencyTarget().isPresent() || affordable.isEmpty()) {
            return earliest(affordable);
        }
        return earliest(cheapestTier(affordable));
    }

    /** The candidates within {@code priceTolerance} of the cheapest one's effective price. */
    private List<Candidate> cheapestTier(List<Candidate> candidates) {
        double cheapest = candidates.stream().mapToDouble(Candidate::price).min().orElse(Double.NaN);
        double ceiling = tierCeiling(cheapest);
        return candidates.stream().filter(c -> c.price() <= ceiling).toList();
    }

    /**
     * Cheaper routes passed over only for being full, while {@code chosen} of a costlier tier takes
     * the batch: their overflow costs money. Should such a route then run short of work, its queue
     * was too short to bridge the gaps between arrivals, and its spill allowance grows.
     */
    private void noteSpills(List<Candidate> candidates, Candidate chosen) {
        for (Candidate c : candidates) {
            boolean cheaperTier = chosen.price() > tierCeiling(c.price());
            if (c != chosen && cheaperTier && c.full() && !c.draining() && c.affordable() && c.meetsTarget()) {
                c.entry().spilledSinceDrained = true;
            }
        }
    }

    /**
     * Adapts the queue {@code entry} holds before a costlier route takes its overflow. The bytes
     * chosen for a route arrive in bursts (a sender flushes several partitions' batches at once);
     * a route full after {@code queueAllowance} of queue hands the rest of a burst to a costlier
     * route and then idles until the next one, although over time it could have carried it all.
     * So when a route that spilled since it last ran short has less than its pipe in flight
     * ({@code drained}: its link is running out of work), the queue it may hold doubles (up to
     * {@link #MAX_SPILL_ALLOWANCE_SECONDS}); otherwise the allowance decays back toward
     * {@code queueAllowance} with {@link #SPILL_ALLOWANCE_DECAY_SECONDS}, so a standing queue
     * shrinks again and a route stays at the least queue that keeps it busy.
     */
    private void adaptSpillAllowance(RouteEntry entry, boolean drained, long nowNanos) {
        double base = settings.queueAllowance().toNanos() / 1e9;
        double ageSeconds = Math.max(0, nowNanos - entry.spillAllowanceAtNanos) / 1e9;
        entry.spillAllowanceAtNanos = nowNanos;
        if (drained && entry.spilledSinceDrained) {
            entry.spilledSinceDrained = false;
            entry.spillAllowanceSeconds = Math.min(MAX_SPILL_ALLOWANCE_SECONDS,
                    Math.max(2 * entry.spillAllowanceSeconds, base + 0.05));
        } else {
            entry.spillAllowanceSeconds = base + (entry.spillAllowanceSeconds - base)
                    * Math.exp(-ageSeconds / SPILL_ALLOWANCE_DECAY_SECONDS);
        }
    }

    /** The caller's route an entry was made for: every entry is made from an {@code R} in the constructor. */
    @SuppressWarnings("unchecked")
    private R route(RouteEntry entry) {
        return (R) entry.spec;
    }

    /**
     * Whether {@link #choose} refuses a batch of {@code wireBytes} now only because every route that
     * could take it holds its in-flight cap ({@link #COMMIT_SECONDS}): the refusal ends as soon as
     * one of their batches is answered, so the caller may hold the batch back instead of refusing
     * it. False when no route is usable or a usable one is under its cap (a refusal then has
     * another cause, such as the spend cap).
     */
    public synchronized boolean atInFlightCap(int wireBytes, long nowNanos) {
        boolean any = false;
        for (RouteEntry entry : routes.values()) {
            if (!entry.health.usable(nowNanos)) {
                continue;
            }
            if (!overcommits(entry, wireBytes, nowNanos)) {
                return false;
            }
            any = true;
        }
        return any;
    }

    /**
     * A route takes no more than it delivered over the last {@link #COMMIT_SECONDS} (exponentially
     * weighted; at least {@link #COMMIT_FLOOR_BYTES}). Not its delivered rate times that: a rate read
     * from a route's first receipt, or from a burst of acknowledgements the destination released
     * together, can be many times what the route carries, and once let one route of three take 12 MB
     * of a backlog (8 s of queue on its link) while the others idled. A backlog arriving as a burst would
     * otherwise be committed to the routes at once and queue for seconds on the links: recovering
     * routes would sit idle while the others drain it, and, since the destination puts each
     * partition in order, a batch that crossed a shorter queue would wait for its predecessor on a
     * longer one, silencing its route until the stall rule takes it down (docs/model.md §4, docs/experiments.md).
     */
    private static boolean overcommits(RouteEntry entry, int wireBytes, long nowNanos) {
        double cap = Math.max(COMMIT_FLOOR_BYTES, entry.deliveredBytes.recentAmount(nowNanos));
        return entry.inFlightBatches > 0 && entry.inFlightBytes + wireBytes > cap;
    }

    private Map<RouteEntry, LinkEstimates> estimates(long nowNanos) {
        Map<RouteEntry, LinkEstimates> estimates = new LinkedHashMap<>();
        for (RouteEntry entry : routes.values()) {
            estimates.put(entry, entry.link.estimates(nowNanos));
        }
        return estimates;
    }

    /** The largest fresh capacity measurement among the routes, else the prior (see {@link CapacityEstimate}). */
    private double referenceCapacity(Iterable<LinkEstimates> estimates) {
        double best = Double.NaN;
        for (LinkEstimates e : estimates) {
            if (e.throughputKnown() && !(e.bytesPerSecond() <= best)) {
                best = e.bytesPerSecond();
            }
        }
        return Double.isNaN(best) ? settings.priorBytesPerSecond() : best;
    }

    private double capacity(RouteEntry entry, LinkEstimates e, double reference, long nowNanos) {
        return entry.capacity.bytesPerSecond(e, reference, nowNanos);
    }

    /** The smallest smoothed ack latency among routes not down (NaN when none was measured). */
    private static double bestAckLatency(Map<RouteEntry, LinkEstimates> estimates) {
        double best = Double.NaN;
        for (Map.Entry<RouteEntry, LinkEstimates> item : estimates.entrySet()) {
            double latency = item.getValue().ackLatencyNanos();
            if (item.getKey().health.state() != RouteState.DOWN && !Double.isNaN(latency) && !(latency >= best)) {
                best = latency;
            }
        }
        return best;
    }

    /** The smallest round trip among routes without heartbeat measurements (seconds; the prior if none). */
    private double commonAckRtt(Map<RouteEntry, LinkEstimates> estimates) {
        double best = Double.NaN;
        for (Map.Entry<RouteEntry, LinkEstimates> item : estimates.entrySet()) {
            LinkEstimates e = item.getValue();
            double rtt = RouteEntry.rttSeconds(e, settings.priorRtt().toNanos());
            if (Double.isNaN(e.smoothedRttNanos()) && item.getKey().health.state() != RouteState.DOWN
                    && !(rtt >= best)) {
                best = rtt;
            }
        }
        return Double.isNaN(best) ? settings.priorRtt().toNanos() / 1e9 : best;
    }

    /**
     * The round trip by which a route without heartbeats is ranked (seconds): the common one, or its
     * own recent minimum where that exceeds the common one by more than the noise between equal routes.
     */
    private static double rankingRtt(RouteEntry entry, double commonRtt, long nowNanos) {
        double own = ownRtt(entry, commonRtt, nowNanos);
        return own - commonRtt > ownRttMargin(commonRtt) ? own : commonRtt;
    }

    /** How much a route's own round trip must exceed the common one to rank it apart (seconds). */
    private static double ownRttMargin(double commonRtt) {
        return Math.max(OWN_RTT_MARGIN_SECONDS, OWN_RTT_MARGIN_SHARE * commonRtt);
    }

    /**
     * A route's own round trip from its transfers (seconds; NaN when none in the last 2 s): the
     * shortest recent one or, while the route's own queue explains them (they are no longer than
     * when its last drain began, and the unqueued transfer that drain measured is at most 13 s old),
     * the unqueued transfer if shorter. See the class comment, queue drains.
     */
    private static double ownRtt(RouteEntry entry, double commonRtt, long nowNanos) {
        double recent = entry.recentTransferNanos.min(nowNanos);
        double unqueued = entry.unqueuedTransferNanos;
        boolean fresh = !Double.isNaN(unqueued)
                && nowNanos - entry.unqueuedAtNanos <= QUEUE_DRAIN_INTERVAL_NANOS + QUEUE_DRAIN_LIMIT_NANOS;
        boolean sameQueue = !Double.isNaN(entry.recentTransferAtDrainNanos)
                && recent <= entry.recentTransferAtDrainNanos + ownRttMargin(commonRtt) * 1e9;
        return (fresh && sameQueue ? Math.min(recent, unqueued) : recent) / 1e9;
    }

    /**
     * Ends the queue drains that emptied their route, lasted {@link #QUEUE_DRAIN_LIMIT_NANOS} or left
     * no other route up or degraded, and starts one where due (class comment, queue drains).
     */
    private void updateQueueDrains(Map<RouteEntry, LinkEstimates> estimates, double commonRtt, long nowNanos) {
        // routes up or degraded (not a down route's single recovery probe) to take the drained one's batches
        int usable = 0;
        RouteEntry draining = null;
        for (RouteEntry entry : estimates.keySet()) {
            if (entry.health.usable(nowNanos) && entry.health.state() != RouteState.DOWN) {
                usable++;
            }
            if (entry.drainingSinceNanos >= 0) {
                boolean emptied = entry.inFlightBatches == 0;
                boolean givenUp = nowNanos - entry.drainingSinceNanos > QUEUE_DRAIN_LIMIT_NANOS;
                if (emptied || givenUp || entry.health.state() != RouteState.UP) {
                    entry.endDrain();
                } else {
                    draining = entry;
                }
            }
        }
        if (draining != null && usable < 2) {
            draining.endDrain();
            draining = null;
        }
        if (draining != null || usable < 2) {
            return;
        }
        for (Map.Entry<RouteEntry, LinkEstimates> item : estimates.entrySet()) {
            RouteEntry entry = item.getKey();
            if (drainDue(entry, item.getValue(), commonRtt, nowNanos)) {
                entry.drainingSinceNanos = nowNanos;
                entry.lastDrainNanos = nowNanos;
                entry.recentTransferAtDrainNanos = entry.recentTransferNanos.min(nowNanos);
                entry.queueDrains++;
                return;
            }
        }
    }

    private static boolean drainDue(RouteEntry entry, LinkEstimates e, double commonRtt, long nowNanos) {
        boolean rankedByOwn = Double.isNaN(e.smoothedRttNanos());
        if (!rankedByOwn || entry.health.state() != RouteState.UP || entry.inFlightBatches == 0) {
            return false;
        }
        double recent = entry.recentTransferNanos.min(nowNanos);
        double margin = ownRttMargin(commonRtt);
        if (!(recent / 1e9 - commonRtt > margin)) {
            return false; // ranked by the common round trip: there is nothing to tell apart
        }
        boolean unqueuedRecently = !Double.isNaN(entry.unqueuedTransferNanos)
                && nowNanos - entry.unqueuedAtNanos <= QUEUE_DRAIN_RECHECK_NANOS;
        if (unqueuedRecently) {
            return false;
        }
        if (entry.lastDrainNanos == Long.MIN_VALUE) {
            return true;
        }
        long since = nowNanos - entry.lastDrainNanos;
        boolean grewSince = !(recent <= entry.recentTransferAtDrainNanos + margin * 1e9);
        return since >= QUEUE_DRAIN_INTERVAL_NANOS || (since >= QUEUE_DRAIN_RECHECK_NANOS && grewSince);
    }

    /** The longest ranking round trip among the usable routes of the price tier of {@code price}. */
    private double longestRttOfTier(double price, List<Usable> usable) {
        double longest = 0;
        for (Usable other : usable) {
            boolean sameTier = Math.max(price, other.price()) <= tierCeiling(Math.min(price, other.price()));
            if (sameTier) {
                longest = Math.max(longest, other.pathRtt());
            }
        }
        return longest;
    }

    /**
     * The round trip a route is ranked by (seconds): its own where heartbeats measure it, else the
     * common one or, where it really differs, its own recent one ({@link #rankingRtt}).
     */
    private double pathRtt(RouteEntry entry, LinkEstimates e, double commonAckRtt, long nowNanos) {
        return !Double.isNaN(e.smoothedRttNanos()) ? RouteEntry.rttSeconds(e, settings.priorRtt().toNanos())
                : rankingRtt(entry, commonAckRtt, nowNanos);
    }

    private Candidate candidate(Usable u, double reference, double bestAckLatency, double longestPathRtt,
                                int wireBytes, long nowNanos) {
        RouteEntry entry = u.entry();
        LinkEstimates e = u.estimates();
        double capacity = u.capacity();
        double pathRtt = u.pathRtt();
        double rtt = RouteEntry.rttSeconds(e, settings.priorRtt().toNanos());
        // Ranking. Where heartbeats measure the route's round trip, ack timing separates from path
        // time and the route's own capacity estimate is used. Otherwise (acks are the only signal,
        // and they hold the destination's delays, common to all routes) join the shortest queue:
        // bytes in flight drain at the route's own pace, so a slower route keeps more in flight and
        // gets fewer batches, and at saturation the split follows the capacities without trusting
        // estimates whose errors feed back (a route given less traffic measures less and gets less
        // still); the round trip is then the smallest among such routes, for all of them.
        boolean pathMeasured = !Double.isNaN(e.smoothedRttNanos());
        double rankingCapacity = pathMeasured ? capacity : reference;
        // Nor the route's own round trip from receipts, unless it really differs (pathRtt): on the
        // emulated WAN, equal routes' receipt minimums differ by 5-25 ms (CPU scheduling on the
        // relays), a quarter of the round trip. A route whose recent transfers all took longer than
        // that (a longer path, a delay that grew) is ranked by them, so it takes the load only once
        // the shorter routes' queues are as long as its extra delay. Its minimum over the last
        // seconds, not the base RTT's 10 s window: a delay that grows shows within seconds.
        // The queue ahead is what is in flight beyond the pipe: a busy route's pipe holds its round
        // trip's worth of bytes that are not a wait for the next batch, and counting them as one made
        // a long idle route look as early as a short busy one. Below the pipe, routes tie and
        // alternate (completionTolerance).
        double ect = Math.max(0, entry.inFlightBytes / rankingCapacity - pathRtt) + wireBytes / rankingCapacity
                + pathRtt / 2;
        double cost = CostModel.egressCost(entry.spec, wireBytes)
                + (entry.needsLease(nowNanos) ? CostModel.relayCost(entry.spec, settings.relayLease()) : 0);
        boolean affordable = ledger.canAfford(cost, nowNanos);
        // acks may include processing at the far end that heartbeats do not see: the pipe is the larger
        double unqueuedRoundTrip = Double.isNaN(e.minAckLatencyNanos()) ? rtt
                : Math.max(rtt, e.minAckLatencyNanos() / 1e9);
        // less than the pipe in flight: the link is running out of work
        boolean drained = entry.inFlightBytes < capacity * unqueuedRoundTrip;
        boolean draining = entry.drainingSinceNanos >= 0;
        adaptSpillAllowance(entry, drained && !draining, nowNanos);
        double spillAllowance = entry.spillAllowanceSeconds;
        // A batch queued here up to the extra one-way delay of the longest usable route of its price
        // tier still arrives no later than it would there: so much more queue is allowed before that
        // route takes the overflow (none while the tier's routes share the common round trip).
        double delaySlack = (longestPathRtt - pathRtt) / 2;
        boolean pipeAndQueueFull = entry.inFlightBytes + wireBytes
                > capacity * (unqueuedRoundTrip + spillAllowance + delaySlack);
        // the freshest sign of a queue, and the only one while the capacity is not measured: this
        // route's acks take longer than the best route's. Relative, because delays at the
        // destination (commits, its own queue) reach every route alike; and smoothed, because a
        // route's own minimum goes stale when it carries little traffic, which would starve it.
        boolean queueObserved = entry.inFlightBatches > 0 && !Double.isNaN(e.ackLatencyNanos())
                && e.ackLatencyNanos() - bestAckLatency > spillAllowance * 1e9;
        // Without a path measurement a route's queue signal rests on its own smoothed ack latency,
        // which goes stale on a route given little traffic and then starved it for good; the
        // shortest-queue ranking already keeps queues even, so only the pipe bound applies there.
        // a route whose queue drains takes nothing new (class comment, queue drains)
        boolean full = pipeAndQueueFull || (pathMeasured && queueObserved) || draining;
        // the target is held against the route's own pace, not the shared ranking's: a slow route's
        // queue takes longer to drain than the reference capacity says
        double ownEct = (entry.inFlightBytes + wireBytes) / capacity + Math.max(rtt, pathRtt) / 2;
        boolean meetsTarget = settings.latencyTarget().map(t -> ownEct <= t.toNanos() / 1e9).orElse(true);
        // a down route whose recovery probe is due competes with the healthy ones
        boolean healthy = entry.health.state() != RouteState.DEGRADED;
        return new Candidate(entry, ect, cost, u.price(), affordable, full, meetsTarget, healthy, draining);
    }

    /**
     * A healthy, affordable route starved of batches (see the class comment), the one waiting
     * longest; empty if none.
     */
    private Optional<Candidate> probe(List<Candidate> candidates, long nowNanos) {
        List<Candidate> up = candidates.stream()
                .filter(c -> c.entry().health.state() == RouteState.UP && c.affordable() && !c.draining()).toList();
        double cheapest = up.stream().mapToDouble(Candidate::price).min().orElse(Double.NaN);
        if (Double.isNaN(cheapest)) {
            return Optional.empty();
        }
        double tierCeiling = tierCeiling(cheapest);
        return up.stream()
                .filter(c -> starved(c.entry(), c.price() <= tierCeiling ? settings.probeShare()
                        : settings.costlyProbeShare(), nowNanos))
                .min(Comparator.comparingLong(c -> c.entry().lastChosenSeq));
    }

    private boolean starved(RouteEntry entry, double share, long nowNanos) {
        if (share <= 0) {
            return false;
        }
        long every = (long) Math.ceil(1 / share);
        boolean missedItsShare = choices + 1 - entry.lastChosenSeq > every;
        boolean idleTooLong = nowNanos - entry.lastChosenAtNanos >= settings.probeInterval().toNanos();
        return missedItsShare || idleTooLong;
    }

    /** Cheapest tier first, earliest completion within it, among affordable, not full, on-target routes. */
    private Optional<Candidate> preferred(List<Candidate> candidates, boolean healthy) {
        List<Candidate> eligible = candidates.stream()
                .filter(c -> c.healthy() == healthy && c.affordable() && !c.full() && c.meetsTarget())
                .sorted(Comparator.comparingDouble(Candidate::price))
                .toList();
        if (eligible.isEmpty()) {
            return Optional.empty();
        }
        return earliest(cheapestTier(eligible));
    }

    /** The highest price in the tier of {@code cheapestPrice}: prices within {@code priceTolerance} share a tier. */
    private double tierCeiling(double cheapestPrice) {
        return cheapestPrice * (1 + settings.priceTolerance()) + 1e-12;
    }

    /**
     * The earliest completion; completions within {@code completionTolerance} of it are a tie, won
     * by the route chosen least recently.
     */
    private Optional<Candidate> earliest(List<Candidate> candidates) {
        double earliest = candidates.stream().mapToDouble(Candidate::ectSeconds).min().orElse(Double.NaN);
        double tieCeiling = earliest * (1 + settings.completionTolerance());
        return candidates.stream()
                .filter(c -> c.ectSeconds() <= tieCeiling)
                .min(Comparator.comparingLong(c -> c.entry().lastChosenSeq));
    }

    private void commit(Candidate c, int wireBytes, long nowNanos) {
        RouteEntry entry = c.entry();
        if (!ledger.tryCharge(c.cost(), nowNanos)) {
            throw new IllegalStateException("route " + entry.spec.name() + " was affordable and is not");
        }
        if (entry.needsLease(nowNanos)) {
            entry.leased = true;
            entry.leaseUntilNanos = nowNanos + settings.relayLease().toNanos();
        }
        entry.moneySpent += c.cost();
        entry.sent(wireBytes, nowNanos);
        entry.sentBytes.add(wireBytes, nowNanos);
        entry.health.onSent(nowNanos);
        entry.lastChosenSeq = ++choices;
        entry.lastChosenAtNanos = nowNanos;
    }

    private void detectStalls(Map<RouteEntry, LinkEstimates> estimates, double reference, long nowNanos) {
        long stallNanos = settings.stallTimeout().toNanos();
        double best = bestAckLatency(estimates);
        double commonAckLatency = Double.isNaN(best) ? 0 : best;
        for (Map.Entry<RouteEntry, LinkEstimates> item : estimates.entrySet()) {
            RouteEntry entry = item.getKey();
            double capacity = capacity(entry, item.getValue(), reference, nowNanos);
            // a batch's own transmission may legitimately delay its ack; a queue ahead of it does
            // not silence the acks of the batches in front
            double oneBatchNanos = entry.inFlightBatches == 0 ? 0
                    : (double) entry.inFlightBytes / entry.inFlightBatches / capacity * 1e9;
            boolean waiting = entry.inFlightBatches > 0;
            // acks come back as late as the destination answers: silence counts beyond what acks
            // take on the best route now (twice: they arrive in bursts, e.g. at commits)
            boolean silentTooLong = nowNanos - entry.lastProgressNanos
                    > stallNanos + oneBatchNanos + 2 * commonAckLatency;
            // Silence on every route at once is the destination or the way to it (a write stall,
            // queues before the far end), not a route: taking routes down would only refuse batches.
            if (waiting && silentTooLong && anotherRouteProgressed(entry, stallNanos, nowNanos)) {
                entry.health.onStalled(nowNanos);
            }
            // a probe waits as long as acks take on the best route now (the destination's delay is
            // everyone's), plus the stall timeout
            if (entry.health.probeTimedOut(nowNanos, stallNanos + (long) oneBatchNanos + (long) commonAckLatency)) {
                entry.health.onFailure(nowNanos);
            }
        }
    }

    private boolean anotherRouteProgressed(RouteEntry silent, long withinNanos, long nowNanos) {
        for (RouteEntry other : routes.values()) {
            if (other != silent && other.lastAckNanos != 0 && nowNanos - other.lastAckNanos <= withinNanos) {
                return true;
            }
        }
        return false;
    }

    /** A batch sent at {@code sentAtNanos} on {@code route} was acknowledged end to end. */
    public synchronized void onAcked(R route, long wireBytes, long sentAtNanos, long ackedAtNanos) {
        RouteEntry entry = entry(route);
        entry.acked(wireBytes, ackedAtNanos);
        entry.transferMeasured(ackedAtNanos - sentAtNanos, ackedAtNanos);
        entry.link.onAcked(wireBytes, sentAtNanos, ackedAtNanos);
        entry.health.onAck();
    }

    /**
     * A batch sent at {@code sentAtNanos} on {@code route} reached the route's egress relay at
     * {@code receivedAtNanos} (a receipt, protocol {@code RECEIVED}). The route has carried it: it
     * leaves the route's bytes in flight, and its transfer time is a measurement of the route alone,
     * free of what the destination adds (transaction commits, waiting for a predecessor that took
     * another route). Its answer is reported later with {@link #onSettled}, not {@link #onAcked}.
     */
    public synchronized void onReceived(R route, long wireBytes, long sentAtNanos, long receivedAtNanos) {
        RouteEntry entry = entry(route);
        entry.received(wireBytes, receivedAtNanos);
        entry.transferMeasured(receivedAtNanos - sentAtNanos, receivedAtNanos);
        entry.link.onAcked(wireBytes, sentAtNanos, receivedAtNanos);
        entry.health.onAck();
    }

    /**
     * The destination answered a batch that {@code route} had already carried ({@link #onReceived}):
     * written or not, timed out or not, that is the destination's doing, not the route's.
     */
    public synchronized void onSettled(R route, long wireBytes, boolean written, long nowNanos) {
        entry(route).settled(wireBytes, written);
    }

    /**
     * A batch on {@code route} was refused by a hop or timed out, a failure of the route whatever the
     * reason; the caller re-sends it (choosing again).
     */
    public synchronized void onNack(R route, long wireBytes, long nowNanos) {
        RouteEntry entry = entry(route);
        entry.failed(wireBytes);
        entry.link.onFailed(wireBytes, nowNanos);
        entry.health.onFailure(nowNanos);
    }

    /**
     * A batch chosen for {@code route} is no longer in flight, and that says nothing about the
     * route: it was not sent after all (its first hop was not ready, the frame too large for the
     * path), or the destination refused it for a reason of its own (no subscriber yet, a write
     * failure). Its bytes leave the in-flight count; it is no failure. Money already charged stays
     * charged (the cap remains an upper bound).
     */
    public synchronized void onReleased(R route, long wireBytes, long nowNanos) {
        entry(route).release(wireBytes);
    }

    /**
     * The destination answered a batch on {@code route} with a refusal of its own (no subscriber
     * yet, a write failure, a full buffer): the batch leaves the in-flight count and, since the
     * answer travelled the whole route, the route counts as working (a recovery probe succeeds).
     * Not a throughput sample: nothing was written.
     */
    public synchronized void onAnswered(R route, long wireBytes, long nowNanos) {
        RouteEntry entry = entry(route);
        entry.answered(wireBytes, nowNanos);
        entry.health.onAck();
    }

    /** The connection of {@code route} was lost: all its batches in flight are failed; it goes down. */
    public synchronized void onFailure(R route, long nowNanos) {
        RouteEntry entry = entry(route);
        entry.connectionLost();
        entry.link.onConnectionLost(nowNanos);
        entry.health.onConnectionLost(nowNanos);
    }

    /** The connection of {@code route} is back: it is probed with the next batch it is chosen for. */
    public synchronized void onRecovered(R route, long nowNanos) {
        entry(route).health.onRecovered(nowNanos);
    }

    /** A heartbeat on {@code route} measured a round trip of {@code rttNanos}. */
    public synchronized void onRttSample(R route, long rttNanos, long nowNanos) {
        entry(route).link.onRttSample(rttNanos, nowNanos);
    }

    private RouteEntry entry(R route) {
        RouteEntry entry = routes.get(route.name());
        if (entry == null) {
            throw new IllegalArgumentException("unknown route " + route.name() + "; known: " + routes.keySet());
        }
        return entry;
    }

    /** Per-route statistics and spend at {@code nowNanos}. */
    public synchronized SchedulerSnapshot snapshot(long nowNanos) {
        Map<RouteEntry, LinkEstimates> estimates = estimates(nowNanos);
        double reference = referenceCapacity(estimates.values());
        detectStalls(estimates, reference, nowNanos);
        double commonAckRtt = commonAckRtt(estimates);
        Map<RouteEntry, Double> capacities = new LinkedHashMap<>();
        double capacityUp = 0;
        double sentRate = 0;
        for (Map.Entry<RouteEntry, LinkEstimates> item : estimates.entrySet()) {
            RouteEntry entry = item.getKey();
            double capacity = capacity(entry, item.getValue(), reference, nowNanos);
            capacities.put(entry, capacity);
            if (entry.health.state() != RouteState.DOWN) {
                capacityUp += capacity;
            }
            sentRate += entry.sentBytes.perSecond(nowNanos);
        }
        List<RouteStats> stats = new ArrayList<>();
        for (Map.Entry<RouteEntry, LinkEstimates> item : estimates.entrySet()) {
            RouteEntry entry = item.getKey();
            LinkEstimates e = item.getValue();
            double capacity = capacities.get(entry);
            double capacityShare = entry.health.state() == RouteState.DOWN || capacityUp == 0 ? 0
                    : capacity / capacityUp;
            double trafficShare = sentRate == 0 ? 0 : entry.sentBytes.perSecond(nowNanos) / sentRate;
            double rtt = RouteEntry.rttSeconds(e, settings.priorRtt().toNanos());
            stats.add(entry.stats(e, capacity, rtt * 1e9, pathRtt(entry, e, commonAckRtt, nowNanos) * 1e9,
                    capacityShare, trafficShare));
        }
        return new SchedulerSnapshot(nowNanos, stats, ledger.total(), ledger.inWindow(nowNanos), ledger.cap());
    }

    public RouteSchedulerSettings settings() {
        return settings;
    }
}
