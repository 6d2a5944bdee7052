package io.jetstream.kafka.bench.wan;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a {@link WanNetwork} looks like: how many hosts each site has, the cap on every host's WAN uplink, the one-way
 * delay between the sites and the TCP congestion control the hosts use. Immutable and validated on construction, so a
 * {@link WanNetwork} never starts building from a spec the kernel would reject half-way.
 *
 * @param prefix              names everything the network creates ({@code <prefix>-a1}, {@code <prefix>-wan},
 *                            {@code <prefix>brA}): 1 to 6 characters, a lower-case letter then letters or digits, so that
 *                            every interface name fits the kernel's 15 characters
 * @param sourceHosts         hosts of site A ({@code a1 .. aN}), 1 to {@value #MAX_HOSTS_PER_SITE}
 * @param destinationHosts    hosts of site B ({@code b1 .. bN}), 1 to {@value #MAX_HOSTS_PER_SITE}
 * @param uplinkBitsPerSecond cap of each host's WAN uplink (tc tbf), in bits per second, counted on whole Ethernet
 *                            frames; {@value #MIN_UPLINK_BITS_PER_SECOND} to {@value #MAX_UPLINK_BITS_PER_SECOND}
 * @param oneWayDelay         delay added to every packet between the sites, in each direction; 0 to 1 s, whole
 *                            microseconds (finer parts are dropped)
 * @param congestionControl   TCP congestion control of every host namespace, e.g. {@code bbr}, {@code cubic},
 *                            {@code reno}; the kernel must offer it
 */
public record WanSpec(String prefix, int sourceHosts, int destinationHosts, long uplinkBitsPerSecond,
                      Duration oneWayDelay, String congestionControl) {

    public static final int MAX_HOSTS_PER_SITE = 32;
    public static final long MIN_UPLINK_BITS_PER_SECOND = 100_000L;
    public static final long MAX_UPLINK_BITS_PER_SECOND = 10_000_000_000L;
    public static final Duration MAX_ONE_WAY_DELAY = Duration.ofSeconds(1);

    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9]{0,5}");
    private static final Pattern CONGESTION_CONTROL = Pattern.compile("[a-z0-9_]{1,15}");

    public WanSpec {
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(oneWayDelay, "oneWayDelay");
        Objects.requireNonNull(congestionControl, "congestionControl");
        if (!PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("prefix must be 1-6 characters, a lower-case letter then lower-case"
                    + " letters or digits (interface names are limited to 15 characters), was '" + prefix + "'");
        }
        requireHostCount("sourceHosts", sourceHosts);
        requireHostCount("destinationHosts", destinationHosts);
        requireUplinkRate(uplinkBitsPerSecond);
        if (oneWayDelay.isNegative() || oneWayDelay.compareTo(MAX_ONE_WAY_DELAY) > 0) {
            throw new IllegalArgumentException(
                    "oneWayDelay must be within [0, " + MAX_ONE_WAY_DELAY.toMillis() + " ms], was " + oneWayDelay);
        }
        if (!CONGESTION_CONTROL.matcher(congestionControl).matches()) {
            throw new IllegalArgumentException("congestionControl must be a kernel congestion control name such as"
                    + " bbr, cubic or reno ([a-z0-9_], at most 15 characters), was '" + congestionControl + "'");
        }
    }

    /** Prefix {@code js}, three source hosts, two destination hosts, 40 Mbit/s uplinks, 25 ms one way, bbr. */
    public static WanSpec defaults() {
        return new WanSpec("js", 3, 2, 40_000_000L, Duration.ofMillis(25), "bbr");
    }

    /** Throws {@link IllegalArgumentException} unless {@code bitsPerSecond} is an uplink cap a host may have. */
    public static void requireUplinkRate(long bitsPerSecond) {
        if (bitsPerSecond < MIN_UPLINK_BITS_PER_SECOND || bitsPerSecond > MAX_UPLINK_BITS_PER_SECOND) {
            throw new IllegalArgumentException("uplink rate must be within [" + MIN_UPLINK_BITS_PER_SECOND + ", "
                    + MAX_UPLINK_BITS_PER_SECOND + "] bit/s, was " + bitsPerSecond);
        }
    }

    public WanSpec withPrefix(String newPrefix) {
        return new WanSpec(newPrefix, sourceHosts, destinationHosts, uplinkBitsPerSecond, oneWayDelay,
                congestionControl);
    }

    public WanSpec withSourceHosts(int count) {
        return new WanSpec(prefix, count, destinationHosts, uplinkBitsPerSecond, oneWayDelay, congestionControl);
    }

    public WanSpec withDestinationHosts(int count) {
        return new WanSpec(prefix, sourceHosts, count, uplinkBitsPerSecond, oneWayDelay, congestionControl);
    }

    public WanSpec withUplinkBitsPerSecond(long bitsPerSecond) {
        return new WanSpec(prefix, sourceHosts, destinationHosts, bitsPerSecond, oneWayDelay, congestionControl);
    }

    public WanSpec withOneWayDelay(Duration delay) {
        return new WanSpec(prefix, sourceHosts, destinationHosts, uplinkBitsPerSecond, delay, congestionControl);
    }

    public WanSpec withCongestionControl(String name) {
        return new WanSpec(prefix, sourceHosts, destinationHosts, uplinkBitsPerSecond, oneWayDelay, name);
    }

    /** Hosts of one site: {@code "A"} has {@link #sourceHosts}, {@code "B"} {@link #destinationHosts}. */
    public int hostCount(String site) {
        return switch (site) {
            case WanHost.SITE_A -> sourceHosts;
            case WanHost.SITE_B -> destinationHosts;
            default -> throw new IllegalArgumentException("site must be \"A\" or \"B\", was '" + site + "'");
        };
    }

    private static void requireHostCount(String name, int count) {
        if (count < 1 || count > MAX_HOSTS_PER_SITE) {
            throw new IllegalArgumentException(
                    name + " must be within [1, " + MAX_HOSTS_PER_SITE + "], was " + count);
        }
    }
}
