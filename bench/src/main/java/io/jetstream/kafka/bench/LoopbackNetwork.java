package io.jetstream.kafka.bench;

import io.jetstream.kafka.testkit.link.LinkDirection;
import io.jetstream.kafka.testkit.link.LinkEmulator;
import io.jetstream.kafka.testkit.link.LinkSpec;
import io.jetstream.kafka.testkit.site.HostPlacement;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The fallback network when namespaces are not available: every host is this machine's loopback
 * interface, and each crossing of the WAN goes through a user-space {@link LinkEmulator} with the
 * uplink's rate cap and one-way delay, counted for the site-A host whose uplink it stands for.
 *
 * <p>Limits, said in the result: all processes share one kernel and one loopback device; each link
 * caps its own traffic, so two links standing for the same uplink do not share a cap (a variant
 * uses one link per uplink, except MirrorMaker 2 with three workers, whose producers all reach
 * broker B through one advertised WAN listener and so share a1's link).
 *
 * <p>Thread-safe: links are created under the instance lock.
 */
final class LoopbackNetwork implements BenchNetwork {

    private record Link(String uplink, LinkEmulator emulator, LinkDirection outbound) {
    }

    private long uplinkBytesPerSecond;
    private Duration oneWayDelay;
    private final String reason;
    private final Map<String, Link> links = new LinkedHashMap<>();
    private final Map<String, Duration> extraDelays = new HashMap<>();
    private final Map<String, Long> uplinkRates = new HashMap<>();

    LoopbackNetwork(long uplinkBytesPerSecond, Duration oneWayDelay, String reason) {
        this.uplinkBytesPerSecond = uplinkBytesPerSecond;
        this.oneWayDelay = oneWayDelay;
        this.reason = reason;
    }

    @Override
    public String kind() {
        return "loopback-emulator";
    }

    @Override
    public Optional<String> fallbackReason() {
        return Optional.of(reason);
    }

    @Override
    public HostPlacement host(String host) {
        return HostPlacement.LOOPBACK;
    }

    @Override
    public synchronized long uplinkTxBytes(String host) {
        long bytes = 0;
        for (Link link : links.values()) {
            if (link.uplink().equals(host)) {
                bytes += link.emulator().bytesForwarded(link.outbound());
            }
        }
        return bytes;
    }

    @Override
    public synchronized long uplinkBytesPerSecond() {
        return uplinkBytesPerSecond;
    }

    @Override
    public synchronized Duration oneWayDelay() {
        return oneWayDelay;
    }

    @Override
    public InetSocketAddress toSiteB(String from, InetSocketAddress target) {
        return link(from, target, LinkDirection.CLIENT_TO_TARGET);
    }

    @Override
    public InetSocketAddress fromSiteB(String on, InetSocketAddress target) {
        return link(on, target, LinkDirection.TARGET_TO_CLIENT);
    }

    private synchronized InetSocketAddress link(String uplink, InetSocketAddress target, LinkDirection outbound) {
        String key = uplink + "->" + target;
        Link link = links.get(key);
        if (link == null) {
            LinkEmulator emulator = new LinkEmulator(LinkSpec.of("uplink-" + uplink + "-" + links.size(),
                    uplinkRates.getOrDefault(uplink, uplinkBytesPerSecond), linkDelay(uplink)), target);
            try {
                emulator.start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the emulated uplink of " + uplink, e);
            }
            link = new Link(uplink, emulator, outbound);
            links.put(key, link);
        }
        return link.emulator().address();
    }

    @Override
    public boolean brokersNeedWanListeners() {
        return true;
    }

    /**
     * The emulator delays both directions of a link alike, so each link of {@code host}'s uplink gets half the extra
     * delay on top of the base one way: its round trip grows by {@code extra}, as on namespaces (where only the
     * host's outgoing packets pay it). Links made later get it too.
     */
    @Override
    public synchronized void setExtraDelay(String host, Duration extra) {
        if (extra.isNegative()) {
            throw new IllegalArgumentException("extra delay of " + host + " must be >= 0, was " + extra);
        }
        extraDelays.put(host, extra);
        links.values().stream().filter(link -> link.uplink().equals(host))
                .forEach(link -> link.emulator().setDelay(linkDelay(host)));
    }

    @Override
    public synchronized void setUplinkRate(String host, long bitsPerSecond) {
        uplinkRates.put(host, bitsPerSecond / 8);
        links.values().stream().filter(link -> link.uplink().equals(host))
                .forEach(link -> link.emulator().setRate(bitsPerSecond / 8));
    }

    /** Every link, made or to be made, gets the rate and the delay; the per-host changes are dropped. */
    @Override
    public synchronized void reshape(long bitsPerSecond, Duration delay) {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("one-way delay must be >= 0, was " + delay);
        }
        uplinkBytesPerSecond = bitsPerSecond / 8;
        oneWayDelay = delay;
        uplinkRates.clear();
        extraDelays.clear();
        links.values().forEach(link -> {
            link.emulator().setRate(bitsPerSecond / 8);
            link.emulator().setDelay(delay);
        });
    }

    @Override
    public Optional<String> uplinkRateChangeUnsupported() {
        return Optional.empty(); // the emulator's pacers take a new rate at once
    }

    private Duration linkDelay(String host) {
        return oneWayDelay.plus(extraDelays.getOrDefault(host, Duration.ZERO).dividedBy(2));
    }

    @Override
    public OptionalLong delayLinePid() {
        return OptionalLong.empty();
    }

    @Override
    public synchronized Map<String, Object> describe() {
        Map<String, Object> description = new LinkedHashMap<>();
        description.put("network", kind());
        description.put("fallback_reason", reason);
        description.put("uplink_bytes_per_s", uplinkBytesPerSecond);
        description.put("uplink_mbit_s", uplinkBytesPerSecond * 8 / 1e6);
        description.put("one_way_delay_ms", oneWayDelay.toMillis());
        description.put("notes", List.of(
                "all hosts are 127.0.0.1; WAN crossings go through user-space TCP proxies (LinkEmulator) in the"
                        + " bench JVM, each with the uplink's rate cap and delay",
                "MM2 with three workers: their producers share a1's emulated uplink (one WAN listener on broker B)"));
        return description;
    }

    @Override
    public synchronized void close() {
        List<Link> all = new ArrayList<>(links.values());
        links.clear();
        all.forEach(link -> link.emulator().close());
    }
}
