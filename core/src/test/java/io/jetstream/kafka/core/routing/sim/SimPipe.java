package io.jetstream.kafka.core.routing.sim;

import java.util.Random;
import java.util.function.LongConsumer;

/**
 * One direction of a simulated route whose capacity can change while it runs: a FIFO bottleneck,
 * then a one-way delay, delivery in order, with seeded noise: the delay wanders within
 * {@code [delay, delay + jitter)} (re-drawn every 100 ms) and each transmission time is scaled by a
 * factor uniform in {@code [1 - serviceNoise, 1 + serviceNoise]}.
 * {@link #cut()} drops everything in flight and everything sent until {@link #restore()}. A
 * capacity of 0 means unlimited. A new capacity applies to bytes sent from then on.
 */
final class SimPipe {

    private static final long JITTER_PERIOD_NANOS = 100_000_000L;

    private final SimLoop loop;
    private final long delayNanos;
    private final long jitterNanos;
    private final double serviceNoise;
    private final Random random;
    private double bytesPerSecond;
    private long currentJitter;
    private long jitterDrawnFor = -1;
    private long busyUntil;
    private long lastArrival;
    private long epoch;
    private boolean cut;

    SimPipe(SimLoop loop, double bytesPerSecond, long delayNanos, long jitterNanos, double serviceNoise, long seed) {
        this.loop = loop;
        this.bytesPerSecond = bytesPerSecond;
        this.delayNanos = delayNanos;
        this.jitterNanos = jitterNanos;
        this.serviceNoise = serviceNoise;
        this.random = new Random(seed);
    }

    /** Sends {@code bytes}; {@code onArrival} runs with the arrival time unless the pipe is cut first. */
    void send(long bytes, LongConsumer onArrival) {
        if (cut) {
            return;
        }
        long now = loop.nanoTime();
        double noise = serviceNoise > 0 ? 1 + serviceNoise * (2 * random.nextDouble() - 1) : 1;
        long transmission = bytesPerSecond > 0 ? (long) (bytes * 1e9 / bytesPerSecond * noise) : 0;
        busyUntil = Math.max(now, busyUntil) + transmission;
        long arrival = Math.max(busyUntil + delayNanos + jitter(now), lastArrival);
        lastArrival = arrival;
        long sentInEpoch = epoch;
        loop.at(arrival, () -> {
            if (epoch == sentInEpoch) {
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

    void bytesPerSecond(double value) {
        bytesPerSecond = value;
    }

    double bytesPerSecond() {
        return bytesPerSecond;
    }

    void cut() {
        cut = true;
        epoch++;
        busyUntil = loop.nanoTime();
        lastArrival = loop.nanoTime();
    }

    void restore() {
        cut = false;
    }

    boolean isCut() {
        return cut;
    }

    long delayNanos() {
        return delayNanos;
    }
}
