package io.jetstream.kafka.testkit.replication;

import io.jetstream.kafka.testkit.link.LinkEmulator;
import io.jetstream.kafka.testkit.link.LinkSpec;
import io.jetstream.kafka.testkit.site.ConnectRestClient;
import io.jetstream.kafka.testkit.site.ConnectRuntime;
import io.jetstream.kafka.testkit.site.Ports;
import io.jetstream.kafka.testkit.site.Site;
import io.jetstream.kafka.testkit.site.SiteFiles;
import io.jetstream.kafka.testkit.site.TwoSites;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A full two-site JetStream deployment on one machine: sites A and B (broker and Connect worker
 * each, the connector plugins in {@code plugin.path}), relays, emulated WAN routes, and the two
 * connectors deployed through the Connect REST API from {@code config/source-connector.json} and
 * {@code config/sink-connector.json}. The demo, the integration tests and the benchmarks use it.
 *
 * <p>Topology with K routes (1 to 3), all routes ending at egress relay b1 in site B:
 * <pre>
 *   A-tasks ─▶ a1 ──[link route-1: a1's uplink]──────────────▶ b1 ─▶ B-tasks
 *               ├──▶ a2 ──[link route-2: a2's uplink]─────────▶ b1
 *               └──▶ c1 ──[link route-3: site C's uplink]─────▶ b1
 * </pre>
 * Every link has the same rate cap and one-way delay unless set per route later.
 */
public final class ReplicationEnvironment implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReplicationEnvironment.class);

    public static final String SOURCE_CONNECTOR = "jetstream-source";
    public static final String SINK_CONNECTOR = "jetstream-sink";
    public static final String STREAM = "demo";
    public static final String TOKEN = "demo-token-not-a-secret-0001";
    public static final String DESTINATION = "B";

    private final Builder settings;
    private final List<LinkEmulator> links = new ArrayList<>();
    private final Map<String, RelayNode> relays = new LinkedHashMap<>();
    private TwoSites sites;

    private ReplicationEnvironment(Builder settings) {
        this.settings = settings;
    }

    public static Builder builder(Path baseDir) {
        return new Builder(baseDir);
    }

    private ReplicationEnvironment start() throws IOException, TimeoutException, InterruptedException {
        long startNanos = System.nanoTime();
        // The relays and links start while the sites do: nothing connects to them before the
        // connectors are deployed, and a site's start is mostly waiting on JVMs and group joins.
        CompletableFuture<Void> relaysUp = CompletableFuture.runAsync(this::startRelaysAndLinksUnchecked);
        try {
            List<Path> plugins = List.of(pluginFolder("connect-source"), pluginFolder("connect-sink"));
            sites = TwoSites.start(settings.baseDir,
                    a -> {
                        a.pluginPath(plugins).workerHeap(settings.workerHeap).workers(settings.workersPerSite)
                                .connectRuntime(settings.connectRuntime);
                        settings.configureA.accept(a);
                    },
                    b -> {
                        b.pluginPath(plugins).workerHeap(settings.workerHeap).workers(settings.workersPerSite)
                                .connectRuntime(settings.connectRuntime);
                        settings.workerPropertiesB.forEach(b::workerProperty);
                        settings.configureB.accept(b);
                    });
            awaitRelaysAndLinks(relaysUp);
            if (settings.deployConnectors) {
                deploySink(Map.of());
                deploySource(Map.of());
            }
        } catch (IOException | TimeoutException | InterruptedException | RuntimeException e) {
            // close() must not race the relays' start: wait for it to end, however it ended
            relaysUp.handle((ok, failure) -> null).join();
            close();
            throw e;
        }
        log.info("Replication environment up in {} ms: {} route(s), {}", (System.nanoTime() - startNanos) / 1_000_000,
                settings.routes, relays.values());
        return this;
    }

    /**
     * Egress price per GB of route-1, route-2, route-3: the third crosses a third site (c1) and
     * costs more, so adaptive routing uses it only while the other two are full.
     */
    public static final double[] ROUTE_PRICE_PER_GB = {0.02, 0.02, 0.05};

    private void startRelaysAndLinksUnchecked() {
        try {
            startRelaysAndLinks();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void awaitRelaysAndLinks(CompletableFuture<Void> relaysUp) throws IOException {
        try {
            relaysUp.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof UncheckedIOException io) {
                throw io.getCause();
            }
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw e;
        }
    }

    private void startRelaysAndLinks() throws IOException {
        RelayNode b1 = relay("b1", Map.of());
        List<String> routeNames = new ArrayList<>();
        Map<String, String> ingressRoutes = new LinkedHashMap<>();
        String[] viaIds = {null, "a2", "c1"};
        double[] pricePerGb = ROUTE_PRICE_PER_GB;
        for (int i = 0; i < settings.routes; i++) {
            String route = "route-" + (i + 1);
            LinkEmulator link = new LinkEmulator(LinkSpec.of(route, settings.linkRate, settings.oneWayDelay),
                    b1.dataAddress());
            InetSocketAddress linkAddress = link.start();
            links.add(link);
            String linkEndpoint = linkAddress.getHostString() + ":" + linkAddress.getPort();
            List<String> hops = new ArrayList<>();
            if (viaIds[i] != null) {
                // An intermediate has no routes: it may forward only to the next hop it is told.
                RelayNode via = relay(viaIds[i], Map.of("next.hops.allowed", linkEndpoint));
                hops.add(via.dataEndpoint());
            }
            hops.add(linkEndpoint);
            routeNames.add(route);
            String prefix = "destinations." + DESTINATION + ".routes." + route;
            ingressRoutes.put(prefix + ".hops", String.join(",", hops));
            ingressRoutes.put(prefix + ".price.per.gb", Double.toString(pricePerGb[i]));
        }
        Map<String, String> ingress = new HashMap<>(ingressRoutes);
        ingress.put("destinations", DESTINATION);
        ingress.put("destinations." + DESTINATION + ".routes", String.join(",", routeNames));
        ingress.putAll(settings.ingressOverrides);
        relay("a1", ingress);
        // Start downstream first, so the ingress finds its next hops listening.
        List<RelayNode> order = new ArrayList<>(relays.values());
        for (RelayNode node : order) {
            if (!node.id().equals("a1")) {
                node.start();
            }
        }
        relays.get("a1").start();
    }

    private RelayNode relay(String id, Map<String, String> extra) {
        InetSocketAddress data = new InetSocketAddress("127.0.0.1", Ports.freePort());
        InetSocketAddress admin = new InetSocketAddress("127.0.0.1", Ports.freePort());
        Map<String, String> config = new LinkedHashMap<>();
        config.put("relay.id", id);
        config.put("io.threads", "1");
        config.put("listener.host", "127.0.0.1");
        config.put("listener.port", Integer.toString(data.getPort()));
        config.put("admin.host", "127.0.0.1");
        config.put("admin.port", Integer.toString(admin.getPort()));
        if (settings.relayTls == null) {
            config.put("tls.enabled", "false");
        } else {
            config.put("tls.enabled", "true");
            config.put("tls.cert.file", settings.relayTls.certFile().toString());
            config.put("tls.key.file", settings.relayTls.keyFile().toString());
            config.put("tls.ca.file", settings.relayTls.caFile().toString());
            config.put("tls.client.auth", "required");
        }
        config.put("streams", STREAM);
        config.put("streams." + STREAM + ".token", TOKEN);
        config.put("buffer.max.bytes", Long.toString(64L << 20));
        config.put("heartbeat.interval.ms", "1000");
        config.put("reconnect.backoff.max.ms", "1000");
        config.putAll(extra);
        RelayNode node = new RelayNode(id, config, data, admin);
        relays.put(id, node);
        return node;
    }

    /**
     * The folder to put in plugin.path for a connector module: {@code target/<name>} holding the
     * plugin folder of the same name ({@code jetstream-connect-source-<version>}, the Confluent Hub
     * {@code <owner>-<name>-<version>}). Where several versions were packaged, the newest.
     */
    public static Path pluginFolder(String module) throws IOException {
        return pluginFolder(SiteFiles.projectRoot().resolve(module).resolve("target"), module);
    }

    /** {@link #pluginFolder(String)} under a module's build folder {@code target}. */
    static Path pluginFolder(Path target, String module) throws IOException {
        Path newest = null;
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(target, "jetstream-" + module + "-*")) {
            for (Path dir : dirs) {
                if (Files.isDirectory(dir.resolve(dir.getFileName()))
                        && (newest == null || Files.getLastModifiedTime(dir).compareTo(Files.getLastModifiedTime(newest)) > 0)) {
                    newest = dir;
                }
            }
        } catch (java.nio.file.NoSuchFileException e) {
            // reported below
        }
        if (newest == null) {
            throw new IOException("No packaged plugin under " + target + ": run 'mvn -DskipTests package' first");
        }
        // Connect loads every plugin folder under a plugin.path entry: a folder an older build left beside
        // this one (another layout, another name) would be loaded too, and Connect picks one of the two
        // copies of each class by its folder's name, not by its age.
        List<String> strays = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(newest)) {
            for (Path entry : entries) {
                if (!entry.getFileName().equals(newest.getFileName())) {
                    strays.add(entry.getFileName().toString());
                }
            }
        }
        if (!strays.isEmpty()) {
            throw new IOException("The plugin folder " + newest + " also holds " + strays + ", left by an older "
                    + "build: Connect would load those classes too and might run them instead of this build's. "
                    + "Run 'mvn clean package -DskipTests' (or delete " + strays + ") first");
        }
        return newest;
    }

    /** Deploys the source-site connector from config/source-connector.json, adjusted to this environment. */
    public Map<String, String> deploySource(Map<String, String> overrides) throws IOException, InterruptedException {
        Map<String, String> config = new HashMap<>();
        config.put("source.cluster.bootstrap.servers", sites.a().workerBootstrapServers());
        config.put("relays", relays.get("a1").dataEndpoint());
        config.putAll(relayTlsKeys());
        config.put("stream.id", STREAM);
        config.put("stream.token", TOKEN);
        config.put("tasks.max", Integer.toString(settings.sourceTasks));
        config.putAll(settings.sourceOverrides);
        config.putAll(overrides);
        return sites.a().connect().deploy(SOURCE_CONNECTOR, SiteFiles.configFile("source-connector.json"), config);
    }

    /** Deploys the destination-site connector from config/sink-connector.json, adjusted to this environment. */
    public Map<String, String> deploySink(Map<String, String> overrides) throws IOException, InterruptedException {
        Map<String, String> config = new HashMap<>();
        config.put("target.cluster.bootstrap.servers", sites.b().workerBootstrapServers());
        config.put("relays", relays.get("b1").dataEndpoint());
        config.putAll(relayTlsKeys());
        config.put("stream.id", STREAM);
        config.put("stream.token", TOKEN);
        config.put("tasks.max", Integer.toString(settings.sinkTasks));
        config.put("exactly.once.support", settings.exactlyOnce ? "required" : "requested");
        config.putAll(settings.sinkOverrides);
        config.putAll(overrides);
        return sites.b().connect().deploy(SINK_CONNECTOR, SiteFiles.configFile("sink-connector.json"), config);
    }

    /** The connectors' relay.tls.* keys: mutual TLS with the environment's certificate, or none. */
    private Map<String, String> relayTlsKeys() {
        if (settings.relayTls == null) {
            return Map.of();
        }
        return Map.of("relay.tls.enabled", "true",
                "relay.tls.ca.file", settings.relayTls.caFile().toString(),
                "relay.tls.cert.file", settings.relayTls.certFile().toString(),
                "relay.tls.key.file", settings.relayTls.keyFile().toString());
    }

    /** Waits until both connectors and their tasks run. */
    public void awaitConnectorsRunning(Duration timeout) throws TimeoutException, InterruptedException {
        sites.b().connect().awaitRunning(SINK_CONNECTOR, settings.sinkTasks, timeout);
        sites.a().connect().awaitRunning(SOURCE_CONNECTOR, 1, timeout);
    }

    /**
     * What to look at when a verification fails: both connectors' status and the last warnings and
     * errors of both workers. Never throws.
     */
    public String diagnostics() {
        StringBuilder out = new StringBuilder();
        for (Site site : List.of(sites.a(), sites.b())) {
            String connector = site == sites.a() ? SOURCE_CONNECTOR : SINK_CONNECTOR;
            try {
                out.append("\n").append(site.name()).append(" status: ").append(site.connect().status(connector));
            } catch (Exception e) {
                out.append("\n").append(site.name()).append(" status unavailable: ").append(e);
            }
            out.append("\n").append(site.name()).append(" worker warnings, errors and group membership (last 25):\n")
                    .append(site.requireWorker().process().problems(25));
        }
        return out.toString();
    }

    public Site siteA() {
        return sites.a();
    }

    public Site siteB() {
        return sites.b();
    }

    public TwoSites sites() {
        return sites;
    }

    public ConnectRestClient connectA() {
        return sites.a().connect();
    }

    public ConnectRestClient connectB() {
        return sites.b().connect();
    }

    /** Relays by id: a1 (ingress), b1 (egress), a2 and c1 (intermediate, with 2 and 3 routes). */
    public Map<String, RelayNode> relays() {
        return relays;
    }

    public RelayNode relay(String id) {
        RelayNode node = relays.get(id);
        if (node == null) {
            throw new IllegalArgumentException("no relay " + id + " in " + relays.keySet());
        }
        return node;
    }

    /** The WAN links, route-1 first. */
    public List<LinkEmulator> links() {
        return links;
    }

    public int routes() {
        return settings.routes;
    }

    @Override
    public void close() {
        if (sites != null) {
            sites.close();
        }
        List<RelayNode> reversed = new ArrayList<>(relays.values());
        java.util.Collections.reverse(reversed);
        reversed.forEach(RelayNode::close);
        links.forEach(LinkEmulator::close);
    }

    /** Settings with defaults for a 2-core machine. */
    public static final class Builder {
        private final Path baseDir;
        private int routes = 1;
        private long linkRate;
        private Duration oneWayDelay = Duration.ofMillis(25);
        private boolean exactlyOnce = true;
        private boolean deployConnectors = true;
        private int sourceTasks = 2;
        private int sinkTasks = 2;
        private String workerHeap = "768m";
        private int workersPerSite = 1;
        private ConnectRuntime connectRuntime = ConnectRuntime.project();
        private final Map<String, String> sourceOverrides = new HashMap<>();
        private final Map<String, String> sinkOverrides = new HashMap<>();
        private final Map<String, String> workerPropertiesB = new HashMap<>();
        private final Map<String, String> ingressOverrides = new HashMap<>();
        private Consumer<Site.Builder> configureA = a -> { };
        private Consumer<Site.Builder> configureB = b -> { };
        private RelayTls relayTls;

        private Builder(Path baseDir) {
            this.baseDir = baseDir;
        }

        /** Number of WAN routes, 1 to 3. */
        public Builder routes(int count) {
            if (count < 1 || count > 3) {
                throw new IllegalArgumentException("routes must be 1, 2 or 3, got " + count);
            }
            this.routes = count;
            return this;
        }

        /** Rate cap of each route's link in bytes/s; 0 = unlimited. */
        public Builder linkRate(long bytesPerSecond) {
            this.linkRate = bytesPerSecond;
            return this;
        }

        public Builder oneWayDelay(Duration delay) {
            this.oneWayDelay = delay;
            return this;
        }

        /**
         * Exactly-once at the destination (the default), or at-least-once: then site B's worker runs
         * with {@code exactly.once.source.support=disabled}.
         */
        public Builder exactlyOnce(boolean enabled) {
            this.exactlyOnce = enabled;
            if (enabled) {
                workerPropertiesB.remove("exactly.once.source.support");
            } else {
                workerPropertiesB.put("exactly.once.source.support", "disabled");
            }
            return this;
        }

        /** Start without deploying the connectors (the caller deploys them). */
        public Builder withoutConnectors() {
            this.deployConnectors = false;
            return this;
        }

        public Builder sourceTasks(int tasks) {
            this.sourceTasks = tasks;
            return this;
        }

        public Builder sinkTasks(int tasks) {
            this.sinkTasks = tasks;
            return this;
        }

        public Builder workerHeap(String heap) {
            this.workerHeap = heap;
            return this;
        }

        /** Workers in each site's Connect cluster (one group per site); 1 by default. */
        public Builder workersPerSite(int count) {
            this.workersPerSite = count;
            return this;
        }

        /**
         * The Kafka Connect runtime of both sites' workers, e.g. {@link ConnectRuntime#kafka3x()}; the
         * project's own Kafka by default. Brokers always run the project's Kafka.
         */
        public Builder connectRuntime(ConnectRuntime runtime) {
            this.connectRuntime = runtime;
            return this;
        }

        public Builder sourceConnector(String key, String value) {
            sourceOverrides.put(key, value);
            return this;
        }

        public Builder sinkConnector(String key, String value) {
            sinkOverrides.put(key, value);
            return this;
        }

        /** A relay config key of the ingress relay a1 (e.g. {@code routing.policy}). */
        public Builder ingressProperty(String key, String value) {
            ingressOverrides.put(key, value);
            return this;
        }

        /**
         * Adjusts the builders of sites A and B after the environment's own settings, e.g. a SASL_SSL
         * listener ({@link Site.Builder#saslSsl}); connectors are then deployed with the site's
         * {@link Site#workerBootstrapServers()}, their security keys given with
         * {@link #sourceConnector}/{@link #sinkConnector}.
         */
        public Builder sites(Consumer<Site.Builder> a, Consumer<Site.Builder> b) {
            this.configureA = a;
            this.configureB = b;
            return this;
        }

        /**
         * Mutual TLS on every relay link: each relay's data listener and next-hop connections, and
         * both connectors' relay connections, with one certificate that names 127.0.0.1.
         */
        public Builder relayTls(RelayTls tls) {
            this.relayTls = tls;
            return this;
        }

        public ReplicationEnvironment start() throws IOException, TimeoutException, InterruptedException {
            return new ReplicationEnvironment(this).start();
        }
    }
}
