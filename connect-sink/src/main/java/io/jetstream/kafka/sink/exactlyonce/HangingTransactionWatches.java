package io.jetstream.kafka.sink.exactlyonce;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hanging transaction check ({@link HangingTransactionAborter}) of each exactly-once destination-site
 * connector in this worker, by connector name, kept beyond a stop of the connector instance that started
 * it: a later instance with the same configuration takes it over ({@link #hold}), with what it saw and
 * aborted meanwhile.
 *
 * <p>Why the check outlives the instance: when the destination cluster's broker goes down, the worker
 * loses its group coordinator and stops its connectors and tasks. Kafka Connect starts a source
 * connector only after reading the offsets topic {@code read_committed} to its end
 * ({@code WorkerConnector.initialize} starts the connector's offset store), so a hanging transaction of
 * a task on the offsets topic, which the returning broker may bring back, keeps the next instance from
 * starting, and with it any check that instance would start (seen in a full build on 3 December 2026:
 * connector {@code UNASSIGNED} for minutes, nothing aborted). The released check goes on and aborts it.
 *
 * <p>Threads: any; the methods are synchronized. Lock order: this registry, then a check's own lock
 * (a check calls back into the registry only after releasing its own).
 */
public final class HangingTransactionWatches {

    private static final Logger log = LoggerFactory.getLogger(HangingTransactionWatches.class);

    /** This worker's checks (one registry per class loader of the plugin, that is per worker). */
    public static final HangingTransactionWatches WORKER = new HangingTransactionWatches();

    private record Entry(Map<String, String> config, HangingTransactionAborter check) {
    }

    private final Map<String, Entry> checks = new HashMap<>();

    /**
     * The check of connector {@code connector}, held by {@code listener}: the running one when it was
     * started for the same {@code config} and has not ended, else a new one from {@code start}; one
     * started for another configuration is closed.
     */
    public HangingTransactionAborter hold(String connector, Map<String, String> config,
                                   Function<HangingTransactionAborter.Listener, HangingTransactionAborter> start,
                                   HangingTransactionAborter.Listener listener) {
        HangingTransactionAborter stale = null;
        HangingTransactionAborter held;
        synchronized (this) {
            Entry entry = checks.get(connector);
            if (entry != null && entry.config().equals(config) && entry.check().hold(listener)) {
                log.info("Connector {} takes over its hanging transaction check, which went on after its last "
                        + "instance in this worker stopped", connector);
                return entry.check();
            }
            if (entry != null) {
                stale = entry.check();
                checks.remove(connector);
            }
            held = start.apply(listener);
            HangingTransactionAborter started = held;
            started.onEnd(() -> forget(connector, started));
            checks.put(connector, new Entry(Map.copyOf(config), started));
        }
        if (stale != null) {
            stale.close(); // outside the lock: its round may be calling forget
        }
        return held;
    }

    private synchronized void forget(String connector, HangingTransactionAborter check) {
        Entry entry = checks.get(connector);
        if (entry != null && entry.check() == check) {
            checks.remove(connector);
        }
    }

    /** Closes and forgets the check of {@code connector}, if any (tests: nothing else ends a check early). */
    public void close(String connector) {
        Entry entry;
        synchronized (this) {
            entry = checks.remove(connector);
        }
        if (entry != null) {
            entry.check().close();
        }
    }

    /** Checks this registry keeps (running, held or not). */
    synchronized int size() {
        return checks.size();
    }
}
