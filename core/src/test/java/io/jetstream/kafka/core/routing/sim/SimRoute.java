package io.jetstream.kafka.core.routing.sim;

import io.jetstream.kafka.core.model.sim.SimLink;
import io.jetstream.kafka.core.model.sim.SimLoop;
import io.jetstream.kafka.core.routing.RouteSpec;

/** A route of the routing simulation: its spec, the link to the destination and the ack path back. */
public final class SimRoute {

    final RouteSpec spec;
    final SimLink forward;
    final SimLink backward;
    long jitterNanos;
    long bytesDelivered;
    long bytesDeliveredAtMark;

    SimRoute(RouteSpec spec, SimLink forward, SimLink backward) {
        this.spec = spec;
        this.forward = forward;
        this.backward = backward;
    }

    public static SimRoute of(SimLoop loop, RouteSpec spec, double bytesPerSecond, long oneWayDelayNanos,
                              long jitterNanos, double serviceNoise, long seed) {
        SimRoute route = new SimRoute(spec,
                new SimLink(loop, bytesPerSecond, oneWayDelayNanos, jitterNanos, serviceNoise, seed),
                new SimLink(loop, 0, oneWayDelayNanos, jitterNanos, 0, seed + 1000));
        route.jitterNanos = jitterNanos;
        return route;
    }

    public RouteSpec spec() {
        return spec;
    }

    /** Cuts both directions silently (no connection-lost signal): batches in flight are lost. */
    public void cut() {
        forward.cut();
        backward.cut();
    }

    public void restore() {
        forward.restore();
        backward.restore();
    }

    public long bytesDelivered() {
        return bytesDelivered;
    }
}
