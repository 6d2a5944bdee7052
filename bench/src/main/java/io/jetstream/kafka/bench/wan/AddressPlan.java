package io.jetstream.kafka.bench.wan;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Pattern;

/**
 * Names and addresses of one {@link WanNetwork}, as pure functions of its {@link WanSpec} and an address slot, so that
 * building, tearing down and testing all agree on them.
 *
 * <p>Slot {@code s} (0 to {@value #SLOTS} - 1) gives site A the LAN {@code 198.18.(2s+1).0/24} and site B
 * {@code 198.18.(2s+2).0/24}; host {@code aN} is {@code .N} of its site's LAN and the root namespace is {@code .254} of
 * each. The WAN links are /31s taken in order from {@code 198.19.s.0/24}: the {@code i}-th host (site A first) has
 * {@code 198.19.s.(2i+1)} and its peer in the core namespace {@code 198.19.s.(2i)}. The first network on a machine gets
 * slot 0, so {@code a1} is {@code 198.18.1.1} and {@code b1} is {@code 198.18.2.1}. Everything lies in
 * {@code 198.18.0.0/15}, the benchmarking range, and nothing else is ever used.
 *
 * <p>Interface names: in the root namespace, the bridges {@code <prefix>brA}/{@code <prefix>brB} and each host's LAN
 * port {@code <prefix>-<host>}; in a host, {@code lan0} and {@code wan0}; in the core namespace {@code <prefix>-wan},
 * each host's WAN peer {@code wan-<host>} and the delay line's TUN {@code dl0}.
 */
final class AddressPlan {

    /** Address slots available in 198.18.0.0/15: two /24s of 198.18.0.0/16 each, one /24 of 198.19.0.0/16. */
    static final int SLOTS = 64;
    static final String LAN_INTERFACE = "lan0";
    static final String WAN_INTERFACE = "wan0";
    static final String TUN_INTERFACE = "dl0";
    /** Routing table of the core namespace that sends everything into the delay line. */
    static final int DELAY_TABLE = 100;
    static final int DELAY_RULE_PRIORITY = 100;
    static final int ROOT_HOST_OCTET = 254;

    /** One host's links: its LAN port in the root namespace and both ends of its WAN /31. */
    record HostLinks(WanHost host, String rootInterface, String coreInterface, String wanHostAddress,
                     String wanCoreAddress) {
    }

    private final WanSpec spec;
    private final int slot;
    private final List<HostLinks> links;

    private AddressPlan(WanSpec spec, int slot) {
        this.spec = spec;
        this.slot = slot;
        List<HostLinks> all = new ArrayList<>();
        int index = 0;
        for (String site : List.of(WanHost.SITE_A, WanHost.SITE_B)) {
            for (int n = 1; n <= spec.hostCount(site); n++, index++) {
                String name = site.toLowerCase(Locale.ROOT) + n;
                WanHost host = new WanHost(name, site, namespace(spec.prefix(), name), lanAddress(site, n));
                all.add(new HostLinks(host, spec.prefix() + "-" + name, "wan-" + name,
                        wanAddress(2 * index + 1), wanAddress(2 * index)));
            }
        }
        this.links = List.copyOf(all);
    }

    static AddressPlan of(WanSpec spec, int slot) {
        if (slot < 0 || slot >= SLOTS) {
            throw new IllegalArgumentException("address slot must be within [0, " + (SLOTS - 1) + "], was " + slot);
        }
        return new AddressPlan(spec, slot);
    }

    WanSpec spec() {
        return spec;
    }

    int slot() {
        return slot;
    }

    List<HostLinks> links() {
        return links;
    }

    List<WanHost> hosts() {
        return links.stream().map(HostLinks::host).toList();
    }

    String coreNamespace() {
        return spec.prefix() + "-wan";
    }

    String bridge(String site) {
        return spec.prefix() + "br" + requireSite(site);
    }

    /** {@code 198.18.1.0/24} for site A at slot 0. */
    String lanSubnet(String site) {
        return lanSubnet(slot, site);
    }

    private static String lanSubnet(int slot, String site) {
        return "198.18." + lanOctet(slot, site) + ".0/24";
    }

    /** The root namespace's address on the site's bridge, {@code 198.18.1.254} for site A at slot 0. */
    String rootAddress(String site) {
        return "198.18." + lanOctet(slot, site) + "." + ROOT_HOST_OCTET;
    }

    static String otherSite(String site) {
        return WanHost.SITE_A.equals(requireSite(site)) ? WanHost.SITE_B : WanHost.SITE_A;
    }

    static String namespace(String prefix, String hostName) {
        return prefix + "-" + hostName;
    }

    /** True for the namespaces a network with this prefix creates: {@code <prefix>-wan} and {@code <prefix>-a1}... */
    static boolean ownsNamespace(String prefix, String namespace) {
        return namespace.equals(prefix + "-wan") || hostName(prefix).matcher(namespace).matches();
    }

    /** True for the root-namespace links a network with this prefix creates: its two bridges and its LAN ports. */
    static boolean ownsRootLink(String prefix, String link) {
        return link.equals(prefix + "br" + WanHost.SITE_A) || link.equals(prefix + "br" + WanHost.SITE_B)
                || hostName(prefix).matcher(link).matches();
    }

    /**
     * The lowest slot whose two LAN subnets overlap none of {@code rootRoutes} (the destinations of every route of the
     * root namespace, all tables, as {@code a.b.c.d} or {@code a.b.c.d/len}); default routes are ignored.
     */
    static OptionalInt freeSlot(Collection<String> rootRoutes) {
        List<long[]> taken = rootRoutes.stream().map(AddressPlan::parseCidr).flatMap(Optional::stream)
                .filter(range -> range[1] - range[0] < (1L << 32) - 1) // a default route overlaps everything
                .toList();
        for (int slot = 0; slot < SLOTS; slot++) {
            long[] siteA = parseCidr(lanSubnet(slot, WanHost.SITE_A)).orElseThrow();
            long[] siteB = parseCidr(lanSubnet(slot, WanHost.SITE_B)).orElseThrow();
            boolean free = taken.stream().noneMatch(range -> overlaps(range, siteA) || overlaps(range, siteB));
            if (free) {
                return OptionalInt.of(slot);
            }
        }
        return OptionalInt.empty();
    }

    /** {@code [first, last]} address of an IPv4 CIDR or single address; empty when it is not one. */
    static Optional<long[]> parseCidr(String cidr) {
        String[] parts = cidr.split("/", 2);
        String[] octets = parts[0].split("\\.", -1);
        if (octets.length != 4) {
            return Optional.empty();
        }
        try {
            long address = 0;
            for (String octet : octets) {
                int value = Integer.parseInt(octet);
                if (value < 0 || value > 255) {
                    return Optional.empty();
                }
                address = (address << 8) | value;
            }
            int length = parts.length == 2 ? Integer.parseInt(parts[1]) : 32;
            if (length < 0 || length > 32) {
                return Optional.empty();
            }
            long size = 1L << (32 - length);
            long first = address & ~(size - 1) & 0xFFFF_FFFFL;
            return Optional.of(new long[] {first, first + size - 1});
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static boolean overlaps(long[] a, long[] b) {
        return a[0] <= b[1] && b[0] <= a[1];
    }

    private static Pattern hostName(String prefix) {
        return Pattern.compile(Pattern.quote(prefix) + "-[ab][0-9]{1,3}");
    }

    private static int lanOctet(int slot, String site) {
        return 2 * slot + (WanHost.SITE_A.equals(requireSite(site)) ? 1 : 2);
    }

    private String lanAddress(String site, int hostNumber) {
        return "198.18." + lanOctet(slot, site) + "." + hostNumber;
    }

    private String wanAddress(int lastOctet) {
        return "198.19." + slot + "." + lastOctet;
    }

    private static String requireSite(String site) {
        if (!WanHost.SITE_A.equals(site) && !WanHost.SITE_B.equals(site)) {
            throw new IllegalArgumentException("site must be \"A\" or \"B\", was '" + site + "'");
        }
        return site;
    }
}
