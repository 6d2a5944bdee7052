package io.jetstream.kafka.core.model;

/**
 * Source of monotonic time in nanoseconds for the model and the scheduler.
 *
 * <p>The components of {@code core.model} and {@code core.routing} take the current time as a
 * parameter ({@code nowNanos}) instead of reading a clock, so they are deterministic; callers obtain
 * {@code nowNanos} from a {@code Clock}: {@link #system()} in production, a simulated clock in tests.
 * Values are comparable only with values of the same clock (like {@link System#nanoTime()}).
 *
 * <p>Who takes one: the relay creates one and hands it to its health, data path, route choosers and
 * peer clients; {@code PeerClient}, {@code PingTimer} and {@code WarningThrottle} take one; the
 * source-site task holds one and passes its {@code nanoTime} to its engine ({@code ReplicationSender})
 * and lag tracking as a plain {@code LongSupplier}. It is not the only clock: wall-clock times (a
 * batch's creation time, transit and replication latency, metadata generations) are read from
 * {@link System#currentTimeMillis()} where they are used, and the destination-site engine reads the
 * system clocks itself. Tests use core's {@code testing.ManualClock}.
 */
@FunctionalInterface
public interface Clock {

    /** Current time in nanoseconds; never decreases between calls on one clock. */
    long nanoTime();

    /** The JVM's monotonic clock, {@link System#nanoTime()}. */
    static Clock system() {
        return System::nanoTime;
    }
}
