package io.jetstream.kafka.core.model.sim;

import java.util.Random;
import java.util.function.LongConsumer;

/**
 * One direction of a simulated WAN link: a FIFO bottleneck of {@code bytesPerSecond}, then a one-way
 * propagation delay, delivery in order. Optional seeded noise: the delay wanders, re-drawn every
 * {@link #JITTER_PERIOD_NANOS} uniformly in {@code [delay, delay + jitter)} (queues elsewhere on the
 * path come and go), and each transmission time is scaled by a factor uniform in
 * {@code [1 - serviceNoise, 1 + serviceNoise]} (cross traffic). {@link #cut()} drops everything in
 * flight and everything sent until {@link #restore()}. A capacity of 0 means unlimited.
 */
public final class SimLink {

    private final SimLoop loop;
    private double bytesPerSecond;
    private final long delayNanos;
    private final long jitterNanos;
    static final long JITTER_PERIOD_NANOS = 100_000_000L;

    private final double serviceNoise;
    private final Random random;
    private long currentJitter;
    private long jitterDrawnFor = -1;
    private long busyUntil;
    private long lastArrival;
    private long epoch;
    private boolean cut;
    private long bytesDelivered;

    public SimLink(SimLoop loop, double bytesPerSecond, long delayNanos, long jitterNanos, long seed) {
        this(loop, bytesPerSecond, delayNanos, jitterNanos, 0, seed);
    }

    public SimLink(SimLoop loop, double bytesPerSecond, long delayNanos, long jitterNanos, double serviceNoise,
                   long seed) {
        this.serviceNoise = serviceNoise;
        this.loop = loop;
        this.bytesPerSecond = bytesPerSecond;
        this.delayNanos = delayNanos;
        this.jitterNanos = jitterNanos;
        this.random = new Random(seed);
    }

    /** Sends {@code bytes}; {@code onArrival} runs with the arrival time unless the link is cut first. */
    public void send(long bytes, LongConsumer onArrival) {
        if (cut) {
            return;
        }
        long now = loop.nanoTime();
        double noise = serviceNoise > 0 ? 1 + serviceNoise * (2 * random.nextDouble() - 1) : 1;
        long transmission = bytesPerSecond > 0 ? (long) (bytes * 1e9 / bytesPerSecond * noise) : 0;
        long start = Math.max(now, busyUntil);
        busyUntil = start + transmission;
        long arrival = Math.max(busyUntil + delayNanos + jitter(now), lastArrival);
        lastArrival = arrival;
        long sentInEpoch = epoch;
        loop.at(arrival, () -> {
            if (epoch == sentInEpoch) {
                bytesDelivered += bytes;
                onArrival.accept(arrival);
            }
        });
    }

    private long jitter(long now) {
        long period = now / JITTER_PERIOD_NANOS;
        if (jitterNanos > 0 && period != jitterDrawnFor) {
            jitterDrawnFor = period;
            currentJitter = (long) (random.nextDouble() * jitterNanos);
        }
        return jitterNanos > 0 ? currentJitter : 0;
    }

    public void cut() {
        cut = true;
        epoch++;
        busyUntil = loop.nanoTime();
        lastArrival = loop.nanoTime();
    }

    public void restore() {
        cut = false;
    }

    public boolean isCut() {
        return cut;
    }

    public long bytesDelivered() {
        return bytesDelivered;
    }

    /** Changes the bottleneck's capacity from now on (a batch being transmitted keeps its time). */
    public void bytesPerSecond(double capacity) {
        this.bytesPerSecond = capacity;
    }

    public double bytesPerSecond() {
        return bytesPerSecond;
    }

    public long delayNanos() {
        return delayNanos;
    }
}
