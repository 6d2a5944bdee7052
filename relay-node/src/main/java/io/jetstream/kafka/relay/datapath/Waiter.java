package io.jetstream.kafka.relay.datapath;

/** Something waiting for a change (an upstream connection waiting for room), woken from any thread. */
interface Waiter {

    /** Something it may be waiting for changed: it re-checks on its own thread. Any thread; must not block. */
    void wake();
}
