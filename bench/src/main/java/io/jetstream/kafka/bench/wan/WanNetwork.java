package io.jetstream.kafka.bench.wan;

import io.jetstream.kafka.bench.wan.AddressPlan.HostLinks;
import io.jetstream.kafka.bench.wan.TopologyCommands.Step;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A two-site WAN built from kernel network namespaces, for benchmarks that must see a real network: TCP stacks,
 * congestion control, queues at a bottleneck and a propagation delay, with no user-space proxy in the data path.
 *
 * <pre>
 *                 root namespace (the orchestrator: producers, probes)
 *              198.18.1.254 |                        | 198.18.2.254
 *                   [bridge jsbrA]              [bridge jsbrB]          LAN: uncapped, no delay
 *                 lan0 |   |   |                   |   | lan0
 *                    a1   a2   a3                   b1   b2             one namespace per host
 *                 wan0 |   |   |  tbf 40 Mbit/s     |   | wan0          uplink capped on egress
 *                      +---+---+------[ js-wan ]----+---+               core: routes every packet
 *                                        | TUN dl0                     between the sites through
 *                                   delay line (25 ms)                  the delay line, both ways
 * </pre>
 *
 * <p>Invariants:
 * <ul>
 *   <li>Traffic between the sites always crosses the sender's capped uplink and the delay line, once per direction;
 *       traffic within a site, and between the root namespace and any host, stays on the site's LAN bridge and is
 *       neither capped nor delayed.</li>
 *   <li>Only the core namespace forwards. The root namespace gets two bridges with one address each and nothing else:
 *       no forwarding, no sysctl, no change to the machine's interfaces or routes. Every address lies in
 *       198.18.0.0/15 (see {@link AddressPlan} for the plan).</li>
 *   <li>Everything is named after {@link WanSpec#prefix()} and found again by name, so {@link #create} first removes
 *       the leftovers of a crashed run with the same prefix, and {@link #close} removes everything even after a partial
 *       build. A live network is protected by a lock that dies with its process: a second process cannot take its
 *       prefix over.</li>
 *   <li>If the delay line dies, cross-site packets are dropped (its TUN persists without a reader), never delivered
 *       without the delay.</li>
 * </ul>
 *
 * <p>Threading: all methods are thread-safe. {@link #close} is idempotent, also runs from a JVM shutdown hook, and
 * terminates processes still running inside the namespaces.
 */
public final class WanNetwork implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(WanNetwork.class);

    private final AddressPlan plan;
    private final Path workDir;
    private final CommandRunner runner;
    private final WanLocks.Held ownerLock;
    private final Map<String, Long> uplinkRates = new ConcurrentHashMap<>();
    private final Map<String, Duration> extraDelays = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Object closeLock = new Object();
    private final Thread shutdownHook;
    private final UplinkCounters uplinkCounters;
    private volatile DelayLineProcess delayLine;

    private WanNetwork(AddressPlan plan, Path workDir, CommandRunner runner, WanLocks.Held ownerLock) {
        this.plan = plan;
        this.workDir = workDir;
        this.runner = runner;
        this.ownerLock = ownerLock;
        this.shutdownHook = new Thread(this::close, "wan-network-cleanup-" + plan.spec().prefix());
        this.uplinkCounters = new UplinkCounters(runner, plan.coreNamespace(), () -> delayLine);
        plan.hosts().forEach(host -> uplinkRates.put(host.name(), plan.spec().uplinkBitsPerSecond()));
        plan.hosts().forEach(host -> extraDelays.put(host.name(), Duration.ZERO));
    }

    /** Empty when this machine can build the network (root, ip netns, tc tbf, /dev/net/tun, gcc); else the reason. */
    public static Optional<String> unavailableReason() {
        return Preflight.unavailableReason();
    }

    /**
     * Builds the network; first removes leftovers of an earlier run with the same prefix (crashed run). Takes about a
     * second (plus a one-off gcc run per work directory). Fails, having removed whatever it had built, if the prefix
     * is in use by a live network of any process, if no address slot is free, or if any command fails.
     *
     * @param workDir where the delay line is compiled and writes its log and counters
     */
    public static WanNetwork create(WanSpec spec, Path workDir) throws IOException, InterruptedException {
        Optional<String> unavailable = unavailableReason();
        if (unavailable.isPresent()) {
            throw new IOException("Cannot build a WAN network here: " + unavailable.get());
        }
        long started = System.nanoTime();
        CommandRunner runner = new CommandRunner();
        Files.createDirectories(workDir);
        Path binary = DelayLineBinary.compile(workDir, runner);
        WanLocks.Held ownerLock = WanLocks.owner(spec.prefix());
        WanNetwork network = null;
        try {
            network = WanLocks.whileBuilding(() -> {
                Leftovers leftovers = new Leftovers(runner);
                List<String> removed = leftovers.remove(spec.prefix());
                if (!removed.isEmpty()) {
                    log.warn("Removed leftovers of an earlier '{}' network: {}", spec.prefix(), removed);
                }
                int slot = AddressPlan.freeSlot(RootRoutes.destinations(runner)).orElseThrow(() -> new IOException(
                        "No free address slot in 198.18.0.0/15: routes of the root namespace cover all "
                                + AddressPlan.SLOTS + " pairs of /24s"));
                WanNetwork built = new WanNetwork(AddressPlan.of(spec, slot), workDir, runner, ownerLock);
                built.registerShutdownHook();
                try {
                    built.build(binary);
                } catch (IOException | InterruptedException | RuntimeException e) {
                    built.close();
                    throw e;
                }
                return built;
            });
        } finally {
            if (network == null) {
                ownerLock.close(); // a no-op if the failed network's close() released it already
            }
        }
        log.info("WAN network '{}' up in {} ms: {}", spec.prefix(), (System.nanoTime() - started) / 1_000_000,
                network);
        return network;
    }

    public WanSpec spec() {
        return plan.spec();
    }

    /** The host called {@code name} ({@code "a1"}, {@code "b2"}, ...). */
    public WanHost host(String name) {
        return links(name).host();
    }

    /** Every host, site A's first, each site in order. */
    public List<WanHost> hosts() {
        return plan.hosts();
    }

    /** The hosts of site {@code "A"} or {@code "B"}, in order. */
    public List<WanHost> hosts(String site) {
        spec().hostCount(site); // validates the site
        return plan.hosts().stream().filter(host -> host.site().equals(site)).toList();
    }

    /**
     * The root namespace's address on the site's LAN ({@code 198.18.1.254} for site A at slot 0). A socket in the root
     * namespace that binds before connecting must bind this address of the site it connects to: the hosts route the
     * other site's subnet over the WAN, so they cannot answer the root's address on the other LAN.
     */
    public String rootAddress(String site) {
        spec().hostCount(site);
        return plan.rootAddress(site);
    }

    /** The network namespace that routes between the sites and runs the delay line. */
    public String coreNamespace() {
        return plan.coreNamespace();
    }

    /** Changes a host's uplink cap while running (tc qdisc change). */
    public void setUplinkRate(String host, long bitsPerSecond) throws IOException, InterruptedException {
        WanHost target = host(host);
        ensureOpen();
        TokenBucket bucket = TokenBucket.forRate(bitsPerSecond);
        synchronized (this) {
            runner.run(TopologyCommands.uplinkShaper(target.namespace(), bucket, "change").command());
            uplinkRates.put(target.name(), bitsPerSecond);
        }
        log.info("Uplink of {} capped at {} bit/s (burst {} B, queue {} B)", target.name(), bitsPerSecond,
                bucket.burstBytes(), bucket.limitBytes());
    }

    /**
     * Changes, while running, how much longer than {@link WanSpec#oneWayDelay()} the packets {@code host} sends to the
     * other site are held: they then take {@code oneWayDelay + extra} one way. Only that direction changes, so the
     * round trip of every connection from {@code host} to the other site (its route's) grows by {@code extra}, and
     * the host's replies to connections opened from the other site are late by {@code extra} too. Packets already in
     * flight keep their due times; a host's packets are never reordered, also when its delay is lowered (they then
     * wait behind the host's earlier packets).
     *
     * <p>Each host has a delay class (a FIFO) of its own in the one delay line, so this changes nothing in the
     * network's CPU design. Its ring is sized for up to 100 ms above the base delay at the
     * design packet rate; beyond that, a busy network may count drops in {@link #delayLineStats}.
     *
     * @param extra 0 (the default) up to {@link WanSpec#MAX_ONE_WAY_DELAY} minus the one-way delay, whole microseconds
     * @throws IllegalArgumentException for an unknown host or an extra delay out of range
     * @throws IOException              if the delay line does not confirm the change within 10 s
     */
    public void setExtraDelay(String host, Duration extra) throws IOException, InterruptedException {
        WanHost target = host(host);
        requireExtraDelay(spec(), extra);
        ensureOpen();
        synchronized (this) {
            Map<String, Duration> next = new HashMap<>(extraDelays);
            next.put(target.name(), extra);
            DelayLineProcess current = delayLine;
            if (current == null) {
                throw new IllegalStateException("WAN network '" + spec().prefix() + "' has no delay line");
            }
            current.applyDelays(sourceDelays(next));
            extraDelays.put(target.name(), extra);
        }
        log.info("Packets from {} to the other site now take {} ms one way ({} ms extra)", target.name(),
                millis(spec().oneWayDelay().plus(extra)), millis(extra));
    }

    /** How much longer than the one-way delay the packets {@code host} sends to the other site take; 0 by default. */
    public Duration extraDelay(String host) {
        return extraDelays.get(host(host).name());
    }

    /** Throws {@link IllegalArgumentException} unless a host of a network of {@code spec} may have this extra delay. */
    public static void requireExtraDelay(WanSpec spec, Duration extra) {
        Duration max = WanSpec.MAX_ONE_WAY_DELAY.minus(spec.oneWayDelay());
        if (extra == null || extra.isNegative() || extra.compareTo(max) > 0) {
            throw new IllegalArgumentException("extra delay must be within [0, " + max.toMillis() + " ms] (one-way"
                    + " delay " + spec.oneWayDelay().toMillis() + " ms plus extra at most "
                    + WanSpec.MAX_ONE_WAY_DELAY.toMillis() + " ms), was " + extra);
        }
    }

    /** The host's current uplink cap in bits per second. */
    public long uplinkRate(String host) {
        return uplinkRates.get(host(host).name());
    }

    /**
     * Bytes the host has sent on its WAN uplink so far (everything: payload, headers, retransmissions). Cheap enough to
     * call every 500 ms for all hosts.
     *
     * <p>Counted as whole Ethernet frames (IP packet + 14 bytes), the unit the uplink cap is enforced in, where the
     * uplink enters the core namespace: one read of the delay line's {@code /proc/<pid>/net/dev}, no process started
     * (one {@code ip netns exec} if the delay line has died). Only traffic to the other site crosses the uplink.
     *
     * @throws IllegalStateException after {@link #close}
     * @throws UncheckedIOException  if the counters cannot be read
     */
    public long uplinkTxBytes(String host) {
        HostLinks links = links(host);
        ensureOpen();
        try {
            return uplinkCounters.read(links.coreInterface()).rxBytes().get(links.coreInterface());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the WAN uplink counters of " + host, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while reading the WAN uplink counters of " + host, e);
        }
    }

    /** The delay line's process id (for CPU accounting), or -1. */
    public long delayLinePid() {
        DelayLineProcess current = delayLine;
        return current != null && current.isAlive() ? current.pid() : -1;
    }

    /** The delay line's counters as of its last report (once a second); empty before the first. */
    public Optional<DelayLineStats> delayLineStats() {
        DelayLineProcess current = delayLine;
        return current == null ? Optional.empty() : current.stats();
    }

    /**
     * Removes namespaces, bridges, the TUN and the delay line (SIGTERM then SIGKILL by PID); idempotent. Processes
     * still running in the hosts' namespaces are terminated too (and named in a warning): stop yours first. A second
     * caller waits until the first one has finished.
     */
    @Override
    public void close() {
        synchronized (closeLock) {
            if (closed.compareAndSet(false, true)) {
                remove();
            }
        }
    }

    private void remove() {
        long started = System.nanoTime();
        boolean interrupted = Thread.interrupted(); // clean up first, restore the flag after
        DelayLineProcess current = delayLine;
        if (current != null) {
            current.close();
            interrupted |= Thread.interrupted();
        }
        try {
            new Leftovers(runner).remove(spec().prefix());
        } catch (IOException e) {
            log.warn("WAN network '{}' not fully removed ({}); the next create or `WanNetworkMain down --prefix {}`"
                    + " removes the rest", spec().prefix(), e.getMessage(), spec().prefix());
        } catch (InterruptedException e) {
            interrupted = true;
            log.warn("Interrupted while removing WAN network '{}'; the next create or `WanNetworkMain down --prefix"
                    + " {}` removes the rest", spec().prefix(), spec().prefix());
        }
        try {
            ownerLock.close();
        } catch (IOException e) {
            log.debug("Releasing the lock of '{}' failed; it goes with the process", spec().prefix(), e);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: this may be the hook itself
        }
        log.info("WAN network '{}' removed in {} ms", spec().prefix(), (System.nanoTime() - started) / 1_000_000);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        String hosts = plan.hosts().stream().map(host -> host.name() + "=" + host.address())
                .collect(Collectors.joining(", "));
        return "WanNetwork[" + spec().prefix() + ": " + hosts + "; uplinks " + spec().uplinkBitsPerSecond()
                + " bit/s, one-way delay " + spec().oneWayDelay().toMillis() + " ms, " + spec().congestionControl()
                + ", delay line pid " + delayLinePid() + "]";
    }

    private void build(Path binary) throws IOException, InterruptedException {
        DelayLineCpus cpus = DelayLineCpus.forThisProcess();
        for (Step step : TopologyCommands.build(plan, Files.isDirectory(Path.of("/proc/sys/net/ipv6")), cpus)) {
            if (step.required()) {
                runner.run(step.command());
            } else {
                CommandRunner.Result result = runner.execute(step.command(), CommandRunner.DEFAULT_TIMEOUT);
                if (!result.succeeded()) {
                    log.warn("Optional step failed, the network works without it: {}: {}",
                            CommandRunner.render(step.command()), result.stderr().strip());
                }
            }
        }
        delayLine = DelayLineProcess.start(binary, plan.coreNamespace(), spec().oneWayDelay(),
                sourceDelays(extraDelays), cpus, workDir, spec().prefix(), runner);
    }

    /** Every host's address with the one-way delay of the packets it sends, given each host's extra delay. */
    private Map<String, Duration> sourceDelays(Map<String, Duration> extras) {
        return plan.hosts().stream().collect(Collectors.toMap(WanHost::address,
                host -> spec().oneWayDelay().plus(extras.getOrDefault(host.name(), Duration.ZERO))));
    }

    private static String millis(Duration duration) {
        return String.format(Locale.ROOT, "%.1f", duration.toNanos() / 1e6);
    }

    private void registerShutdownHook() {
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    private HostLinks links(String name) {
        return plan.links().stream().filter(links -> links.host().name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("No host '" + name + "' in WAN network '"
                        + spec().prefix() + "'; hosts are " + plan.hosts().stream().map(WanHost::name).toList()));
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException("WAN network '" + spec().prefix() + "' is closed");
        }
    }
}
