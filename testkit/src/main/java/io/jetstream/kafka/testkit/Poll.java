package io.jetstream.kafka.testkit;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;

/**
 * Waits for a condition by polling it until a deadline: the only way the kit, its tests and the
 * launcher wait for anything. A short pause between attempts keeps the polled service from being
 * hammered; the deadline bounds the whole wait and the timeout message names what was awaited and
 * the last failure seen, so a red test says why.
 */
public final class Poll {

    private static final Duration DEFAULT_INTERVAL = Duration.ofMillis(100);

    private Poll() {
    }

    /** Polls {@code condition} until it returns true, or throws after {@code timeout}. */
    public static void until(String what, Duration timeout, Callable<Boolean> condition)
            throws TimeoutException, InterruptedException {
        until(what, timeout, DEFAULT_INTERVAL, condition);
    }

    /**
     * Polls {@code condition} every {@code interval} until it returns true. Exceptions thrown by the
     * condition count as "not yet" and the last one is attached to the timeout.
     */
    public static void until(String what, Duration timeout, Duration interval, Callable<Boolean> condition)
            throws TimeoutException, InterruptedException {
        Objects.requireNonNull(what, "what");
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (true) {
            try {
                if (Boolean.TRUE.equals(condition.call())) {
                    return;
                }
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                last = e;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                TimeoutException timeoutException = new TimeoutException(
                        "Timed out after " + timeout.toMillis() + " ms waiting for " + what
                                + (last == null ? "" : " (last error: " + last + ")"));
                if (last != null) {
                    timeoutException.initCause(last);
                }
                throw timeoutException;
            }
            Thread.sleep(Math.min(interval.toMillis(), Math.max(1, left / 1_000_000)));
        }
    }

    /** Like {@link #until} but returns the first non-null value the supplier produces. */
    public static <T> T value(String what, Duration timeout, Callable<T> supplier)
            throws TimeoutException, InterruptedException {
        Object[] holder = new Object[1];
        until(what, timeout, () -> {
            holder[0] = supplier.call();
            return holder[0] != null;
        });
        @SuppressWarnings("unchecked")
        T value = (T) holder[0];
        return value;
    }
}
