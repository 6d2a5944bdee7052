package io.jetstream.kafka.relay.datapath;

import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Upstream connections waiting for something to change (buffer space, a downstream turning
 * writable, a next hop's first connection). Registration is idempotent; {@link #wakeAll()} wakes
 * and forgets every waiter, which re-checks its condition on its own event loop and registers
 * again if it must keep waiting. Callers register first and re-check after, so no wake-up is lost.
 */
final class Waiters {

    private final Set<Waiter> waiting = ConcurrentHashMap.newKeySet();

    void add(Waiter waiter) {
        waiting.add(waiter);
    }

    void remove(Waiter waiter) {
        waiting.remove(waiter);
    }

    void wakeAll() {
        if (waiting.isEmpty()) {
            return;
        }
        for (Iterator<Waiter> it = waiting.iterator(); it.hasNext(); ) {
            Waiter waiter = it.next();
            it.remove();
            waiter.wake();
        }
    }

    int size() {
        return waiting.size();
    }
}
