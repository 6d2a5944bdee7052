package io.jetstream.kafka.bench.wan;

import java.util.List;
import java.util.Objects;

/**
 * One host of a {@link WanNetwork}: a network namespace with a LAN interface on its site's bridge and a capped WAN
 * uplink. Processes started with {@link #commandPrefix()} run "on" the host: they should listen on {@link #address()}
 * (or the wildcard address) and advertise {@link #address()}; connections they open to the other site leave through the
 * WAN with {@link #address()} as their source, and connections to hosts of their own site stay on the LAN.
 *
 * @param name      {@code a1 .. aN} at site A, {@code b1 .. bN} at site B
 * @param site      {@code "A"} or {@code "B"}
 * @param namespace the network namespace, {@code <prefix>-<name>}
 * @param address   the host's LAN address (IPv4), reachable from the root namespace, from its site over the LAN and
 *                  from the other site over the WAN
 */
public record WanHost(String name, String site, String namespace, String address) {

    public static final String SITE_A = "A";
    public static final String SITE_B = "B";

    public WanHost {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(site, "site");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(address, "address");
        if (!SITE_A.equals(site) && !SITE_B.equals(site)) {
            throw new IllegalArgumentException("site must be \"A\" or \"B\", was '" + site + "'");
        }
    }

    /**
     * The words that run a command inside the host's namespace: {@code ["ip", "netns", "exec", namespace]}. Append the
     * command and hand the list to a {@link ProcessBuilder}; {@code ip netns exec} replaces itself with the command, so
     * the started process's pid is the command's.
     */
    public List<String> commandPrefix() {
        return List.of("ip", "netns", "exec", namespace);
    }
}
