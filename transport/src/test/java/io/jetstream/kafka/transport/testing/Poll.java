package io.jetstream.kafka.transport.testing;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Waits for a condition with a deadline, checking every few milliseconds (never a fixed sleep). */
public final class Poll {

    private Poll() {
    }

    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out after " + timeout.toMillis() + " ms waiting for " + what);
            }
            LockSupport.parkNanos(Duration.ofMillis(2).toNanos());
        }
    }
}
