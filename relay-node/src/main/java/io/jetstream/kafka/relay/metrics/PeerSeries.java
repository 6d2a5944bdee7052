package io.jetstream.kafka.relay.metrics;

import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

import io.jetstream.kafka.core.model.Clock;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.GaugeDataPoint;

/**
 * Which peers have their own {@code peer} series, so that ids announced on the wire cannot grow
 * the exposition without bound.
 *
 * <p>A connection {@linkplain #acquire acquires} its peer's series when the peer is known and
 * {@linkplain #release releases} them when it closes: each acquisition is a lease of its own (a
 * {@link PeerMetrics} over the peer's shared data points), so releasing one twice releases it once.
 * Invariants:
 * <ul>
 *   <li>a series held by at least one open connection is never removed, so a connected peer's
 *       counters never go back;</li>
 *   <li>a series no connection holds is kept for the retention period (a peer that reconnects
 *       continues its counters), then removed at the next scrape or acquisition;</li>
 *   <li>at most {@code max} peers have their own series. A new peer beyond that takes the place of
 *       the series released longest ago, or, when every one is held, is counted into the shared
 *       {@value #OVERFLOW} series (and {@code peers_folded_total}).</li>
 * </ul>
 * Thread-safe: one lock, taken once per connection and once per scrape, never per batch.
 */
final class PeerSeries {

    /** The label of the series shared by peers beyond the limit. */
    static final String OVERFLOW = "(other)";

    private final Function<String, PeerMetrics> create;
    private final Consumer<String> remove;
    private final Clock clock;
    private final CounterDataPoint folded;
    private final GaugeDataPoint count;
    private final Map<String, Entry> byLabel = new HashMap<>();
    /** Outstanding leases (identity: {@code PeerMetrics} does not override equals). */
    private final Map<PeerMetrics, Entry> byLease = new HashMap<>();
    private int max;
    private long retentionNanos;

    /**
     * @param create makes the data points of one label
     * @param remove drops a label's data points from the exposition
     * @param folded {@code peers_folded_total}
     * @param count  {@code peer_series}
     */
    PeerSeries(Function<String, PeerMetrics> create, Consumer<String> remove, int max, Duration retention,
               Clock clock, CounterDataPoint folded, GaugeDataPoint count) {
        this.create = Objects.requireNonNull(create, "create");
        this.remove = Objects.requireNonNull(remove, "remove");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.folded = Objects.requireNonNull(folded, "folded");
        this.count = Objects.requireNonNull(count, "count");
        limit(max, retention);
    }

    synchronized void limit(int maxPeers, Duration retention) {
        if (maxPeers < 1 || retention.isNegative()) {
            throw new IllegalArgumentException("at least one peer and a retention >= 0, not " + maxPeers + " and "
                    + retention);
        }
        this.max = maxPeers;
        this.retentionNanos = retention.toNanos();
    }

    /** A lease on the series of {@code peer} (or on the shared one), held until {@link #release}. */
    synchronized PeerMetrics acquire(String peer) {
        long now = clock.nanoTime();
        expire(now);
        Entry entry = byLabel.get(peer);
        if (entry == null) {
            boolean ownSeries = !OVERFLOW.equals(peer) && (ownSeries() < max || evictLongestReleased());
            if (!ownSeries && !OVERFLOW.equals(peer)) {
                folded.inc();
            }
            entry = ownSeries ? add(peer) : byLabel.containsKey(OVERFLOW) ? byLabel.get(OVERFLOW) : add(OVERFLOW);
        }
        entry.holders++;
        PeerMetrics lease = entry.metrics.lease();
        byLease.put(lease, entry);
        return lease;
    }

    /** The holder of {@code lease} is gone (its connection closed); a lease released again is ignored. */
    synchronized void release(PeerMetrics lease) {
        Entry entry = byLease.remove(lease);
        if (entry == null) {
            return;  // released before, or the relay's metrics were closed
        }
        entry.holders--;
        if (entry.holders == 0) {
            entry.releasedAt = clock.nanoTime();
            expire(entry.releasedAt);
        }
    }

    /** Removes the series no connection held for the whole retention period. */
    synchronized void expire() {
        expire(clock.nanoTime());
    }

    synchronized void clear() {
        byLabel.clear();
        byLease.clear();
        count.set(0);
    }

    private void expire(long now) {
        Iterator<Entry> entries = byLabel.values().iterator();
        while (entries.hasNext()) {
            Entry entry = entries.next();
            if (entry.holders == 0 && now - entry.releasedAt >= retentionNanos) {
                entries.remove();
                drop(entry);
            }
        }
        count.set(ownSeries());
    }

    private boolean evictLongestReleased() {
        Entry oldest = null;
        for (Entry entry : byLabel.values()) {
            boolean evictable = entry.holders == 0 && !OVERFLOW.equals(entry.label);
            if (evictable && (oldest == null || entry.releasedAt - oldest.releasedAt < 0)) {
                oldest = entry;
            }
        }
        if (oldest == null) {
            return false;
        }
        byLabel.remove(oldest.label);
        drop(oldest);
        return true;
    }

    private Entry add(String label) {
        Entry entry = new Entry(label, create.apply(label));
        byLabel.put(label, entry);
        count.set(ownSeries());
        return entry;
    }

    private void drop(Entry entry) {
        remove.accept(entry.label);
    }

    private int ownSeries() {
        return byLabel.containsKey(OVERFLOW) ? byLabel.size() - 1 : byLabel.size();
    }

    private static final class Entry {
        final String label;
        final PeerMetrics metrics;
        int holders;
        long releasedAt;

        Entry(String label, PeerMetrics metrics) {
            this.label = label;
            this.metrics = metrics;
        }
    }
}
