package io.jetstream.kafka.bench;

import io.jetstream.kafka.testkit.site.ConnectRestClient;
import io.jetstream.kafka.testkit.site.ConnectWorker;
import io.jetstream.kafka.testkit.site.ConnectorStatus;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * MirrorMaker 2's {@code MirrorSourceConnector} deployed through the Connect REST API on dedicated
 * Connect workers: at the destination (a worker on b2 in broker B's Connect cluster, fetching from
 * broker A across the WAN) or at the source (workers on a1, or a1-a3, whose Connect cluster is
 * broker B, so that their producers compress before the WAN). Configs from {@link Mm2Configs}.
 */
final class MirrorMakerReplicator implements Replicator {

    private final BenchCluster cluster;
    private final Variant variant;
    private final Variant.Mm2Setup setup;
    private final String name;
    private final int partitions;
    private final Map<String, Object> deployment = new LinkedHashMap<>();
    private List<String> workerNames = List.of();
    private ConnectRestClient rest;

    MirrorMakerReplicator(BenchCluster cluster, Variant variant, int partitions) {
        this.cluster = cluster;
        this.partitions = partitions;
        this.variant = variant;
        this.setup = variant.mm2().orElseThrow();
        this.name = variant.id();
    }

    @Override
    public void deploy(String topic) throws IOException, TimeoutException, InterruptedException {
        cluster.stopRelaysExcept(List.of());
        Map<String, ConnectWorker> workers = cluster.mm2Workers(setup);
        workerNames = List.copyOf(workers.keySet());
        rest = workers.values().iterator().next().rest();
        String source = setup.atSource() ? cluster.bootstrapA() : cluster.bootstrapAFromSiteB();
        String target = setup.atSource() ? cluster.bootstrapBFromSiteA() : cluster.bootstrapB();
        Map<String, String> config = Mm2Configs.connector(setup, topic, source, target, setup.tuningPartitions(partitions));
        rest.putConnectorConfig(name, config);
        ConnectorStatus status = rest.awaitRunning(name, setup.tasks(), CONNECTOR_TIMEOUT);
        Map<String, Object> placement = new LinkedHashMap<>();
        status.tasks().forEach(task -> placement.put("task-" + task.id(), task.workerId()));
        deployment.put("connector", config);
        deployment.put("workers", workerNames);
        deployment.put("worker_overrides", Mm2Configs.worker(setup));
        deployment.put("task_placement", placement);
    }

    @Override
    public String destinationTopic(String topic) {
        return Mm2Configs.destinationTopic(topic);
    }

    @Override
    public void pause() throws IOException, TimeoutException, InterruptedException {
        rest.pause(name);
        Replicator.awaitPaused(rest, name);
    }

    @Override
    public void resume() throws IOException, InterruptedException {
        rest.resume(name);
    }

    @Override
    public void undeploy() throws IOException, TimeoutException, InterruptedException {
        Replicator.deleteAndAwait(rest, name);
    }

    @Override
    public List<String> processes() {
        return new ArrayList<>(workerNames);
    }

    @Override
    public Map<String, Long> routeBytes() {
        return Map.of();
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
        return rest == null ? "not deployed" : Replicator.states(rest, List.of(name));
    }

    @Override
    public String toString() {
        return variant.id();
    }
}
