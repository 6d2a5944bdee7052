package io.jetstream.kafka.core.routing;

import io.jetstream.kafka.core.model.LinkEstimates;

/**
 * The capacity the scheduler assumes for one route, in wire bytes per second.
 *
 * <ul>
 *   <li>While the route's monitor has a fresh measurement (taken while the route was busy), that.</li>
 *   <li>Once it goes stale (the route has not been busy for a while), the last measurement, relaxing
 *       with time constant {@code tau} toward the <em>reference</em>: the largest fresh measurement
 *       among the scheduler's routes, else the prior. So a route that once looked slow is given
 *       traffic again and re-measured (its capacity may have grown), and one that looked fast does
 *       not keep a stale lead.</li>
 *   <li>Never measured: the reference. An unmeasured route is assumed as good as the best measured
 *       one, not as good as the (very optimistic) prior, so it is not flooded next to measured
 *       routes.</li>
 * </ul>
 * Never below what the route recently delivered. Not thread-safe: the scheduler serialises calls.
 */
final class CapacityEstimate {

    private final double tauNanos;
    private double lastMeasured = Double.NaN;
    private long lastMeasuredAtNanos;

    CapacityEstimate(long tauNanos) {
        this.tauNanos = tauNanos;
    }

    /** The capacity at {@code nowNanos}, given the monitor's estimates and the scheduler's reference. */
    double bytesPerSecond(LinkEstimates e, double reference, long nowNanos) {
        double value;
        if (e.throughputKnown()) {
            lastMeasured = e.bytesPerSecond();
            lastMeasuredAtNanos = nowNanos;
            value = lastMeasured;
        } else if (Double.isNaN(lastMeasured)) {
            value = reference;
        } else {
            double relaxed = -Math.expm1(-(nowNanos - lastMeasuredAtNanos) / tauNanos);
            value = lastMeasured + (reference - lastMeasured) * relaxed;
        }
        return Math.max(value, e.deliveredBytesPerSecond());
    }
}
