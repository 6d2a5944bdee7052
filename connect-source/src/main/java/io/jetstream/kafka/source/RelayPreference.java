package io.jetstream.kafka.source;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Which of the configured relays a source-site task prefers ({@code relays.prefer.local}).
 *
 * <p>With the preference on, the relays that run on the worker's own host come first: the task
 * sends to them, and to the others only while none of them is ready. A source Connect cluster
 * spread over three hosts, each with a relay, then sends each task's batches out through its own
 * host's uplink: three uplinks without intermediate relays. When no listed relay is local, or the
 * preference is off, every relay is preferred alike (round robin, as before).
 *
 * <p>A pure function of the list and a locality test, so the choice is unit-tested without hosts.
 */
final class RelayPreference {

    private RelayPreference() {
    }

    /**
     * The relays split in two tiers.
     *
     * @param preferred relays the task sends to while any of them is ready; never empty
     * @param fallback  relays used only while no preferred one is ready
     * @param local     whether the preferred relays are those on this host (else: all, alike)
     */
    record Tiers(List<InetSocketAddress> preferred, List<InetSocketAddress> fallback, boolean local) {

        Tiers {
            preferred = List.copyOf(preferred);
            fallback = List.copyOf(fallback);
        }

        boolean preferred(InetSocketAddress relay) {
            return preferred.contains(relay);
        }
    }

    /**
     * The tiers of {@code relays}: with {@code preferLocal}, those {@code isLocal} accepts first and
     * the rest as fallback; all preferred when the preference is off or no relay is local.
     */
    static Tiers tiers(List<InetSocketAddress> relays, boolean preferLocal, Predicate<InetSocketAddress> isLocal) {
        if (relays.isEmpty()) {
            throw new IllegalArgumentException("at least one relay is needed");
        }
        if (!preferLocal) {
            return new Tiers(relays, List.of(), false);
        }
        List<InetSocketAddress> local = new ArrayList<>();
        List<InetSocketAddress> remote = new ArrayList<>();
        for (InetSocketAddress relay : relays) {
            (isLocal.test(relay) ? local : remote).add(relay);
        }
        return local.isEmpty() ? new Tiers(relays, List.of(), false) : new Tiers(local, remote, true);
    }

    /**
     * Whether a relay address is on this host: a loopback or wildcard address, or an address of one
     * of this host's network interfaces; a name counts when any address it resolves to does. A name
     * that does not resolve is not local.
     */
    static boolean onThisHost(InetSocketAddress relay) {
        InetAddress[] addresses;
        try {
            addresses = relay.isUnresolved()
                    ? InetAddress.getAllByName(relay.getHostString())
                    : new InetAddress[] {relay.getAddress()};
        } catch (UnknownHostException e) {
            return false;
        }
        for (InetAddress address : addresses) {
            if (address.isLoopbackAddress() || address.isAnyLocalAddress()) {
                return true;
            }
            try {
                if (NetworkInterface.getByInetAddress(address) != null) {
                    return true;
                }
            } catch (SocketException e) {
                // this interface cannot be asked: treat the address as remote
            }
        }
        return false;
    }
}
