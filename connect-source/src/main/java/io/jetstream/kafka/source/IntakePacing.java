package io.jetstream.kafka.source;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Spaces the task's {@code put}s that carry records at least an interval apart
 * ({@code poll.min.interval.ms}), so that while records trickle in, the consumer fetches several of
 * them per round instead of one or two. Connect's sink-task loop polls again as soon as {@code put}
 * returns, and with {@code fetch.min.bytes=1} the broker answers each fetch as soon as a record
 * arrives: at a steady 1,000 records/s each record paid a fetch round, a poll and a {@code put}, and
 * those rounds were most of the source worker's CPU (at 1,200 partitions every poll also walks the
 * task's partitions to build the next fetch). While a {@code put} waits here, the consumer's next
 * fetch is already with the broker, and whatever arrives meanwhile comes with the next poll.
 *
 * <p>Costs nothing idle (an empty {@code put} never waits) and nothing under a backlog (a
 * {@code put} of a full poll takes longer than the interval). What it adds to a record's latency is at
 * most the interval, and usually nothing: the records of a {@code put} wait in open batches for
 * their linger anyway, which the sender's own timer closes while the task thread waits.
 *
 * <p>Only the task thread calls {@link #afterPut}.
 */
final class IntakePacing {

    /** How the task thread waits (a seam for tests). */
    interface Waiter {
        void waitNanos(long nanos) throws InterruptedException;
    }

    static final Waiter PARK = nanos -> TimeUnit.NANOSECONDS.sleep(nanos);

    private final long intervalNanos;
    private final LongSupplier nanoTime;
    private final Waiter waiter;
    private boolean paced;
    /** When the last {@code put} that carried records returned. */
    private long lastReturnNanos;

    IntakePacing(Duration interval, LongSupplier nanoTime, Waiter waiter) {
        this.intervalNanos = interval.toNanos();
        this.nanoTime = nanoTime;
        this.waiter = waiter;
    }

    /**
     * Called at the end of each {@code put}: one that carried records returns no sooner than the
     * interval after the previous one that did.
     */
    void afterPut(int records) {
        if (records == 0 || intervalNanos <= 0) {
            return;
        }
        long now = nanoTime.getAsLong();
        long wait = paced ? lastReturnNanos + intervalNanos - now : 0;
        if (wait > 0) {
            try {
                waiter.waitNanos(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the worker stops the task: return at once
            }
            now = nanoTime.getAsLong();
        }
        paced = true;
        lastReturnNanos = now;
    }
}
