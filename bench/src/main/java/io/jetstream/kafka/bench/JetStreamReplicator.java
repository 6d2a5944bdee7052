package io.jetstream.kafka.bench;

import io.jetstream.kafka.testkit.site.ConnectWorker;
import io.jetstream.kafka.testkit.site.ConnectRestClient;
import io.jetstream.kafka.testkit.site.SiteFiles;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * JetStream as placed in issue 10: the source-site connector on connect-A (a1) reading broker A and
 * sending to the ingress relay on a1; the ingress routes to the egress relay on b2 directly ("direct",
 * a1's uplink) and, with three routes, through the relays on a2 and a3 ("via-a2", "via-a3", their
 * uplinks), all at one price; the destination-site connector on connect-B (b2) subscribes at the
 * egress and writes broker B. Connectors are deployed from {@code config/source-connector.json} and
 * {@code config/sink-connector.json} with only addresses, topics and (when the variant says)
 * {@code compression.type} changed: the shipped defaults are what is measured. The ingress relay is
 * started afresh for every variant.
 */
final class JetStreamReplicator implements Replicator {

    private static final String DESTINATION = "B";
    /** The key of {@link Heterogeneous.RouteEconomics} in {@link #deployment()}, when the ingress was sampled. */
    static final String ECONOMICS = "route_economics";

    private final BenchCluster cluster;
    private final Variant variant;
    private final Map<String, String> relayBase;
    private final Map<String, String> sourceProps;
    private final Map<String, String> sinkProps;
    private final String sourceName;
    private final String sinkName;
    private final Map<String, Object> deployment = new LinkedHashMap<>();
    private ConnectRestClient restA;
    private ConnectRestClient restB;
    private List<String> relayHosts = List.of();
    private String topic;
    private Map<String, String> ingressKeys = Map.of();
    private double spendCap;
    private RouteSpendSampler spendSampler;
    /** Per route, each hop as [the relay host sending to it, the hop's address as configured there]. */
    private final Map<String, List<String[]>> routeHops = new LinkedHashMap<>();

    /**
     * @param sourceProps keys set on the source-site connector on top of the shipped file and the
     *                    variant's (the bench's {@code --source-prop}); normally empty
     * @param sinkProps   the same for the destination-site connector ({@code --sink-prop})
     */
    JetStreamReplicator(BenchCluster cluster, Variant variant, Map<String, String> relayBase,
                        Map<String, String> sourceProps, Map<String, String> sinkProps) {
        this.cluster = cluster;
        this.variant = variant;
        this.relayBase = relayBase;
        this.sourceProps = sourceProps;
        this.sinkProps = sinkProps;
        this.sourceName = sourceConnectorName(variant.id());
        this.sinkName = "js-sink-" + variant.id();
    }

    /**
     * Sets {@code keys} on the ingress relay on top of its routes (prices, routing policy, spend cap) and samples its
     * route counters from deployment to undeployment, the result in {@link #deployment()} under {@link #ECONOMICS}
     * (checked against {@code spendCap}); nothing when {@code keys} is empty.
     */
    JetStreamReplicator withIngressKeys(Map<String, String> keys, double cap) {
        this.ingressKeys = Map.copyOf(keys);
        this.spendCap = cap;
        return this;
    }

    /** The name the source-site connector of a variant is deployed under. */
    static String sourceConnectorName(String variantId) {
        return "js-source-" + variantId;
    }

    @Override
    public void deploy(String topic) throws IOException, TimeoutException, InterruptedException {
        this.topic = topic;
        Map<String, ConnectWorker> workers = cluster.jetStreamWorkers(variant.atLeastOnce());
        restA = workers.get("connect-A").rest();
        restB = workers.get("connect-B").rest();
        startRelays();
        String topicRegex = topic.replace(".", "\\.");
        Map<String, String> sink = new LinkedHashMap<>();
        sink.put("target.cluster.bootstrap.servers", cluster.bootstrapB());
        sink.put("relays", cluster.relay("b2").dataEndpoint());
        sink.put("topics.allow", topicRegex);
        Map<String, String> source = new LinkedHashMap<>();
        source.put("source.cluster.bootstrap.servers", cluster.bootstrapA());
        source.put("relays", variant.direct() ? endpoint(cluster.network().toSiteB("a1", cluster.relay("b2").dataAddress()))
                : cluster.relay("a1").dataEndpoint());
        source.put("topics.regex", topicRegex);
        variant.compression().ifPresent(codec -> source.put("compression.type", codec));
        if (variant.atLeastOnce()) {
            sink.put("exactly.once.support", "requested");
        }
        source.putAll(variant.sourceProps());
        source.putAll(sourceProps);
        sink.putAll(sinkProps);
        Map<String, String> sinkConfig = restB.deploy(sinkName, SiteFiles.configFile("sink-connector.json"), sink);
        Map<String, String> sourceConfig = restA.deploy(sourceName, SiteFiles.configFile("source-connector.json"),
                source);
        int sinkTasks = Integer.parseInt(sinkConfig.getOrDefault("tasks.max", "1"));
        restB.awaitRunning(sinkName, sinkTasks, CONNECTOR_TIMEOUT);
        restA.awaitRunning(sourceName, 1, CONNECTOR_TIMEOUT);
        deployment.put("source_connector", sourceConfig);
        deployment.put("sink_connector", sinkConfig);
        deployment.put("changed_from_config_files", Map.of("source", source, "sink", sink));
    }

    /** Egress b2 (kept across variants), intermediates a2 and a3 for three routes, a fresh ingress a1. */
    private void startRelays() throws IOException, TimeoutException, InterruptedException {
        if (variant.direct()) {
            startEgressOnly();
            return;
        }
        List<String> hosts = new ArrayList<>(List.of("a1", "b2"));
        if (variant.routes() >= 3) {
            hosts.addAll(List.of("a2", "a3"));
        }
        cluster.stopRelaysExcept(hosts.stream().filter(h -> !h.equals("a1")).toList());
        RelayProcess egress = cluster.relay("b2");
        if (egress == null) {
            egress = cluster.startRelay("b2", relayBase, Map.of());
        }
        Map<String, List<InetSocketAddress>> routes = new LinkedHashMap<>();
        BenchNetwork network = cluster.network();
        routes.put("direct", List.of(network.toSiteB("a1", egress.dataAddress())));
        routeHops.clear();
        routeHops.put("direct", List.<String[]>of(new String[] {"a1", endpoint(routes.get("direct").get(0))}));
        if (variant.routes() >= 3) {
            for (String via : List.of("a2", "a3")) {
                InetSocketAddress viaToEgress = network.toSiteB(via, egress.dataAddress());
                Map<String, String> allowed = RelayConfigs.allowedNextHops(List.of(viaToEgress));
                RelayProcess relay = cluster.relay(via);
                // A kept intermediate forwards only to the egress it was started for.
                if (relay == null || !relay.config().entrySet().containsAll(allowed.entrySet())) {
                    relay = cluster.startRelay(via, relayBase, allowed);
                }
                routes.put("via-" + via, List.of(relay.dataAddress(), viaToEgress));
                routeHops.put("via-" + via, List.of(new String[] {"a1", endpoint(relay.dataAddress())},
                        new String[] {via, endpoint(viaToEgress)}));
            }
        }
        Map<String, String> ingressConfig = new LinkedHashMap<>(RelayConfigs.ingressRoutes(DESTINATION, routes));
        ingressConfig.putAll(ingressKeys);
        RelayProcess ingress = cluster.startRelay("a1", relayBase, ingressConfig);
        if (!ingressKeys.isEmpty()) {
            spendSampler = new RouteSpendSampler(ingress::metricsText, Heterogeneous.SAMPLE_INTERVAL);
        }
        relayHosts = List.copyOf(hosts);
        Map<String, Object> relays = new LinkedHashMap<>();
        relays.put("ingress_a1", ingress.config());
        relays.put("egress_b2", egress.config());
        deployment.put("relays", relays);
    }

    /**
     * The direct variant: only the egress b2, restarted with a route of its own ({@code hops: local}) when it
     * lacks one, so that the source-site tasks can send to it; the relays of a1..a3 stopped.
     */
    private void startEgressOnly() throws IOException, TimeoutException, InterruptedException {
        cluster.stopRelaysExcept(List.of("b2"));
        Map<String, String> local = RelayConfigs.localRoute(DESTINATION);
        RelayProcess egress = cluster.relay("b2");
        if (egress == null || !egress.config().entrySet().containsAll(local.entrySet())) {
            egress = cluster.startRelay("b2", relayBase, local);
        }
        routeHops.clear(); // no relay measures the WAN hop's round trip: the connector's client does
        relayHosts = List.of("b2");
        deployment.put("relays", Map.of("egress_b2", egress.config()));
    }

    @Override
    public String destinationTopic(String topic) {
        return "A." + topic;
    }

    @Override
    public void pause() throws IOException, TimeoutException, InterruptedException {
        restA.pause(sourceName);
        Replicator.awaitPaused(restA, sourceName);
    }

    @Override
    public void resume() throws IOException, InterruptedException {
        restA.resume(sourceName);
    }

    @Override
    public void restartTasks() throws IOException, InterruptedException {
        restA.restartConnector(sourceName, true);
    }

    @Override
    public void undeploy() throws IOException, TimeoutException, InterruptedException {
        if (spendSampler != null) {
            spendSampler.close();
            Heterogeneous.economics(spendSampler.samples(), spendCap, routeRoundTrips())
                    .ifPresent(economics -> deployment.put(ECONOMICS, economics));
            spendSampler = null;
        }
        saveRelayMetrics();
        Replicator.deleteAndAwait(restA, sourceName);
        Replicator.deleteAndAwait(restB, sinkName);
    }

    /**
     * Each route's round trip as its relays measure it: the sum over its hops of the sending relay's heartbeat round
     * trip to that hop ({@code jetstream_relay_peer_rtt_seconds{peer="host:port"}}); a route with a hop not measured
     * is left out.
     */
    private Map<String, Double> routeRoundTrips() {
        Map<String, Map<String, Double>> peerRtts = new LinkedHashMap<>();
        Map<String, Double> roundTrips = new LinkedHashMap<>();
        routeHops.forEach((route, hops) -> {
            double sum = 0;
            for (String[] hop : hops) {
                RelayProcess relay = cluster.relay(hop[0]);
                Map<String, Double> rtts = peerRtts.computeIfAbsent(hop[0], host -> relay == null ? Map.of()
                        : RouteSpendSampler.perLabel(relay.metricsText(), RouteSpendSampler.PEER_RTT, "peer"));
                Double rtt = rtts.get(hop[1]);
                if (rtt == null) {
                    return;
                }
                sum += rtt;
            }
            roundTrips.put(route, sum);
        });
        return roundTrips;
    }

    private static String endpoint(InetSocketAddress address) {
        return address.getHostString() + ":" + address.getPort();
    }

    /**
     * Keeps each relay's {@code /metrics} as the variant left it, next to the relay logs
     * ({@code relays/<topic without "bench.">-<host>.metrics.txt}: {@code js-1route-a1...}, in the grid
     * {@code <cell>.js-1route-a1...}): route estimates, budgets, RTTs, errors.
     */
    private void saveRelayMetrics() {
        Path dir = cluster.workDir().resolve("relays");
        List<String> saved = new ArrayList<>();
        for (String host : relayHosts) {
            RelayProcess relay = cluster.relay(host);
            if (relay != null) {
                String name = topic == null ? variant.id() : topic.replaceFirst("^bench\\.", "");
                Path file = dir.resolve(name + "-" + host + ".metrics.txt");
                try {
                    Files.createDirectories(dir);
                    Files.writeString(file, relay.metricsText());
                    saved.add(file.toString());
                } catch (IOException e) {
                    // diagnostics only
                }
            }
        }
        deployment.put("relay_metrics_files", saved);
    }

    @Override
    public List<String> processes() {
        List<String> processes = new ArrayList<>(List.of("connect-A",
                variant.atLeastOnce() ? BenchCluster.JETSTREAM_WORKER_B_ALO : "connect-B"));
        relayHosts.forEach(host -> processes.add("relay-" + host));
        return processes;
    }

    @Override
    public Map<String, Long> routeBytes() {
        RelayProcess ingress = cluster.relay("a1");
        return ingress == null ? Map.of() : ingress.routeBytesOut();
    }

    @Override
    public Map<String, Long> routeBatches() {
        RelayProcess ingress = cluster.relay("a1");
        return ingress == null ? Map.of() : ingress.routeBatchesOut();
    }

    @Override
    public Map<String, Object> deployment() {
        return deployment;
    }

    @Override
    public String problems() {
        return cluster.problems();
    }

    @Override
    public String states() {
        if (restA == null || restB == null) {
            return "not deployed";
        }
        return "site A " + Replicator.states(restA, List.of(sourceName)) + "; site B "
                + Replicator.states(restB, List.of(sinkName));
    }
}
