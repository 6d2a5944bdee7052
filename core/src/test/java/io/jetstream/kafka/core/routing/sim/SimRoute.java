package io.jetstream.kafka.core.routing.sim;

import io.jetstream.kafka.core.routing.TestRoute;
import java.util.Random;

/**
 * A route of the routing simulation: its spec, the pipe to the destination, the ack path back, and
 * optionally a processing delay at the far end before the ack leaves (uniform in
 * {@code [0, farEndJitter)}, acks in order, as a destination committing batches one after another).
 */
public final class SimRoute {

    final TestRoute spec;
    final SimPipe forward;
    final SimPipe backward;
    final Random farEndRandom;
    long jitterNanos;
    long farEndJitterNanos;
    long lastAckLeftAt;
    long bytesDelivered;
    long bytesChosen;

    SimRoute(TestRoute spec, SimPipe forward, SimPipe backward, long seed) {
        this.spec = spec;
        this.forward = forward;
        this.backward = backward;
        this.farEndRandom = new Random(seed + 2000);
    }

    public static SimRoute of(SimLoop loop, TestRoute spec, double bytesPerSecond, long oneWayDelayNanos,
                              long jitterNanos, double serviceNoise, long seed) {
        SimRoute route = new SimRoute(spec,
                new SimPipe(loop, bytesPerSecond, oneWayDelayNanos, jitterNanos, serviceNoise, seed),
                new SimPipe(loop, 0, oneWayDelayNanos, jitterNanos, 0, seed + 1000), seed);
        route.jitterNanos = jitterNanos;
        return route;
    }

    /** Processing at the far end before the ack leaves: uniform in {@code [0, jitterNanos)}. */
    public SimRoute farEndJitter(long jitterNanos) {
        this.farEndJitterNanos = jitterNanos;
        return this;
    }

    /** When the ack of a batch that arrived at {@code arrivedAt} leaves the far end. */
    long ackLeavesAt(long arrivedAt) {
        long processing = farEndJitterNanos > 0 ? (long) (farEndRandom.nextDouble() * farEndJitterNanos) : 0;
        lastAckLeftAt = Math.max(lastAckLeftAt, arrivedAt + processing);
        return lastAckLeftAt;
    }

    public TestRoute spec() {
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

    /** Changes the capacity of the forward direction for bytes sent from now on. */
    public void bytesPerSecond(double value) {
        forward.bytesPerSecond(value);
    }

    public double bytesPerSecond() {
        return forward.bytesPerSecond();
    }

    public long bytesDelivered() {
        return bytesDelivered;
    }

    /** Bytes the scheduler chose this route for (probes included). */
    public long bytesChosen() {
        return bytesChosen;
    }
}
