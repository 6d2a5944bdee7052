package io.jetstream.kafka.core.routing;

import io.jetstream.kafka.core.model.DecayingRate;
import io.jetstream.kafka.core.model.LinkEstimates;
import io.jetstream.kafka.core.model.LinkMonitor;

/**
 * Everything the scheduler keeps about one route: its measurements ({@link LinkMonitor}), its
 * health, its recent traffic, its lease of priced relays and the money charged to it.
 * Not thread-safe: the scheduler serialises calls.
 */
final class RouteEntry {

    final RouteSpec spec;
    final LinkMonitor link;
    final RouteHealth health;
    final DecayingRate sentBytes;
    double moneySpent;
    long leaseUntilNanos;
    boolean leased;

    RouteEntry(RouteSpec spec, RouteSchedulerSettings settings) {
        this.spec = spec;
        this.link = new LinkMonitor(settings.estimators());
        this.health = new RouteHealth(settings.downAfterFailures(), settings.recoveryAcks(),
                settings.probeBackoff().toNanos(), settings.maxProbeBackoff().toNanos());
        this.sentBytes = new DecayingRate(settings.estimators().linkTimeConstant());
    }

    /** Measured capacity, else the prior, never below what the route recently delivered. */
    static double capacity(LinkEstimates e, double prior) {
        return e.throughputKnown() ? e.bytesPerSecond() : Math.max(prior, e.deliveredBytesPerSecond());
    }

    static double rttSeconds(LinkEstimates e, double priorNanos) {
        return (Double.isNaN(e.baseRttNanos()) ? priorNanos : e.baseRttNanos()) / 1e9;
    }

    /** Whether the priced relays of this route must be (re)leased to send at {@code nowNanos}. */
    boolean needsLease(long nowNanos) {
        return spec.relayPricePerHour() > 0 && (!leased || nowNanos >= leaseUntilNanos);
    }

    RouteStats stats(LinkEstimates e, double capacity, double rttNanos, double capacityShare, double trafficShare) {
        return new RouteStats(spec.name(), health.state(), capacityShare, trafficShare, capacity,
                e.throughputKnown(), e.deliveredBytesPerSecond(), rttNanos, e.inFlightBytes(), e.inFlightBatches(),
                e.bytesSent(), e.bytesAcked(), e.failures(), e.consecutiveFailures(), moneySpent,
                health.transitions());
    }
}
