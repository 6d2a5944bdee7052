package io.jetstream.kafka.source;

import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The sender's timer: a tick every {@link #BUSY} while the sender holds open or unanswered batches
 * (lingers, re-sends and acknowledgement timeouts fall due within milliseconds), every {@link #QUIET}
 * while it holds none (heartbeats are looked for every quarter heartbeat interval, round trips sampled
 * once a second), so that an idle task does not wake its event loop 200 times a second: at 1,200 idle
 * partitions the two source tasks' event loops took 0.02 cores that way, about as much as MirrorMaker 2's
 * whole idle process (issue 30). A {@code put} that leaves batches open while the timer is slow brings
 * the next tick forward ({@link #afterPut}), so a linger is never overrun by more than a busy tick.
 *
 * <p>Threads: ticks and all scheduling run on the scheduler's one thread; {@link #afterPut} is called
 * on the task thread. No tick is missed between the two: a tick marks the timer slow <em>before</em>
 * asking whether the sender is quiet (under the sender's lock), and a put asks after it opened its
 * batches (under the same lock), so either the tick sees the batches or the put sees the mark.
 */
final class SenderTimer implements AutoCloseable {

    static final Duration BUSY = Duration.ofMillis(5);
    static final Duration QUIET = Duration.ofMillis(100);

    /** Where ticks run: one thread (the relay clients' event loop). */
    interface Scheduler {
        Future<?> schedule(Runnable task, Duration delay);

        void execute(Runnable task);
    }

    private final Scheduler scheduler;
    private final Runnable tick;
    private final BooleanSupplier quiet;
    /** Whether the pending tick is a quiet one (written on the scheduler's thread, read by puts). */
    private volatile boolean slow;
    private volatile boolean closed;
    /** The pending tick (scheduler's thread only). */
    private Future<?> next;

    /**
     * @param tick  the sender's periodic work
     * @param quiet whether the sender holds no open and no unanswered batch
     */
    SenderTimer(Scheduler scheduler, Runnable tick, BooleanSupplier quiet) {
        this.scheduler = scheduler;
        this.tick = tick;
        this.quiet = quiet;
    }

    /** Ticks on one Netty event loop. */
    static Scheduler on(EventExecutor loop) {
        return new Scheduler() {
            @Override
            public Future<?> schedule(Runnable task, Duration delay) {
                return loop.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
            }

            @Override
            public void execute(Runnable task) {
                loop.execute(task);
            }
        };
    }

    void start() {
        scheduler.execute(() -> schedule(BUSY));
    }

    /** After each {@code put} (task thread): a slow timer with batches open now ticks within {@link #BUSY}. */
    void afterPut() {
        if (slow && !closed && !quiet.getAsBoolean()) {
            scheduler.execute(this::hurry);
        }
    }

    /** Whether the pending tick is a quiet one. */
    boolean slow() {
        return slow;
    }

    private void run() {
        if (closed) {
            return;
        }
        slow = true; // before the look: a put that opens batches after it sees the mark (class comment)
        try {
            tick.run();
        } finally {
            boolean idle = quiet.getAsBoolean();
            if (!idle) {
                slow = false;
            }
            schedule(idle ? QUIET : BUSY);
        }
    }

    private void hurry() {
        if (closed || !slow) {
            return;
        }
        slow = false;
        if (next != null) {
            next.cancel(false);
        }
        schedule(BUSY);
    }

    private void schedule(Duration delay) {
        if (!closed) {
            next = scheduler.schedule(this::run, delay);
        }
    }

    /** No tick runs after this returns but the one running now, if any. */
    @Override
    public void close() {
        closed = true;
        try {
            scheduler.execute(() -> {
                if (next != null) {
                    next.cancel(false);
                }
            });
        } catch (RejectedExecutionException e) {
            // the event loop stopped first: nothing runs on it any more
        }
    }
}
