package io.jetstream.kafka.testkit.link;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads of one link: named daemon threads that are tracked while they run, so {@link #interruptAndJoin} can
 * stop them all on close. A body that throws is logged, never lost silently. Thread-safe.
 */
final class LinkThreads {

    private static final Logger log = LoggerFactory.getLogger(LinkThreads.class);

    private final String linkName;
    private final Set<Thread> running = ConcurrentHashMap.newKeySet();

    LinkThreads(String linkName) {
        this.linkName = linkName;
    }

    void start(String threadName, Runnable body) {
        Thread thread = new Thread(() -> {
            try {
                body.run();
            } catch (RuntimeException | Error e) {
                log.error("link {}: thread {} failed", linkName, threadName, e);
            }
            // stays in the set until it is seen dead: close() must join a thread whose body just
            // returned too, or someone may see it still alive after close()
        }, threadName);
        thread.setDaemon(true);
        running.removeIf(t -> t.getState() == Thread.State.TERMINATED);
        running.add(thread);
        thread.start();
    }

    /**
     * Interrupts every thread and waits for them until {@code deadlineNanos} ({@link System#nanoTime()} based).
     *
     * @return true if all threads have ended; the caller's interrupt flag is kept
     */
    boolean interruptAndJoin(long deadlineNanos) {
        Thread self = Thread.currentThread();
        // Rounds until none is left: a connection's reader may start its writer while the link closes,
        // after the first round took its snapshot of the running threads.
        while (deadlineNanos - System.nanoTime() > 0) {
            List<Thread> others = running.stream()
                    .filter(thread -> thread != self && thread.getState() != Thread.State.TERMINATED).toList();
            if (others.isEmpty()) {
                return true;
            }
            others.forEach(Thread::interrupt);
            for (Thread thread : others) {
                long remaining = deadlineNanos - System.nanoTime();
                if (remaining <= 0) {
                    break;
                }
                try {
                    thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)));
                } catch (InterruptedException e) {
                    self.interrupt();
                    return running.stream().noneMatch(t -> t != self && t.getState() != Thread.State.TERMINATED);
                }
            }
        }
        return running.stream().noneMatch(thread -> thread != self && thread.getState() != Thread.State.TERMINATED);
    }

    @Override
    public String toString() {
        return running.stream().filter(Thread::isAlive).map(Thread::getName).sorted().toList().toString();
    }
}
