package io.jetstream.kafka.transport;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Waits between reconnection attempts: doubling from {@code initial} on each consecutive failure,
 * capped at {@code max}, minus up to {@code jitter} (a fraction) at random so that many clients
 * cut off at once do not reconnect in lockstep. The jitter only shortens a wait, so the cap is a
 * hard bound: {@code (1 - jitter) * min(max, initial * 2^failures) <= delay <= min(max, initial * 2^failures)}.
 *
 * <p>Immutable and thread-safe (the random source is supplied).
 */
public final class ReconnectBackoff {

    /** Default share of a wait that is randomised. */
    public static final double DEFAULT_JITTER = 0.2;

    private final long initialNanos;
    private final long maxNanos;
    private final double jitter;
    private final DoubleSupplier random;

    /**
     * @param initial first wait, positive
     * @param max     cap, at least {@code initial}
     * @param jitter  fraction in [0, 1) of each wait that is randomised
     * @param random  uniform values in [0, 1)
     */
    public ReconnectBackoff(Duration initial, Duration max, double jitter, DoubleSupplier random) {
        this.initialNanos = initial.toNanos();
        this.maxNanos = max.toNanos();
        if (initialNanos <= 0 || maxNanos < initialNanos) {
            throw new IllegalArgumentException("backoff needs 0 < initial <= max, got initial " + initial + ", max " + max);
        }
        if (jitter < 0 || jitter >= 1) {
            throw new IllegalArgumentException("jitter " + jitter + " is outside [0, 1)");
        }
        this.jitter = jitter;
        this.random = Objects.requireNonNull(random, "random");
    }

    /** Doubling from {@code initial} to {@code max} with {@link #DEFAULT_JITTER}. */
    public static ReconnectBackoff of(Duration initial, Duration max) {
        return new ReconnectBackoff(initial, max, DEFAULT_JITTER, () -> ThreadLocalRandom.current().nextDouble());
    }

    /**
     * The wait before the next attempt.
     *
     * @param failures consecutive failed attempts so far (0 after a connection that worked)
     */
    public Duration delay(int failures) {
        long base = initialNanos;
        for (int i = 0; i < failures && base < maxNanos; i++) {
            base = base > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : base * 2;
        }
        base = Math.min(base, maxNanos);
        long jittered = (long) (base * (1 - jitter * random.getAsDouble()));
        return Duration.ofNanos(Math.max(1, jittered));
    }

    public Duration max() {
        return Duration.ofNanos(maxNanos);
    }
}
