package io.jetstream.kafka.relay.datapath;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The frames this relay forwarded and still awaits an ACK for, keyed by {@code (originNodeId, id)}.
 *
 * <p>Usually one entry per key; more when the same frame passes this relay twice (a sender re-sent
 * it on another route while the first copy was still in flight, and both routes cross this relay).
 * An ACK then goes to the entry whose frame left through the connection the ACK came back on.
 * Values are immutable arrays replaced under {@link ConcurrentHashMap#compute}, so scans (a lost
 * downstream fails every entry that went through it) never see a half-updated list. Thread-safe.
 */
final class PendingTable {

    private static final PendingEntry[] NONE = new PendingEntry[0];

    private final ConcurrentHashMap<PendingKey, PendingEntry[]> entries = new ConcurrentHashMap<>();

    void add(PendingEntry entry) {
        entries.compute(entry.key, (key, current) -> {
            if (current == null) {
                return new PendingEntry[] {entry};
            }
            PendingEntry[] grown = Arrays.copyOf(current, current.length + 1);
            grown[current.length] = entry;
            return grown;
        });
    }

    void remove(PendingEntry entry) {
        entries.computeIfPresent(entry.key, (key, current) -> {
            int index = -1;
            for (int i = 0; i < current.length; i++) {
                if (current[i] == entry) {
                    index = i;
                    break;
                }
            }
            if (index < 0) {
                return current;
            }
            if (current.length == 1) {
                return null;
            }
            PendingEntry[] shrunk = new PendingEntry[current.length - 1];
            System.arraycopy(current, 0, shrunk, 0, index);
            System.arraycopy(current, index + 1, shrunk, index, current.length - index - 1);
            return shrunk;
        });
    }

    /**
     * The entry an ACK from {@code from} answers: the oldest one under the key that went through
     * {@code from}, preferring one not yet completed; null when there is none.
     */
    PendingEntry find(String originNodeId, long id, Downstream from) {
        PendingEntry[] candidates = entries.getOrDefault(new PendingKey(originNodeId, id), NONE);
        PendingEntry completed = null;
        for (PendingEntry entry : candidates) {
            if (entry.wentTo(from)) {
                if (!entry.isDone()) {
                    return entry;
                }
                if (completed == null) {
                    completed = entry;
                }
            }
        }
        return completed;
    }

    /** A snapshot of the entries matching {@code filter}. */
    List<PendingEntry> select(Predicate<PendingEntry> filter) {
        List<PendingEntry> selected = new ArrayList<>();
        for (PendingEntry[] group : entries.values()) {
            for (PendingEntry entry : group) {
                if (filter.test(entry)) {
                    selected.add(entry);
                }
            }
        }
        return selected;
    }

    /** Keys held (entries may exceed it when copies share a key). */
    int size() {
        return entries.size();
    }
}
