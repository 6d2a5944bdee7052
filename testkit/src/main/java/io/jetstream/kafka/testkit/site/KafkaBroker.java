package io.jetstream.kafka.testkit.site;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node KRaft Kafka cluster (combined broker and controller) in a child JVM.
 *
 * <p>Listeners: {@code PLAINTEXT} on loopback for the site's own clients and Connect worker,
 * {@code CONTROLLER} for KRaft, optionally {@code WAN}: a listener whose advertised address is
 * the far end of an emulated WAN link, so that clients at another site reach this broker only
 * through that link (the broker hands out the advertised address in metadata, so without it clients
 * would bypass the link after bootstrap), and optionally {@code SECURE}: SASL_SSL
 * ({@link SaslSslListener}).
 *
 * <p>Ports and data stay the same across {@link #stop}/{@link #start}, so a restart is a real broker
 * restart on its existing log.
 */
public final class KafkaBroker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(KafkaBroker.class);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

    private final String name;
    private final HostPlacement host;
    private final Path dataDir;
    private final int port;
    private final int controllerPort;
    private final int wanPort;
    private final InetSocketAddress wanAdvertised;
    private final SaslSslListener secure;
    private final int securePort;
    private final Map<String, String> overrides;
    private final String clusterId = Uuid.randomUuid().toString();
    private final JavaProcess process;

    /**
     * @param wanAdvertiser given the WAN listener's local address, returns the address to advertise
     *     for it (the link emulator's listening end), or null for no WAN listener
     */
    KafkaBroker(String name, Path workDir, Map<String, String> overrides, String heap,
                java.util.function.UnaryOperator<InetSocketAddress> wanAdvertiser, SaslSslListener secure)
            throws IOException {
        this(name, workDir, HostPlacement.LOOPBACK, overrides, heap, wanAdvertiser, secure);
    }

    /** @param secure a SASL_SSL listener to add, or null */
    private KafkaBroker(String name, Path workDir, HostPlacement host, Map<String, String> overrides, String heap,
                        java.util.function.UnaryOperator<InetSocketAddress> wanAdvertiser, SaslSslListener secure)
            throws IOException {
        this.name = name;
        this.secure = secure;
        this.securePort = secure == null ? -1 : Ports.freePort();
        this.host = host;
        this.dataDir = workDir.resolve("kafka-data");
        this.port = Ports.freePort();
        this.controllerPort = Ports.freePort();
        if (wanAdvertiser != null) {
            this.wanPort = Ports.freePort();
            this.wanAdvertised = wanAdvertiser.apply(new InetSocketAddress("127.0.0.1", wanPort));
        } else {
            this.wanPort = -1;
            this.wanAdvertised = null;
        }
        this.overrides = Map.copyOf(overrides);
        Path props = workDir.resolve("server.properties");
        writeProperties(props);
        Path log4j = SiteFiles.writeLog4j(workDir);
        this.process = new JavaProcess(name + "-broker", BrokerMain.class.getName(),
                List.of("-Xms" + heap, "-Xmx" + heap, "-XX:+UseParallelGC",
                        "-Dlog4j2.configurationFile=" + log4j.toUri(),
                        "-Dkafka.logs.dir=" + workDir.resolve("logs")),
                List.of(props.toString(), clusterId),
                JavaProcess.currentClasspath(), workDir.resolve("logs").resolve("broker.out"), host.commandPrefix());
    }

    /**
     * A broker (not started) on {@code host}: its PLAINTEXT and CONTROLLER listeners bind to the
     * host's address and PLAINTEXT advertises it, so clients anywhere that reach that address reach
     * the broker. {@code wanAdvertiser} as for sites (null for no WAN listener; the WAN listener
     * binds to loopback, where the link emulators run).
     */
    public static KafkaBroker onHost(String name, Path workDir, HostPlacement host, Map<String, String> overrides,
                                     String heap, java.util.function.UnaryOperator<InetSocketAddress> wanAdvertiser)
            throws IOException {
        return new KafkaBroker(name, workDir, host, overrides, heap, wanAdvertiser, null);
    }

    private void writeProperties(Path file) throws IOException {
        Map<String, String> p = new TreeMap<>();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        String address = host.address();
        p.put("controller.quorum.voters", "1@" + address + ":" + controllerPort);
        List<String> listeners = new ArrayList<>(List.of(
                "PLAINTEXT://" + address + ":" + port, "CONTROLLER://" + address + ":" + controllerPort));
        List<String> advertised = new ArrayList<>(List.of("PLAINTEXT://" + address + ":" + port));
        String protocolMap = "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT";
        if (wanAdvertised != null) {
            listeners.add("WAN://127.0.0.1:" + wanPort);
            advertised.add("WAN://" + wanAdvertised.getHostString() + ":" + wanAdvertised.getPort());
            protocolMap += ",WAN:PLAINTEXT";
        }
        if (secure != null) {
            String listener = SaslSslListener.NAME + "://" + address + ":" + securePort;
            listeners.add(listener);
            advertised.add(listener);
            protocolMap += "," + SaslSslListener.NAME + ":SASL_SSL";
            p.putAll(secure.brokerProperties());
        }
        p.put("listeners", String.join(",", listeners));
        p.put("advertised.listeners", String.join(",", advertised));
        p.put("listener.security.protocol.map", protocolMap);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", dataDir.toString());
        p.put("num.partitions", "1");
        p.put("auto.create.topics.enable", "false");
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "5");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "5");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("log.flush.interval.messages", Long.toString(Long.MAX_VALUE));
        p.putAll(overrides);
        Properties properties = new Properties();
        properties.putAll(p);
        Files.createDirectories(file.getParent());
        try (OutputStream out = Files.newOutputStream(file)) {
            properties.store(out, "Broker of site " + name + ", written by the JetStream test kit");
        }
    }

    /** Starts the broker and waits until it answers metadata requests. */
    public void start() throws IOException, TimeoutException, InterruptedException {
        long startNanos = System.nanoTime();
        process.start();
        try {
            // Wait for the port first: an Admin client started earlier logs a warning per retry.
            await(name + " broker listening on " + bootstrapServers()).atMost(READY_TIMEOUT).ignoreExceptions()
                    .until(() -> {
                        if (!process.isAlive()) {
                            throw new IllegalStateException(name + " broker exited:\n" + process.tail(40));
                        }
                        try (java.net.Socket probe = new java.net.Socket(host.address(), port)) {
                            return true;
                        }
                    });
        } catch (ConditionTimeoutException e) {
            throw new TimeoutException(e.getMessage() + "\n" + process.tail(40));
        }
        try (Admin admin = admin()) {
            await(name + " broker ready on " + bootstrapServers()).atMost(READY_TIMEOUT).ignoreExceptions()
                    .until(() -> {
                        if (!process.isAlive()) {
                            throw new IllegalStateException(name + " broker exited:\n" + process.tail(40));
                        }
                        return !admin.describeCluster().nodes().get().isEmpty();
                    });
        } catch (ConditionTimeoutException e) {
            throw new TimeoutException(e.getMessage() + "\n" + process.tail(40));
        }
        log.info("Broker of site {} ready on {} in {} ms", name, bootstrapServers(),
                (System.nanoTime() - startNanos) / 1_000_000);
    }

    private Admin admin() {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "3000",
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000"));
    }

    /** Graceful stop (SIGTERM: controlled shutdown). The data stays for a later {@link #start}. */
    public void stop() {
        process.stop(Duration.ofSeconds(30));
    }

    /** Abrupt stop (SIGKILL). */
    public void kill() {
        process.kill();
    }

    public boolean isRunning() {
        return process.isAlive();
    }

    /** The site-local bootstrap address (LAN). */
    public String bootstrapServers() {
        return host.address() + ":" + port;
    }

    /** The SASL_SSL listener's address, or null without one. */
    public String secureBootstrapServers() {
        return secure == null ? null : host.address() + ":" + securePort;
    }

    /** The address clients at other sites use (through the WAN link), or null without one. */
    public String wanBootstrapServers() {
        return wanAdvertised == null ? null : wanAdvertised.getHostString() + ":" + wanAdvertised.getPort();
    }

    /** The broker's log directory ({@code log.dirs}). */
    public Path dataDir() {
        return dataDir;
    }

    public JavaProcess process() {
        return process;
    }

    @Override
    public void close() {
        stop();
    }
}
