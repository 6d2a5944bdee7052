package io.jetstream.kafka.testkit.link;

/**
 * The bottleneck of one direction of a link, shared by all of its connections: a FIFO transmitter of fixed capacity
 * kept in virtual time.
 *
 * <p>{@link #reserve} books the next {@code n} bytes on the wire right after the bytes already booked, and returns when
 * they start and finish their transmission. Booking from the previous finish time, not from the caller's wake-up time,
 * is what makes the long-run rate exact: a reader that wakes late does not lose link time as long as it books its next
 * chunk before the link runs dry. A link that did run dry keeps at most {@link #MAX_CREDIT_NANOS} of unused time, so a
 * late reader can catch up a little but an idle link never saves up a burst.
 *
 * <p>Durations are computed with an integer remainder carried between calls, so rounding never drifts. Thread-safe.
 */
final class LinkPacer {

    /** Unused link time a booking may reach back for: absorbs scheduler jitter of the readers. */
    static final long MAX_CREDIT_NANOS = 2_000_000;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /** A booking on the wire: transmission starts at {@code startNanos} and ends at {@code endNanos}. */
    record Slot(long startNanos, long endNanos) {
    }

    private long rateBytesPerSecond;
    private boolean booked;
    private long wireFreeAtNanos;
    private long carry;

    LinkPacer(long rateBytesPerSecond) {
        setRate(rateBytesPerSecond);
    }

    synchronized void setRate(long newRateBytesPerSecond) {
        if (newRateBytesPerSecond < 0) {
            throw new IllegalArgumentException("rate must be >= 0, was " + newRateBytesPerSecond);
        }
        rateBytesPerSecond = newRateBytesPerSecond;
        carry = 0;
    }

    synchronized long rate() {
        return rateBytesPerSecond;
    }

    /** Books {@code bytes} on the wire; an unlimited link books them for {@code [now, now]}. */
    synchronized Slot reserve(int bytes, long nowNanos) {
        if (rateBytesPerSecond == 0) {
            return new Slot(nowNanos, nowNanos);
        }
        long earliestStart = nowNanos - MAX_CREDIT_NANOS;
        boolean wireBusyLongEnough = booked && wireFreeAtNanos - earliestStart > 0;
        long start = wireBusyLongEnough ? wireFreeAtNanos : earliestStart;
        long numerator = bytes * NANOS_PER_SECOND + carry;
        long end = start + numerator / rateBytesPerSecond;
        carry = numerator % rateBytesPerSecond;
        wireFreeAtNanos = end;
        booked = true;
        return new Slot(start, end);
    }
}
