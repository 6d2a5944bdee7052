package io.jetstream.kafka.bench.wan;

import io.jetstream.kafka.bench.wan.AddressPlan.HostLinks;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code ip}/{@code tc} commands that build a {@link WanNetwork} from its {@link AddressPlan}, in order, as data:
 * a pure function, so the unit tests read exactly what would run as root.
 *
 * <p>Order matters in three places: a namespace's sysctls are written right after it is created, before any interface
 * exists, so every interface inherits them (no IPv6 chatter, rp_filter off in the core); a host's LAN address exists
 * before the route that names it as {@code src}; and the core's policy rule for a host comes last, once the host's WAN
 * link can carry what the delay line writes back.
 *
 * <p>The root namespace only gets the two bridges with an address each and the hosts' LAN ports: it never forwards
 * (hosts never use it as a gateway) and none of its sysctls or existing interfaces is touched.
 */
final class TopologyCommands {

    /** One command; an optional one only tunes the network, and its failure is logged instead of thrown. */
    record Step(List<String> command, boolean required) {

        Step {
            command = List.copyOf(command);
        }

        static Step required(String... words) {
            return new Step(List.of(words), true);
        }

        static Step optional(String... words) {
            return new Step(List.of(words), false);
        }
    }

    /** Writes {@code /proc/sys/<key>} for each key/value pair given after the script (inside a namespace). */
    static final String SYSCTL_SCRIPT = "while [ $# -gt 1 ]; do echo \"$2\" > \"/proc/sys/$1\"; shift 2; done";

    /** Sets the RPS bitmap of a device's first receive queue (inside a namespace: its own /sys). */
    static final String RPS_SCRIPT = "echo \"$2\" > \"/sys/class/net/$1/queues/rx-0/rps_cpus\"";

    private TopologyCommands() {
    }

    /**
     * Every command that builds the network, root namespace first, then the core, then each host.
     *
     * @param ipv6 whether the kernel has IPv6 (then it is disabled inside the namespaces: the WAN carries IPv4 only)
     * @param cpus where the delay line runs and where the packets it writes back are processed
     */
    static List<Step> build(AddressPlan plan, boolean ipv6, DelayLineCpus cpus) {
        List<Step> steps = new ArrayList<>();
        for (String site : List.of(WanHost.SITE_A, WanHost.SITE_B)) {
            String bridge = plan.bridge(site);
            steps.add(Step.required("ip", "link", "add", "name", bridge, "type", "bridge",
                    "forward_delay", "0", "stp_state", "0"));
            steps.add(Step.required("ip", "addr", "add", plan.rootAddress(site) + "/24", "dev", bridge));
            steps.add(Step.required("ip", "link", "set", "dev", bridge, "up"));
        }

        String core = plan.coreNamespace();
        String tun = AddressPlan.TUN_INTERFACE;
        String table = Integer.toString(AddressPlan.DELAY_TABLE);
        steps.add(Step.required("ip", "netns", "add", core));
        steps.add(sysctls(core, coreSysctls(ipv6)));
        steps.add(Step.required("ip", "-n", core, "link", "set", "dev", "lo", "up"));
        // Persistent, so that if the delay line dies the WAN drops packets instead of silently skipping the delay.
        steps.add(Step.required("ip", "-n", core, "tuntap", "add", "dev", tun, "mode", "tun"));
        steps.add(Step.required("ip", "-n", core, "link", "set", "dev", tun, "mtu", "1500", "txqueuelen", "4096", "up"));
        steps.add(Step.required("ip", "-n", core, "route", "add", "default", "dev", tun, "table", table));
        if (!cpus.rpsMask().isEmpty()) {
            // Forwarding and delivering what the delay line writes back happens on the other CPUs, not in its write().
            steps.add(Step.optional("ip", "netns", "exec", core, "sh", "-ec", RPS_SCRIPT, "sh", tun, cpus.rpsMask()));
        }

        for (HostLinks links : plan.links()) {
            steps.addAll(host(plan, links, ipv6));
        }
        return steps;
    }

    /** The commands that create one host and join it to its site's bridge and to the core. */
    static List<Step> host(AddressPlan plan, HostLinks links, boolean ipv6) {
        WanHost host = links.host();
        String ns = host.namespace();
        String core = plan.coreNamespace();
        String lan = AddressPlan.LAN_INTERFACE;
        String wan = AddressPlan.WAN_INTERFACE;
        List<Step> steps = new ArrayList<>();
        steps.add(Step.required("ip", "netns", "add", ns));
        steps.add(sysctls(ns, hostSysctls(plan.spec().congestionControl(), ipv6)));
        steps.add(Step.required("ip", "-n", ns, "link", "set", "dev", "lo", "up"));

        steps.add(Step.required("ip", "link", "add", "name", links.rootInterface(), "type", "veth",
                "peer", "name", lan, "netns", ns));
        steps.add(Step.required("ip", "link", "set", "dev", links.rootInterface(), "master", plan.bridge(host.site()),
                "up"));
        steps.add(Step.required("ip", "-n", ns, "addr", "add", host.address() + "/24", "dev", lan));
        steps.add(Step.required("ip", "-n", ns, "link", "set", "dev", lan, "up"));

        steps.add(Step.required("ip", "-n", ns, "link", "add", "name", wan, "type", "veth",
                "peer", "name", links.coreInterface(), "netns", core));
        // One segment per packet on the uplink: tbf then shapes real frames, and the byte counters count every
        // header, as a wire would. Without it TSO/GSO super-packets of up to 64 KiB pass tbf and the counters.
        steps.add(Step.optional("ip", "-n", ns, "link", "set", "dev", wan, "gso_max_segs", "1"));
        steps.add(Step.required("ip", "-n", ns, "addr", "add", links.wanHostAddress() + "/31", "dev", wan));
        steps.add(Step.required("ip", "-n", ns, "link", "set", "dev", wan, "up"));
        steps.add(Step.required("ip", "-n", core, "addr", "add", links.wanCoreAddress() + "/31",
                "dev", links.coreInterface()));
        steps.add(Step.required("ip", "-n", core, "link", "set", "dev", links.coreInterface(), "up"));
        steps.add(uplinkShaper(ns, TokenBucket.forRate(plan.spec().uplinkBitsPerSecond()), "replace"));

        steps.add(Step.required("ip", "-n", ns, "route", "add", plan.lanSubnet(AddressPlan.otherSite(host.site())),
                "via", links.wanCoreAddress(), "dev", wan, "src", host.address()));
        steps.add(Step.required("ip", "-n", core, "route", "add", host.address() + "/32",
                "via", links.wanHostAddress(), "dev", links.coreInterface()));
        steps.add(Step.required("ip", "-n", core, "rule", "add", "iif", links.coreInterface(),
                "lookup", Integer.toString(AddressPlan.DELAY_TABLE),
                "priority", Integer.toString(AddressPlan.DELAY_RULE_PRIORITY)));
        return steps;
    }

    /** {@code tc -n NS qdisc <verb> dev wan0 root tbf ...}; verb {@code replace} to install, {@code change} after. */
    static Step uplinkShaper(String namespace, TokenBucket bucket, String verb) {
        List<String> words = new ArrayList<>(List.of("tc", "-n", namespace, "qdisc", verb,
                "dev", AddressPlan.WAN_INTERFACE, "root"));
        words.addAll(bucket.tcArguments());
        return new Step(words, true);
    }

    static Map<String, String> coreSysctls(boolean ipv6) {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("net/ipv4/ip_forward", "1"); // only here: the core is the one router of the network
        // Packets written back by the delay line arrive on the TUN although their source lies behind a veth.
        values.put("net/ipv4/conf/all/rp_filter", "0");
        values.put("net/ipv4/conf/default/rp_filter", "0");
        values.put("net/ipv4/conf/all/send_redirects", "0");
        values.put("net/ipv4/conf/default/send_redirects", "0");
        putIpv6Off(values, ipv6);
        return values;
    }

    static Map<String, String> hostSysctls(String congestionControl, boolean ipv6) {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("net/ipv4/tcp_congestion_control", congestionControl);
        // No per-destination metrics carried from one benchmark connection to the next.
        values.put("net/ipv4/tcp_no_metrics_save", "1");
        putIpv6Off(values, ipv6);
        return values;
    }

    /** {@code ip netns exec NS sh -ec SCRIPT sh key value...}: one process sets all of a namespace's sysctls. */
    static Step sysctls(String namespace, Map<String, String> values) {
        List<String> words = new ArrayList<>(List.of("ip", "netns", "exec", namespace, "sh", "-ec", SYSCTL_SCRIPT,
                "sh"));
        values.forEach((key, value) -> {
            words.add(key);
            words.add(value);
        });
        return new Step(words, true);
    }

    private static void putIpv6Off(Map<String, String> values, boolean ipv6) {
        if (ipv6) {
            values.put("net/ipv6/conf/all/disable_ipv6", "1");
            values.put("net/ipv6/conf/default/disable_ipv6", "1");
        }
    }
}
