package io.jetstream.kafka.testkit.link;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * What an emulated WAN link looks like: in each direction, a capacity shared by every connection of the link (a link is
 * a host uplink, not a per-socket limit) and a one-way propagation delay added to every byte.
 *
 * @param name               label used in thread names, logs and {@link #toString()}
 * @param rateBytesPerSecond capacity of each direction in bytes per second; {@code 0} means unlimited
 * @param oneWayDelay        propagation delay of each direction; {@link Duration#ZERO} means none
 */
public record LinkSpec(String name, long rateBytesPerSecond, Duration oneWayDelay) {

    /** Longest delay accepted; anything longer is a typo for a test on loopback. */
    public static final Duration MAX_DELAY = Duration.ofSeconds(10);

    public LinkSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(oneWayDelay, "oneWayDelay");
        if (name.isBlank()) {
            throw new IllegalArgumentException("link name must not be blank");
        }
        if (rateBytesPerSecond < 0) {
            throw new IllegalArgumentException(
                    "link " + name + ": rateBytesPerSecond must be >= 0 (0 = unlimited), was " + rateBytesPerSecond);
        }
        if (oneWayDelay.isNegative() || oneWayDelay.compareTo(MAX_DELAY) > 0) {
            throw new IllegalArgumentException(
                    "link " + name + ": oneWayDelay must be within [0, " + MAX_DELAY + "], was " + oneWayDelay);
        }
    }

    /** A link with the given rate cap (0 = unlimited) and delay. */
    public static LinkSpec of(String name, long rateBytesPerSecond, Duration oneWayDelay) {
        return new LinkSpec(name, rateBytesPerSecond, oneWayDelay);
    }

    /** A plain pipe: no rate cap and no delay; still useful for cut/restore. */
    public static LinkSpec unlimited(String name) {
        return new LinkSpec(name, 0, Duration.ZERO);
    }

    public LinkSpec withRate(long newRateBytesPerSecond) {
        return new LinkSpec(name, newRateBytesPerSecond, oneWayDelay);
    }

    public LinkSpec withDelay(Duration newOneWayDelay) {
        return new LinkSpec(name, rateBytesPerSecond, newOneWayDelay);
    }

    public boolean rateLimited() {
        return rateBytesPerSecond > 0;
    }

    /** For example {@code a-b[rate=4.00 MB/s, delay=25 ms]} or {@code a-b[rate=unlimited, delay=0 ms]}. */
    @Override
    public String toString() {
        String rate = rateLimited()
                ? String.format(Locale.ROOT, "%.2f MB/s", rateBytesPerSecond / 1_000_000.0)
                : "unlimited";
        String delay = oneWayDelay.toNanos() % 1_000_000 == 0
                ? oneWayDelay.toMillis() + " ms"
                : String.format(Locale.ROOT, "%.3f ms", oneWayDelay.toNanos() / 1_000_000.0);
        return name + "[rate=" + rate + ", delay=" + delay + "]";
    }
}
