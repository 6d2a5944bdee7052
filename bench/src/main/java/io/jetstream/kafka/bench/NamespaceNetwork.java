package io.jetstream.kafka.bench;

import io.jetstream.kafka.bench.wan.WanHost;
import io.jetstream.kafka.bench.wan.WanNetwork;
import io.jetstream.kafka.bench.wan.WanSpec;
import io.jetstream.kafka.testkit.site.HostPlacement;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The kernel-level WAN: hosts are network namespaces ({@link WanNetwork}), each with an uncapped
 * site LAN and a WAN uplink capped by {@code tc tbf}, and a delay line between the sites. A process
 * on a host runs behind {@code ip netns exec <ns>} and binds to the host's LAN address; a host's
 * address is reachable from the other site only through the sender's capped uplink, and from the
 * bench JVM (the root namespace sits on both LANs) directly. So no address translation is needed:
 * {@link #toSiteB} and {@link #fromSiteB} return the target itself.
 */
final class NamespaceNetwork implements BenchNetwork {

    private final WanSpec spec;
    private final WanNetwork network;
    private volatile long uplinkBitsPerSecond;
    private volatile Duration oneWayDelay;

    private NamespaceNetwork(WanSpec spec, WanNetwork network) {
        this.spec = spec;
        this.network = network;
        this.uplinkBitsPerSecond = spec.uplinkBitsPerSecond();
        this.oneWayDelay = spec.oneWayDelay();
    }

    /** Why namespaces cannot be used here; empty when they can. */
    static Optional<String> unavailableReason() {
        return WanNetwork.unavailableReason();
    }

    /**
     * The names of the benchmark's namespaces and interfaces ({@code jsb-a1}, ...): its own prefix, so
     * that it never takes over (or cleans up) a network of the default prefix a test may be using.
     */
    static final String PREFIX = "jsb";

    /**
     * Builds the hosts of {@link WanSpec#defaults()} (a1-a3, b1-b2) under {@link #PREFIX} with the
     * given uplink cap, delay and TCP congestion control, removing leftovers of a crashed run first.
     */
    static NamespaceNetwork create(long uplinkBitsPerSecond, Duration oneWayDelay, String congestionControl,
                                   Path workDir) throws IOException, InterruptedException {
        WanSpec spec = WanSpec.defaults().withPrefix(PREFIX).withUplinkBitsPerSecond(uplinkBitsPerSecond)
                .withOneWayDelay(oneWayDelay).withCongestionControl(congestionControl);
        return new NamespaceNetwork(spec, WanNetwork.create(spec, workDir));
    }

    @Override
    public String kind() {
        return "namespaces";
    }

    @Override
    public Optional<String> fallbackReason() {
        return Optional.empty();
    }

    @Override
    public HostPlacement host(String host) {
        WanHost wanHost = network.host(host);
        return HostPlacement.of(wanHost.address(), wanHost.commandPrefix());
    }

    @Override
    public long uplinkTxBytes(String host) {
        return network.uplinkTxBytes(host);
    }

    @Override
    public long uplinkBytesPerSecond() {
        return uplinkBitsPerSecond / 8;
    }

    @Override
    public Optional<String> uplinkRateChangeUnsupported() {
        return Optional.empty();
    }

    @Override
    public Duration oneWayDelay() {
        return oneWayDelay;
    }

    @Override
    public InetSocketAddress toSiteB(String from, InetSocketAddress target) {
        return target;
    }

    @Override
    public InetSocketAddress fromSiteB(String on, InetSocketAddress target) {
        return target;
    }

    @Override
    public boolean brokersNeedWanListeners() {
        return false;
    }

    @Override
    public void setExtraDelay(String host, Duration extra) throws IOException, InterruptedException {
        network.setExtraDelay(host, extra);
    }

    @Override
    public void setUplinkRate(String host, long bitsPerSecond) throws IOException, InterruptedException {
        network.setUplinkRate(host, bitsPerSecond);
    }

    /**
     * Every host (both sites) gets the cap with {@code tc qdisc change} and the delay above the one the network was
     * built with as its extra delay in the delay line, so that packets each way take {@code oneWayDelay}.
     */
    @Override
    public synchronized void reshape(long bitsPerSecond, Duration delay) throws IOException, InterruptedException {
        if (delay.compareTo(spec.oneWayDelay()) < 0) {
            throw new IllegalArgumentException("one-way delay " + delay.toMillis() + " ms is below the "
                    + spec.oneWayDelay().toMillis() + " ms the network was built with");
        }
        Duration extra = delay.minus(spec.oneWayDelay());
        for (WanHost host : network.hosts()) {
            network.setUplinkRate(host.name(), bitsPerSecond);
            network.setExtraDelay(host.name(), extra);
        }
        uplinkBitsPerSecond = bitsPerSecond;
        oneWayDelay = delay;
    }

    @Override
    public OptionalLong delayLinePid() {
        long pid = network.delayLinePid();
        return pid > 0 ? OptionalLong.of(pid) : OptionalLong.empty();
    }

    @Override
    public Map<String, Object> describe() {
        Map<String, Object> description = new LinkedHashMap<>();
        description.put("network", kind());
        description.put("prefix", spec.prefix());
        description.put("uplink_bits_per_s", uplinkBitsPerSecond);
        description.put("uplink_mbit_s", uplinkBitsPerSecond / 1e6);
        description.put("one_way_delay_ms", oneWayDelay.toMillis());
        if (!oneWayDelay.equals(spec.oneWayDelay())) {
            description.put("built_one_way_delay_ms", spec.oneWayDelay().toMillis());
        }
        description.put("congestion_control", spec.congestionControl());
        Map<String, Object> hosts = new LinkedHashMap<>();
        for (WanHost host : network.hosts()) {
            hosts.put(host.name(), Map.of("site", host.site(), "namespace", host.namespace(),
                    "address", host.address()));
        }
        description.put("hosts", hosts);
        description.put("notes", java.util.List.of(
                "each host is a network namespace; its WAN uplink egress is capped with tc tbf",
                "cross-site packets pass a TUN delay line (one-way delay each way); LANs are uncapped bridges",
                "the bench JVM (root namespace) reaches every host over the LANs: producer at A, probe at B"));
        return description;
    }

    @Override
    public void close() {
        network.close();
    }
}
