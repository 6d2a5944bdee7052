package io.jetstream.kafka.core.routing;

import io.jetstream.kafka.core.model.DecayingRate;
import io.jetstream.kafka.core.model.LinkEstimates;
import io.jetstream.kafka.core.model.LinkMonitor;
import io.jetstream.kafka.core.model.WindowedMin;
import java.time.Duration;

/**
 * Everything the scheduler keeps about one route: its measurements ({@link LinkMonitor}: capacity
 * from busy periods, RTT, delivered rate), its capacity estimate, its own accounts of bytes in
 * flight (chosen and neither acknowledged, failed nor handed back as not sent), its health, its
 * recent traffic, when it was last chosen, its lease of priced relays and the money charged to it.
 *
 * <p>Invariants: in-flight counters never go negative. Not thread-safe: the scheduler serialises calls.
 */
final class RouteEntry {

    /** Window of {@link #recentTransferNanos}: short, so that a delay that grew ranks the route within seconds. */
    static final Duration RECENT_TRANSFER_WINDOW = Duration.ofSeconds(2);

    final PricedRoute spec;
    final LinkMonitor link;
    final CapacityEstimate capacity;
    final RouteHealth health;
    final DecayingRate sentBytes;
    /**
     * Bytes the route delivered (receipts, or acknowledgements without them), with the time constant
     * {@link RouteScheduler#COMMIT_SECONDS}: its {@link DecayingRate#recentAmount} is about what the
     * route delivered over that long, the bytes it may hold in flight.
     */
    final DecayingRate deliveredBytes = new DecayingRate(
            Duration.ofNanos((long) (RouteScheduler.COMMIT_SECONDS * 1e9)));
    /** Shortest transfer (sent to receipt, or to acknowledgement without receipts) of the last seconds. */
    final WindowedMin recentTransferNanos = new WindowedMin(RECENT_TRANSFER_WINDOW, 8);
    /**
     * Transfer of the latest batch sent while nothing else was in flight on the route: its round
     * trip without any queue of its own (NaN before the first). See {@link RouteScheduler}, queue drains.
     */
    double unqueuedTransferNanos = Double.NaN;
    /** When {@link #unqueuedTransferNanos} was measured. */
    long unqueuedAtNanos;
    /** A batch went onto the empty route and no transfer was measured since: the next one is unqueued. */
    boolean unqueuedSamplePending;
    /** Since when no new batch goes to the route so that its queue drains (a queue drain); -1 when none. */
    long drainingSinceNanos = -1;
    /** When the last queue drain began ({@link Long#MIN_VALUE} before the first). */
    long lastDrainNanos = Long.MIN_VALUE;
    /** The route's shortest recent transfer when its last queue drain began (NaN before the first). */
    double recentTransferAtDrainNanos = Double.NaN;
    /** Queue drains since start. */
    long queueDrains;
    double moneySpent;
    long leaseUntilNanos;
    boolean leased;
    long inFlightBytes;
    int inFlightBatches;
    /** Batches the route carried to its egress relay (receipts) whose answer from the destination is still due. */
    long farBytes;
    int farBatches;
    long bytesSent;
    long bytesAcked;
    long failures;
    int consecutiveFailures;
    /** Last acknowledgement, or when the route went from idle to busy. */
    long lastProgressNanos;
    /** Last acknowledgement; 0 before the first. */
    long lastAckNanos;
    /** Sequence number of the scheduler's choice that last picked this route (0: never). */
    long lastChosenSeq;
    long lastChosenAtNanos;
    /**
     * Queue (seconds at the route's capacity) the route holds before a costlier route takes the
     * overflow: at least the scheduler's {@code queueAllowance}, grown when the route ran out of
     * work after overflow went to a costlier route (the queue was too short to bridge the gaps
     * between arrivals), decaying back while it stays busy. See {@link RouteScheduler}.
     */
    double spillAllowanceSeconds;
    /** Whether overflow went to a costlier route since this route last ran short of work. */
    boolean spilledSinceDrained;
    /** When {@link #spillAllowanceSeconds} last changed or decayed. */
    long spillAllowanceAtNanos;

    RouteEntry(PricedRoute spec, RouteSchedulerSettings settings, long createdAtNanos) {
        this.spec = spec;
        this.link = new LinkMonitor(settings.estimators());
        this.capacity = new CapacityEstimate(settings.estimators().linkTimeConstant().toNanos());
        this.health = new RouteHealth(settings.downAfterFailures(), settings.recoveryAcks(),
                settings.probeBackoff().toNanos(), settings.maxProbeBackoff().toNanos());
        this.sentBytes = new DecayingRate(settings.estimators().linkTimeConstant());
        this.lastChosenAtNanos = createdAtNanos;
        this.spillAllowanceSeconds = settings.queueAllowance().toNanos() / 1e9;
        this.spillAllowanceAtNanos = createdAtNanos;
    }

    static double rttSeconds(LinkEstimates e, double priorNanos) {
        return (Double.isNaN(e.baseRttNanos()) ? priorNanos : e.baseRttNanos()) / 1e9;
    }

    /** Whether the priced relays of this route must be (re)leased to send at {@code nowNanos}. */
    boolean needsLease(long nowNanos) {
        return spec.relayPricePerHour() > 0 && (!leased || nowNanos >= leaseUntilNanos);
    }

    void sent(long wireBytes, long nowNanos) {
        if (inFlightBatches == 0) {
            lastProgressNanos = nowNanos;
            unqueuedSamplePending = true;
        }
        inFlightBytes += wireBytes;
        inFlightBatches++;
        bytesSent += wireBytes;
    }

    /**
     * A batch's transfer was measured: it counts toward the recent minimum, and is the route's
     * unqueued transfer if it is the first measured since a batch went onto the empty route (every
     * batch sent before that one was answered, so nothing of the route's own waited ahead of it;
     * it may be a batch sent just after it, with no more than that one ahead).
     */
    void transferMeasured(long transferNanos, long nowNanos) {
        recentTransferNanos.add(transferNanos, nowNanos);
        if (unqueuedSamplePending) {
            unqueuedSamplePending = false;
            unqueuedTransferNanos = transferNanos;
            unqueuedAtNanos = nowNanos;
        }
    }

    /** The queue drain in progress ends: the route takes batches again. It ran short of work because it was drained. */
    void endDrain() {
        drainingSinceNanos = -1;
        spilledSinceDrained = false;
    }

    void acked(long wireBytes, long ackedAtNanos) {
        answered(wireBytes, ackedAtNanos);
        deliveredBytes.add(Math.max(0, wireBytes), ackedAtNanos);
        bytesAcked += wireBytes;
    }

    /** The route carried a batch to its egress relay: off the route, waiting for the destination's answer. */
    void received(long wireBytes, long receivedAtNanos) {
        answered(wireBytes, receivedAtNanos);
        deliveredBytes.add(Math.max(0, wireBytes), receivedAtNanos);
        farBytes += Math.max(0, wireBytes);
        farBatches++;
    }

    /** The destination answered a batch the route had already carried. */
    void settled(long wireBytes, boolean written) {
        farBytes = Math.max(0, farBytes - Math.max(0, wireBytes));
        farBatches = Math.max(0, farBatches - 1);
        if (written) {
            bytesAcked += wireBytes;
        }
    }

    void failed(long wireBytes) {
        release(wireBytes);
        failures++;
        consecutiveFailures++;
    }

    void connectionLost() {
        if (inFlightBatches > 0) {
            failures++;
            consecutiveFailures++;
        }
        inFlightBytes = 0;
        inFlightBatches = 0;
    }

    void answered(long wireBytes, long nowNanos) {
        release(wireBytes);
        consecutiveFailures = 0;
        lastProgressNanos = Math.max(lastProgressNanos, nowNanos);
        lastAckNanos = Math.max(lastAckNanos, nowNanos);
    }

    void release(long wireBytes) {
        inFlightBytes = Math.max(0, inFlightBytes - Math.max(0, wireBytes));
        inFlightBatches = Math.max(0, inFlightBatches - 1);
    }

    RouteStats stats(LinkEstimates e, double capacity, double rttNanos, double rankingRttNanos, double capacityShare,
                     double trafficShare) {
        return new RouteStats(spec.name(), health.state(), capacityShare, trafficShare, capacity,
                e.throughputKnown(), e.deliveredBytesPerSecond(), rttNanos, rankingRttNanos, inFlightBytes,
                inFlightBatches,
                farBytes, bytesSent, bytesAcked, failures, consecutiveFailures, moneySpent, health.transitions(),
                queueDrains);
    }
}
