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
            } finally {
                running.remove(Thread.currentThread());
            }
        }, threadName);
        thread.setDaemon(true);
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
        running.forEach(Thread::interrupt);
        for (Thread thread : List.copyOf(running)) {
            long remaining = deadlineNanos - System.nanoTime();
            if (remaining <= 0 || thread == self) {
                continue;
            }
            try {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)));
            } catch (InterruptedException e) {
                self.interrupt();
                break;
            }
        }
        return running.stream().noneMatch(thread -> thread != self && thread.isAlive());
    }

    @Override
    public String toString() {
        return running.stream().map(Thread::getName).sorted().toList().toString();
    }
}
