package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jetstream.kafka.testkit.replication.ReplicationEnvironment;
import io.jetstream.kafka.testkit.site.ConnectRestClient;
import io.jetstream.kafka.testkit.site.SiteFiles;
import io.jetstream.kafka.testkit.workload.ProducedLog;
import io.jetstream.kafka.testkit.workload.VerificationReport;
import io.jetstream.kafka.testkit.workload.Verifier;
import io.jetstream.kafka.testkit.workload.Workload;
import io.jetstream.kafka.testkit.workload.WorkloadSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.mirror.RemoteClusterUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cut-over of docs/migrating-from-mm2.md, step by step, on a live stream: MirrorMaker 2's
 * MirrorSourceConnector replicates a topic from A to B (on B's Connect worker, naming the replica
 * {@code A.<topic>} as JetStream's prefix policy does) while an application keeps producing at A;
 * MM2 is stopped at whatever point it has reached; its committed source offsets (the last origin
 * offset it wrote, per partition) become the JetStream source connector's offsets (the next one to
 * read), set through Connect's REST API before any of its tasks runs; JetStream then continues.
 * Every record produced arrives at B exactly once, in order within its partition, across the switch.
 * Then JetStream's checkpoints in MM2's format are read by MM2's own tooling.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MirrorMakerCutoverIT {

    private static final Duration DEADLINE = Duration.ofSeconds(180);
    private static final String TOPIC = "demo.cutover";
    private static final String REPLICA = "A." + TOPIC;
    private static final int PARTITIONS = 3;
    private static final String MM2 = "mm2-source";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    static Path workDir;

    private static ReplicationEnvironment env;

    @BeforeAll
    static void start() throws Exception {
        env = ReplicationEnvironment.builder(workDir).routes(1).oneWayDelay(Duration.ofMillis(5)).exactlyOnce(true)
                .withoutConnectors().start();
    }

    @AfterAll
    static void stop() {
        if (env != null) {
            env.close();
        }
    }

    @Test
    @Order(1)
    void jetStreamContinuesExactlyAfterWhatMirrorMakerWrote() throws Exception {
        env.siteA().createTopic(TOPIC, PARTITIONS);
        try (Workload workload = new Workload(WorkloadSpec.builder(TOPIC, PARTITIONS)
                .records(24_000).recordsPerSecond(400).valueBytes(200).build(), env.siteA().bootstrapServers())) {
            workload.start();

            // 1. MirrorMaker 2 replicates A -> B.
            env.connectB().putConnectorConfig(MM2, mirrorMakerConfig());
            env.connectB().awaitRunning(MM2, 1, Duration.ofSeconds(90));
            await("MirrorMaker 2 has replicated part of the stream").atMost(DEADLINE)
                    .pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                    .until(() -> env.siteB().endOffsetSum(REPLICA) >= 3_000);

            // 2. Stop it at whatever point it reached: its tasks commit what they wrote.
            env.connectB().stop(MM2);
            await("MirrorMaker 2 stopped").atMost(DEADLINE).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                    .until(() -> "STOPPED".equals(env.connectB().status(MM2).state()));
            Map<Integer, Long> lastWrittenByMm2 = stableMirrorMakerOffsets();
            assertThat(lastWrittenByMm2).as("MM2 replicated every partition").hasSize(PARTITIONS);
            long mm2Records = lastWrittenByMm2.values().stream().mapToLong(last -> last + 1).sum();
            // What MM2 says it wrote is what B holds: origin offsets 0..last of each partition.
            TopicContent atB = TopicContent.read(env.siteB().bootstrapServers(), REPLICA, DEADLINE);
            lastWrittenByMm2.forEach((partition, last) ->
                    assertThat(atB.partitions().get(partition)).as("partition %d at B", partition).hasSize((int) (last + 1)));
            env.connectB().deleteConnector(MM2);

            // 3. JetStream: destination first, then the source connector, created stopped, given the next
            //    offsets to read (MM2's last + 1) and resumed.
            env.deploySink(Map.of());
            ConnectRestClient connectA = env.connectA();
            connectA.create(ReplicationEnvironment.SOURCE_CONNECTOR, sourceConfig(), "STOPPED");
            connectA.alterOffsets(ReplicationEnvironment.SOURCE_CONNECTOR, jetStreamOffsets(lastWrittenByMm2));
            connectA.resume(ReplicationEnvironment.SOURCE_CONNECTOR);
            env.awaitConnectorsRunning(Duration.ofSeconds(90));

            ProducedLog produced = workload.awaitCompletion(DEADLINE);
            assertThat(produced.failedSends()).isZero();
            assertThat(mm2Records).as("the switch happened mid-stream").isBetween(1L, produced.size() - 1000L);

            VerificationReport report = Verifier.builder(env.siteB().bootstrapServers())
                    .topicMapping(topic -> "A." + topic)
                    .samePartitions(true)
                    .deadline(DEADLINE)
                    .build()
                    .verify(produced);
            assertThat(report.isPerfect()).as(report.toString()).isTrue();
            assertThat(report.delivered()).isEqualTo(produced.size());
            assertThat(report.duplicates()).isZero();
            assertThat(report.orderOk()).isTrue();
        }
    }

    /**
     * Checkpoints in MirrorMaker 2's format ({@code checkpoints.format=mm2}) on
     * {@code A.checkpoints.internal}: MM2's own {@code RemoteClusterUtils.translateOffsets} reads a
     * group's positions at B from them, and each is the exact translation of the group's position at A.
     */
    @Test
    @Order(2)
    void mirrorMakersToolingReadsJetStreamsCheckpoints() throws Exception {
        String topic = "demo.checkpointed";
        String group = "cutover-app";
        Map<String, String> config = new HashMap<>(env.connectB().connectorConfig(ReplicationEnvironment.SINK_CONNECTOR));
        config.put("emit.checkpoints.enabled", "true");
        config.put("emit.checkpoints.interval.seconds", "2");
        config.put("groups", "cutover-.*");
        config.put("checkpoints.format", "mm2");
        config.put("checkpoints.topic", "A.checkpoints.internal");
        config.put("source.cluster.bootstrap.servers", env.siteA().bootstrapServers());
        env.connectB().putConnectorConfig(ReplicationEnvironment.SINK_CONNECTOR, config);
        env.siteA().createTopic(topic, PARTITIONS);
        ProducedLog produced = new Workload(WorkloadSpec.builder(topic, PARTITIONS).records(600).valueBytes(100).build(),
                env.siteA().bootstrapServers()).run();
        TopicContent origin = TopicContent.read(env.siteA().bootstrapServers(), topic, DEADLINE);
        assertThat(origin.size()).isEqualTo(produced.size());
        await("the destination holds every record").atMost(DEADLINE).pollInterval(Duration.ofSeconds(1))
                .ignoreExceptions().until(() -> TopicContent.read(env.siteB().bootstrapServers(), "A." + topic, DEADLINE)
                        .size() >= origin.size());
        TopicContent replica = TopicContent.read(env.siteB().bootstrapServers(), "A." + topic, DEADLINE);

        // The group has processed part of each partition at A.
        Map<TopicPartition, OffsetAndMetadata> atA = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            atA.put(new TopicPartition(topic, p), new OffsetAndMetadata(origin.partitions().get(p).size() / (p + 2)));
        }
        try (Admin admin = env.siteA().admin()) {
            admin.alterConsumerGroupOffsets(group, atA).all().get();
        }

        Map<TopicPartition, OffsetAndMetadata>[] translated = new Map[] {Map.of()};
        await("MM2's RemoteClusterUtils reads the group's checkpoints").atMost(DEADLINE)
                .pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                .until(() -> {
                    translated[0] = RemoteClusterUtils.translateOffsets(
                            Map.of("bootstrap.servers", env.siteB().bootstrapServers()), "A", group, Duration.ofSeconds(10));
                    return translated[0].size() == PARTITIONS;
                });
        for (int p = 0; p < PARTITIONS; p++) {
            long positionAtA = atA.get(new TopicPartition(topic, p)).offset();
            OffsetAndMetadata atB = translated[0].get(new TopicPartition("A." + topic, p));
            assertThat(atB).as("partition %d translated", p).isNotNull();
            List<TopicContent.Entry> before = replica.partitions().get(p).stream()
                    .filter(entry -> entry.offset() < atB.offset()).toList();
            assertThat(before).as("records below the position at B, partition %d", p).hasSize((int) positionAtA);
            assertThat(before.get(before.size() - 1).sameAs(origin.partitions().get(p).get((int) positionAtA - 1)))
                    .as("the last record the group processed, partition %d", p).isTrue();
        }
    }

    private static Map<String, String> mirrorMakerConfig() {
        Map<String, String> config = new HashMap<>();
        config.put("connector.class", "org.apache.kafka.connect.mirror.MirrorSourceConnector");
        config.put("tasks.max", "2");
        config.put("source.cluster.alias", "A");
        config.put("target.cluster.alias", "B");
        config.put("source.cluster.bootstrap.servers", env.siteA().bootstrapServers());
        config.put("target.cluster.bootstrap.servers", env.siteB().bootstrapServers());
        config.put("topics", TOPIC.replace(".", "\\."));
        config.put("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        config.put("header.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        config.put("replication.factor", "1");
        config.put("offset-syncs.topic.replication.factor", "1");
        config.put("sync.topic.acls.enabled", "false");
        config.put("refresh.topics.interval.seconds", "5");
        return config;
    }

    /**
     * MM2's committed offsets of {@link #TOPIC} by partition ({@code GET /connectors/mm2-source/offsets}:
     * partition {@code {cluster, topic, partition}}, offset {@code {offset}}, the last origin offset it
     * wrote), once two readings a second apart agree.
     */
    private static Map<Integer, Long> stableMirrorMakerOffsets() throws Exception {
        Map<Integer, Long>[] last = new Map[] {Map.of()};
        await("MirrorMaker 2's offsets are committed and stable").atMost(DEADLINE)
                .pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                .until(() -> {
                    Map<Integer, Long> now = new TreeMap<>();
                    for (JsonNode entry : env.connectB().offsets(MM2)) {
                        JsonNode partition = entry.path("partition");
                        if ("A".equals(partition.path("cluster").asText()) && TOPIC.equals(partition.path("topic").asText())) {
                            now.put(partition.path("partition").asInt(), entry.path("offset").path("offset").asLong());
                        }
                    }
                    boolean stable = !now.isEmpty() && now.equals(last[0]);
                    last[0] = now;
                    return stable;
                });
        return last[0];
    }

    /** The source-site connector's offsets (KIP-875, a sink connector): the next origin offset to read. */
    private static JsonNode jetStreamOffsets(Map<Integer, Long> lastWrittenByMm2) {
        ArrayNode offsets = JSON.createArrayNode();
        lastWrittenByMm2.forEach((partition, last) -> {
            ObjectNode entry = offsets.addObject();
            entry.putObject("partition").put("kafka_topic", TOPIC).put("kafka_partition", partition);
            entry.putObject("offset").put("kafka_offset", last + 1);
        });
        return offsets;
    }

    /** config/source-connector.json with this environment's addresses, as the environment deploys it. */
    private static Map<String, String> sourceConfig() throws Exception {
        Map<String, String> config = ConnectRestClient.readConnectorConfig(SiteFiles.configFile("source-connector.json"));
        config.put("source.cluster.bootstrap.servers", env.siteA().workerBootstrapServers());
        config.put("relays", env.relay("a1").dataEndpoint());
        config.put("stream.id", ReplicationEnvironment.STREAM);
        config.put("stream.token", ReplicationEnvironment.TOKEN);
        return config;
    }
}
