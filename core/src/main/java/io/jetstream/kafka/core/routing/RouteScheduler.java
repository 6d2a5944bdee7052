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
 * to their measured capacity, uses costlier routes only when cheaper ones are full or miss the
 * latency target, never exceeds the spend cap, and moves traffic off failed routes.
 *
 * <p>Policy of {@link #choose}:
 * <ol>
 *   <li>Candidates: routes not {@link RouteState#DOWN}, and down routes whose probe is due (one
 *       batch). A route of unknown capacity is probed by using it: its optimistic prior makes it
 *       attractive within its price tier until a queue is seen on it, which also measures it.</li>
 *   <li>Per candidate: capacity {@code C} (measured when the route was busy, else an optimistic
 *       prior), base RTT {@code R}, expected completion {@code ECT = inFlight/C + R/2 + bytes/C},
 *       cost (egress, plus a relay lease if due), and effective price per GB
 *       ({@link CostModel#effectivePricePerGb}).</li>
 *   <li>Price tiers, cheapest first (prices within {@code priceTolerance} share a tier): the
 *       healthy candidate with the earliest completion that is affordable, not full and within the
 *       latency target. Full: bytes in flight beyond {@code C * (R + queueAllowance)}, or the latest
 *       ack took {@code queueAllowance} longer than the fastest recent one (a queue is seen; this
 *       is what stops an unmeasured route, whose {@code C} is a prior, from being flooded). Within
 *       a tier, earliest completion splits a saturating load in proportion to capacity; a lighter
 *       load goes mostly to the route that completes first.</li>
 *   <li>Else the same among {@link RouteState#DEGRADED} routes; else the earliest completion
 *       among all affordable candidates (everything is full: queue where it completes first);
 *       else none (the cap is reached: the caller applies backpressure).</li>
 * </ol>
 * A route with batches in flight and no acknowledgement for {@code stallTimeout} plus the time to
 * drain its bytes in flight goes down; so does one whose connection is lost, or that failed
 * {@code downAfterFailures} times in a row.
 *
 * <p>Money is charged when a batch is chosen (so concurrent callers cannot overspend): its egress,
 * and for routes with priced relays a lease of {@code relayLease} when the previous one ran out.
 *
 * <p>Thread-safe: every public method is synchronized; Netty event loops of several connections
 * may call it. Each call is O(routes).
 */
public final class RouteScheduler {

    private final RouteSchedulerSettings settings;
    private final Map<String, RouteEntry> routes = new LinkedHashMap<>();
    private final SpendLedger ledger;

    private record Candidate(RouteEntry entry, double ectSeconds, double cost, double price, boolean affordable,
                             boolean full, boolean meetsTarget, boolean healthy) {
    }

    public RouteScheduler(List<RouteSpec> specs, RouteSchedulerSettings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
        for (RouteSpec spec : specs) {
            if (routes.putIfAbsent(spec.name(), new RouteEntry(spec, settings)) != null) {
                throw new IllegalArgumentException("duplicate route name " + spec.name());
            }
        }
        this.ledger = new SpendLedger(settings.spendCap(), settings.spendWindow(), 60);
    }

    /**
     * The route for a batch of {@code wireBytes}, already charged to it (bytes in flight, money),
     * or empty if no route can take it now (all down, or the spend cap reached). The caller sends
     * the batch on the route and reports its outcome with {@link #onAcked} or {@link #onNack}.
     */
    public synchronized Optional<RouteSpec> choose(int wireBytes, long nowNanos) {
        detectStalls(nowNanos);
        List<Candidate> candidates = new ArrayList<>();
        for (RouteEntry entry : routes.values()) {
            LinkEstimates e = entry.link.estimates(nowNanos);
            if (entry.health.usable(nowNanos)) {
                candidates.add(candidate(entry, e, wireBytes, nowNanos));
            }
        }
        Optional<Candidate> chosen = preferred(candidates, true)
                .or(() -> preferred(candidates, false))
                .or(() -> candidates.stream().filter(Candidate::affordable)
                        .min(Comparator.comparingDouble(Candidate::ectSeconds)));
        chosen.ifPresent(c -> commit(c, wireBytes, nowNanos));
        return chosen.map(c -> c.entry().spec);
    }

    private Candidate candidate(RouteEntry entry, LinkEstimates e, int wireBytes, long nowNanos) {
        double capacity = RouteEntry.capacity(e, settings.priorBytesPerSecond());
        double rtt = RouteEntry.rttSeconds(e, settings.priorRtt().toNanos());
        double ect = e.inFlightBytes() / capacity + rtt / 2 + wireBytes / capacity;
        double cost = CostModel.egressCost(entry.spec, wireBytes)
                + (entry.needsLease(nowNanos) ? CostModel.relayCost(entry.spec, settings.relayLease()) : 0);
        boolean affordable = ledger.canAfford(cost, nowNanos);
        double allowanceSeconds = settings.queueAllowance().toNanos() / 1e9;
        boolean pipeAndQueueFull = e.inFlightBytes() + wireBytes > capacity * (rtt + allowanceSeconds);
        // the freshest sign of a queue, and the only one while the capacity is a prior
        boolean queueObserved = e.inFlightBatches() > 0
                && e.lastAckLatencyNanos() - e.minAckLatencyNanos() > allowanceSeconds * 1e9;
        boolean full = pipeAndQueueFull || queueObserved;
        boolean meetsTarget = settings.latencyTarget().map(t -> ect <= t.toNanos() / 1e9).orElse(true);
        boolean healthy = entry.health.state() != RouteState.DEGRADED;
        double price = CostModel.effectivePricePerGb(entry.spec, capacity);
        return new Candidate(entry, ect, cost, price, affordable, full, meetsTarget, healthy);
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
        double tierCeiling = eligible.get(0).price() * (1 + settings.priceTolerance()) + 1e-12;
        return eligible.stream()
                .filter(c -> c.price() <= tierCeiling)
                .min(Comparator.comparingDouble(Candidate::ectSeconds));
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
        entry.link.onSent(wireBytes, nowNanos);
        entry.sentBytes.add(wireBytes, nowNanos);
        entry.health.onSent(nowNanos);
    }

    private void detectStalls(long nowNanos) {
        for (RouteEntry entry : routes.values()) {
            LinkEstimates e = entry.link.estimates(nowNanos);
            double drainNanos = e.inFlightBytes() / RouteEntry.capacity(e, settings.priorBytesPerSecond()) * 1e9;
            boolean waiting = e.inFlightBatches() > 0;
            boolean silentTooLong = nowNanos - e.lastProgressNanos() > settings.stallTimeout().toNanos() + drainNanos;
            if (waiting && silentTooLong) {
                entry.health.onStalled(nowNanos);
            }
            if (entry.health.probeTimedOut(nowNanos, settings.stallTimeout().toNanos() + (long) drainNanos)) {
                entry.health.onFailure(nowNanos);
            }
        }
    }

    /** A batch sent at {@code sentAtNanos} on {@code route} was acknowledged end to end. */
    public synchronized void onAcked(RouteSpec route, long wireBytes, long sentAtNanos, long ackedAtNanos) {
        RouteEntry entry = entry(route);
        entry.link.onAcked(wireBytes, sentAtNanos, ackedAtNanos);
        entry.health.onAck();
    }

    /** A batch on {@code route} was refused or timed out; the caller re-sends it (choosing again). */
    public synchronized void onNack(RouteSpec route, long wireBytes, NackReason reason, long nowNanos) {
        Objects.requireNonNull(reason, "reason");
        RouteEntry entry = entry(route);
        entry.link.onFailed(wireBytes, nowNanos);
        entry.health.onFailure(nowNanos);
    }

    /** The connection of {@code route} was lost: all its batches in flight are failed; it goes down. */
    public synchronized void onFailure(RouteSpec route, long nowNanos) {
        RouteEntry entry = entry(route);
        entry.link.onConnectionLost(nowNanos);
        entry.health.onConnectionLost(nowNanos);
    }

    /** The connection of {@code route} is back: it is probed with the next batch it is chosen for. */
    public synchronized void onRecovered(RouteSpec route, long nowNanos) {
        entry(route).health.onRecovered(nowNanos);
    }

    /** A heartbeat on {@code route} measured a round trip of {@code rttNanos}. */
    public synchronized void onRttSample(RouteSpec route, long rttNanos, long nowNanos) {
        entry(route).link.onRttSample(rttNanos, nowNanos);
    }

    private RouteEntry entry(RouteSpec route) {
        RouteEntry entry = routes.get(route.name());
        if (entry == null) {
            throw new IllegalArgumentException("unknown route " + route.name() + "; known: " + routes.keySet());
        }
        return entry;
    }

    /** Per-route statistics and spend at {@code nowNanos}. */
    public synchronized SchedulerSnapshot snapshot(long nowNanos) {
        detectStalls(nowNanos);
        Map<RouteEntry, LinkEstimates> estimates = new LinkedHashMap<>();
        double capacityUp = 0;
        double sentRate = 0;
        for (RouteEntry entry : routes.values()) {
            LinkEstimates e = entry.link.estimates(nowNanos);
            estimates.put(entry, e);
            if (entry.health.state() != RouteState.DOWN) {
                capacityUp += RouteEntry.capacity(e, settings.priorBytesPerSecond());
            }
            sentRate += entry.sentBytes.perSecond(nowNanos);
        }
        List<RouteStats> stats = new ArrayList<>();
        for (Map.Entry<RouteEntry, LinkEstimates> item : estimates.entrySet()) {
            RouteEntry entry = item.getKey();
            LinkEstimates e = item.getValue();
            double capacity = RouteEntry.capacity(e, settings.priorBytesPerSecond());
            double capacityShare = entry.health.state() == RouteState.DOWN || capacityUp == 0 ? 0
                    : capacity / capacityUp;
            double trafficShare = sentRate == 0 ? 0 : entry.sentBytes.perSecond(nowNanos) / sentRate;
            stats.add(entry.stats(e, capacity, RouteEntry.rttSeconds(e, settings.priorRtt().toNanos()) * 1e9,
                    capacityShare, trafficShare));
        }
        return new SchedulerSnapshot(nowNanos, stats, ledger.total(), ledger.inWindow(nowNanos), ledger.cap());
    }

    public RouteSchedulerSettings settings() {
        return settings;
    }
}
