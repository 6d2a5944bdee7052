package io.jetstream.kafka.bench;

import io.jetstream.kafka.testkit.site.HostPlacement;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The two sites' hosts and the WAN between them, as the benchmark needs them: where to run a
 * process, how a process at one site reaches an endpoint at the other through a given host's
 * capped uplink, and how many bytes each source host's uplink has sent.
 *
 * <p>Hosts: {@code a1, a2, a3} at the source site A, {@code b1, b2} at the destination site B.
 * Two implementations: {@link NamespaceNetwork} (Linux network namespaces, tc-capped uplinks, a
 * kernel-level delay line) and {@link LoopbackNetwork} (everything on 127.0.0.1, the user-space link
 * emulator as the WAN) when namespaces are not available.
 */
interface BenchNetwork extends AutoCloseable {

    /** The hosts of site A whose uplinks carry the replicated data. */
    List<String> SOURCE_UPLINKS = List.of("a1", "a2", "a3");

    /** {@code namespaces} or {@code loopback-emulator}. */
    String kind();

    /** Why the loopback fallback runs; empty on the namespace network. */
    Optional<String> fallbackReason();

    /** Where processes of {@code host} run. */
    HostPlacement host(String host);

    default List<String> sourceUplinks() {
        return SOURCE_UPLINKS;
    }

    /** Bytes sent so far on the capped WAN uplink of site-A host {@code host}. */
    long uplinkTxBytes(String host);

    /** Capacity of one uplink, bytes per second. */
    long uplinkBytesPerSecond();

    Duration oneWayDelay();

    /**
     * The address a process on site-A host {@code from} connects to in order to reach {@code target}
     * at site B, the data flowing out through {@code from}'s uplink.
     */
    InetSocketAddress toSiteB(String from, InetSocketAddress target);

    /**
     * The address a process at site B connects to in order to reach {@code target} on site-A host
     * {@code on}, the data it fetches flowing back through {@code on}'s uplink.
     */
    InetSocketAddress fromSiteB(String on, InetSocketAddress target);

    /**
     * Whether brokers need a separate WAN listener whose advertised address is a link's entry (the
     * loopback emulator); on namespaces a broker's LAN address is reachable from the other site.
     */
    boolean brokersNeedWanListeners();

    /**
     * Makes the packets site-A host {@code host} sends to site B take {@code oneWayDelay() + extra} one way from now
     * on, so the round trip of its route grows by {@code extra} (the other direction keeps the base delay).
     *
     * @throws UnsupportedOperationException where the network cannot give one host a delay of its own
     */
    void setExtraDelay(String host, Duration extra) throws IOException, InterruptedException;

    /**
     * Caps the WAN uplink of site-A host {@code host} at {@code bitsPerSecond} from now on.
     *
     * @throws UnsupportedOperationException where the network cannot change a cap while running
     */
    void setUplinkRate(String host, long bitsPerSecond) throws IOException, InterruptedException;

    /**
     * Gives every host's uplink the cap {@code uplinkBitsPerSecond} and every crossing between the sites the one-way
     * delay {@code oneWayDelay}, from now on, in both directions: one network serves every cell of the environment
     * grid. Per-host changes made before ({@link #setExtraDelay}, {@link #setUplinkRate}) are replaced;
     * {@link #uplinkBytesPerSecond()} and {@link #oneWayDelay()} return the new values.
     *
     * @throws IllegalArgumentException if the network cannot make {@code oneWayDelay} (on namespaces: below the
     *                                  delay it was built with)
     */
    void reshape(long uplinkBitsPerSecond, Duration oneWayDelay) throws IOException, InterruptedException;

    /** The delay line's process, for CPU accounting; empty when there is none. */
    OptionalLong delayLinePid();

    /** Why {@link #setUplinkRate} does not work on this network; empty when it does. */
    default Optional<String> uplinkRateChangeUnsupported() {
        return Optional.of(kind() + " cannot change an uplink's cap during a run");
    }

    /** The network's settings for the JSON result. */
    Map<String, Object> describe();

    @Override
    void close();
}
