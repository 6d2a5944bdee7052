package io.jetstream.kafka.core.routing.sim;

import io.jetstream.kafka.core.model.Clock;
import java.util.PriorityQueue;

/**
 * Discrete-event loop with a simulated clock: actions run in time order (ties in scheduling order),
 * and the clock jumps from one action to the next. Never sleeps, never reads real time. Single-threaded.
 */
public final class SimLoop implements Clock {

    private record Event(long atNanos, long seq, Runnable action) {
    }

    private final PriorityQueue<Event> queue = new PriorityQueue<>((a, b) -> a.atNanos != b.atNanos
            ? Long.compare(a.atNanos, b.atNanos) : Long.compare(a.seq, b.seq));
    private long now;
    private long seq;

    @Override
    public long nanoTime() {
        return now;
    }

    public void at(long atNanos, Runnable action) {
        queue.add(new Event(Math.max(atNanos, now), seq++, action));
    }

    public void after(long delayNanos, Runnable action) {
        at(now + delayNanos, action);
    }

    /** Runs every action due up to {@code endNanos}, then sets the clock to {@code endNanos}. */
    public void runUntil(long endNanos) {
        while (!queue.isEmpty() && queue.peek().atNanos <= endNanos) {
            Event e = queue.poll();
            now = e.atNanos;
            e.action.run();
        }
        now = Math.max(now, endNanos);
    }

    public static long seconds(double s) {
        return (long) (s * 1e9);
    }

    public static long millis(double ms) {
        return (long) (ms * 1e6);
    }
}
