package io.jetstream.kafka.core.model;

import java.time.Duration;
import java.util.Objects;

/**
 * The configured caps with a linger that follows the path's round trip: {@link #FLOOR} plus
 * {@link #ROUND_TRIP_SHARE} of the shortest recent transfer to the egress relay (a batch sent to its
 * receipt: the WAN there and back, none of the destination's delays), at most the configured linger.
 * Before the first receipt, the configured linger.
 *
 * <p>Why: a record's latency is at least the path's one-way delay, and what it waits in a batch adds
 * to that, so what a linger costs is relative to the path; what it saves (batches, frames, and the
 * destination's transactions per second) is not. On a metro path (10 ms round trip) a 20 ms linger
 * more than doubles the median; at 150 ms it adds a tenth. Measured on the benchmark's environment grid:
 * a fixed 20 ms linger held p99 at 0.82x of the best fixed setting's (5 ms) where the round trip is
 * 50 ms; a p99 within 0.9x of a 5 ms linger's needs a linger under about 5 ms plus a ninth of the
 * 5 ms setting's p99, i.e. roughly 9 ms at a 10 ms round trip, 12 ms at 50 ms and 17 ms at 150 ms
 * (docs/model.md §1), if the p99 moved by what the linger moved. It moved by about twice that at 50 ms
 * (the grid's runs of 7 December 2026: a twentieth of the round trip, 7.5 ms, held 0.85-1.00x of the 5 ms
 * setting's p99 in the 50 ms cells, 0.89 on average in the default cell), so the share is a fortieth: five
 * milliseconds plus a fortieth of the round trip (5.25, 6.25 and 8.75 ms) stays under each bound with the
 * margin doubled, and still lingers longer, so costs less CPU, the longer the path.
 *
 * <p>The round trip is the minimum over {@link #WINDOW} (queueing excluded); when receipts stop (an idle
 * path) the last linger stays. Only the linger moves; the other caps are the configured ones.
 *
 * <p>Thread-safe: reports are synchronized, {@link #decision} reads a volatile.
 */
public final class RoundTripLingerPolicy implements BatchPolicy {

    /** The least linger: what batching costs below this is not worth the milliseconds. */
    public static final Duration FLOOR = Duration.ofMillis(5);
    /** The share of the path's round trip added to {@link #FLOOR}. */
    public static final double ROUND_TRIP_SHARE = 1.0 / 40;
    /** How long a receipt's transfer time counts towards the round trip's minimum. */
    public static final Duration WINDOW = Duration.ofSeconds(30);
    private static final int BUCKETS = 6;
    /** A new linger is taken only if it differs by this much: the decision stays put under jitter. */
    private static final long STEP_NANOS = 500_000L;

    private final BatchDecision configured;
    private final long ceilingNanos;
    private final WindowedMin transfer = new WindowedMin(WINDOW, BUCKETS);
    private volatile BatchDecision current;

    /**
     * @param caps the configured caps; their linger is the longest this policy lingers (and its linger
     *             until the first receipt)
     */
    public RoundTripLingerPolicy(BatchDecision caps) {
        this.configured = Objects.requireNonNull(caps, "caps");
        this.ceilingNanos = caps.linger().toNanos();
        this.current = caps;
    }

    /** The linger for a path whose round trip is {@code roundTripNanos}, within {@code ceilingNanos}. */
    static long lingerFor(double roundTripNanos, long ceilingNanos) {
        double linger = FLOOR.toNanos() + ROUND_TRIP_SHARE * Math.max(0, roundTripNanos);
        return (long) Math.min(ceilingNanos, linger);
    }

    @Override
    public void onBatchReceived(int records, long wireBytes, long sentAtNanos, long receivedAtNanos) {
        long transferNanos = receivedAtNanos - sentAtNanos;
        if (transferNanos < 0) {
            return;
        }
        synchronized (this) {
            transfer.add(transferNanos, receivedAtNanos);
            double roundTrip = transfer.min(receivedAtNanos);
            if (Double.isNaN(roundTrip)) {
                return;
            }
            long linger = lingerFor(roundTrip, ceilingNanos);
            if (Math.abs(linger - current.linger().toNanos()) >= STEP_NANOS) {
                current = new BatchDecision(configured.maxRecords(), configured.maxBytes(), Duration.ofNanos(linger),
                        configured.maxInFlightBatches(), configured.maxInFlightBytes());
            }
        }
    }

    @Override
    public BatchDecision decision(long nowNanos) {
        return current;
    }

    @Override
    public String toString() {
        return "RoundTripLingerPolicy" + current + " (at most " + Duration.ofNanos(ceilingNanos).toMillis() + " ms)";
    }
}
