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

    private final Set<UpstreamHandler> waiting = ConcurrentHashMap.newKeySet();

    void add(UpstreamHandler upstream) {
        waiting.add(upstream);
    }

    void remove(UpstreamHandler upstream) {
        waiting.remove(upstream);
    }

    void wakeAll() {
        if (waiting.isEmpty()) {
            return;
        }
        for (Iterator<UpstreamHandler> it = waiting.iterator(); it.hasNext(); ) {
            UpstreamHandler upstream = it.next();
            it.remove();
            upstream.wake();
        }
    }

    int size() {
        return waiting.size();
    }
}
