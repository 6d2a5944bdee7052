package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.jetstream.kafka.testkit.replication.ReplicationEnvironment;
import io.jetstream.kafka.testkit.site.JmxReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Data safety with ordinary Kafka situations at the source, on two real sites in exactly-once
 * mode: what a {@code read_committed} consumer reads at the destination is exactly what one reads at
 * the origin, and what cannot be replicated any more is reported, never skipped silently. One
 * environment for the class; each test uses its own topics. The tests run in order: the gap test
 * leaves the destination connector with {@code offset.gap.policy=accept}, the tests after it set it
 * back to the default, and the last one leaves a destination task failed.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DataSafetyIT {

    private static final Duration DEADLINE = Duration.ofSeconds(120);
    private static final int RELAY_FRAME_MAX_BYTES = 2 * 1024 * 1024;
    /**
     * Explicit record timestamps start an hour ago: older ones (2023 here, once) fall outside the
     * topic's 7-day retention, and the broker's first retention check, 30 s after it starts, deleted
     * them while the test waited to read them back.
     */
    private static final long TIMESTAMP_BASE = System.currentTimeMillis() - 3_600_000L;

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    static Path workDir;

    private static ReplicationEnvironment env;

    @BeforeAll
    static void start() throws Exception {
        // the ingress relay takes frames of up to 2 MiB: a 2.5 MB record cannot travel (see the oversized test)
        env = ReplicationEnvironment.builder(workDir).routes(1).oneWayDelay(Duration.ofMillis(10)).exactlyOnce(true)
                .ingressProperty("frame.max.bytes", Integer.toString(RELAY_FRAME_MAX_BYTES)).start();
        env.awaitConnectorsRunning(Duration.ofSeconds(90));
    }

    @AfterAll
    static void stop() {
        if (env != null) {
            env.close();
        }
    }

    /**
     * A source topic is created at the destination, with its partition count and explicitly set
     * configs, when the source connector discovers it (its partitions are assigned), before any
     * record: a consumer at the destination can subscribe before data flows, as with MirrorMaker 2.
     */
    @Test
    @Order(0)
    void aTopicAppearsAtTheDestinationWhenItIsDiscoveredBeforeAnyRecord() throws Exception {
        String topic = "demo.discovered";
        String replica = "A." + topic;
        env.siteA().createTopic(topic, 4, Map.of("retention.ms", "7200000"));
        try (Admin admin = env.siteB().admin()) {
            await(replica + " exists at the destination")
                    .atMost(DEADLINE).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                    .until(() -> admin.listTopics().names().get().contains(replica));
            assertThat(admin.describeTopics(List.of(replica)).allTopicNames().get().get(replica).partitions())
                    .hasSize(4);
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, replica);
            assertThat(admin.describeConfigs(List.of(resource)).all().get().get(resource).get("retention.ms").value())
                    .isEqualTo("7200000");
        }
        assertThat(env.siteA().endOffsetSum(topic)).as("no record was produced").isZero();
    }

    /**
     * A record larger than one frame to the relays can carry (2.5 MB against the ingress relay's
     * 2 MiB {@code frame.max.bytes}) follows Connect's error conventions: by default the source task
     * fails naming the record; with {@code errors.tolerance=all} and a dead letter queue the record
     * goes to the queue and the records around it arrive, in order, with nothing else skipped.
     */
    @Test
    @Order(0)
    void aRecordTooLargeToTravelFailsTheTaskOrGoesToTheDeadLetterQueue() throws Exception {
        String topic = "demo.oversized";
        String replica = "A." + topic;
        String deadLetters = "jetstream-source-dlq";
        env.siteA().createTopic(topic, 1, Map.of("max.message.bytes", Integer.toString(4 << 20)));
        // the queue must take the record too: created ahead with room for it, written with a producer that may send it
        env.siteA().createTopic(deadLetters, 1, Map.of("max.message.bytes", Integer.toString(4 << 20)));
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, env.siteA().bootstrapServers());
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(4 << 20));
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, 0, "k0".getBytes(StandardCharsets.UTF_8),
                    "before".getBytes(StandardCharsets.UTF_8))).get();
            producer.send(new ProducerRecord<>(topic, 0, "k1".getBytes(StandardCharsets.UTF_8),
                    new byte[2_500_000])).get();
            producer.send(new ProducerRecord<>(topic, 0, "k2".getBytes(StandardCharsets.UTF_8),
                    "after".getBytes(StandardCharsets.UTF_8))).get();
        }
        try {
            String failure = await("the source task fails on the oversized record").atMost(DEADLINE).ignoreExceptions()
                    .until(() -> env.connectA().status(ReplicationEnvironment.SOURCE_CONNECTOR).firstFailure(), Objects::nonNull);
            assertThat(failure).contains("demo.oversized-0@1").contains("2500002 bytes")
                    .contains("errors.tolerance=all");

            env.deploySource(Map.of("errors.tolerance", "all", "errors.deadletterqueue.topic.name", deadLetters,
                    "errors.deadletterqueue.topic.replication.factor", "1",
                    "errors.deadletterqueue.context.headers.enable", "true",
                    "producer.override.max.request.size", Integer.toString(4 << 20)));
            await("the records around the oversized one arrive")
                    .atMost(DEADLINE).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                    .until(() -> values(replica, 0).size() == 2);
            assertThat(values(replica, 0)).containsExactly("before", "after");
            assertThat(env.siteA().endOffsetSum(deadLetters)).as("the oversized record is in the dead letter queue")
                    .isEqualTo(1);
            assertThat(sourceMetric("oversized-records-total")).isGreaterThanOrEqualTo(1.0);
        } finally {
            env.deploySource(Map.of());
        }
    }

    /**
     * Two transactional producers interleave transactions on three partitions, committing some and
     * aborting others; one transaction stays open for a while. Aborted records and transaction
     * markers leave offset gaps at the origin that the destination's ordering must pass without
     * stalling; an open transaction holds its partition until it ends.
     */
    @Test
    @Order(1)
    void onlyCommittedTransactionsAreReplicatedInOrder() throws Exception {
        String topic = "demo.tx";
        String replica = "A." + topic;
        env.siteA().createTopic(topic, 3);
        long committed = 0;
        try (KafkaProducer<byte[], byte[]> first = transactional("tx-first");
             KafkaProducer<byte[], byte[]> second = transactional("tx-second")) {
            long aborted = 0;
            for (int round = 0; round < 60; round++) {
                first.beginTransaction();
                send(first, topic, "first", round, 12);
                second.beginTransaction();
                send(second, topic, "second", round, 9);
                if (round % 3 == 1) {
                    first.abortTransaction();
                    aborted += 12;
                } else {
                    first.commitTransaction();
                    committed += 12;
                }
                if (round % 4 == 2) {
                    second.abortTransaction();
                    aborted += 9;
                } else {
                    second.commitTransaction();
                    committed += 9;
                }
            }
            assertThat(aborted).isPositive();

            // An open transaction on partition 0, then a committed one behind it on partitions 0 and 1.
            first.beginTransaction();
            for (int i = 0; i < 10; i++) {
                first.send(record(topic, 0, "open", 0, i)).get();
            }
            second.beginTransaction();
            for (int i = 0; i < 10; i++) {
                second.send(record(topic, 0, "behind", 0, i));
                second.send(record(topic, 1, "beside", 1, i));
            }
            second.commitTransaction();
            committed += 20;
            // Partition 1 is not held: its records arrive. Partition 0's committed records wait behind
            // the open transaction (the last stable offset), at the origin and so at the destination.
            await("partition 1's records committed after the open transaction began arrive")
                    .atMost(DEADLINE).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                    .until(() -> values(replica, 1).contains("beside-1-9"));
            assertThat(values(replica, 0)).as("records of partition 0 at or after the open transaction")
                    .noneMatch(v -> v.startsWith("open-") || v.startsWith("behind-"));
            first.commitTransaction();
            committed += 10;
        }

        // A commit returns before its markers are written: wait until the origin shows them all.
        long expected = committed;
        await("the origin shows all " + expected + " committed records")
                .atMost(DEADLINE).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                .until(() -> TopicContent.read(env.siteA().bootstrapServers(), topic, DEADLINE).size() == expected);
        TopicContent origin = TopicContent.read(env.siteA().bootstrapServers(), topic, DEADLINE);
        await("the destination holds every committed record (" + origin.size() + ")")
                .atMost(DEADLINE).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                .until(() -> TopicContent.read(env.siteB().bootstrapServers(), replica, DEADLINE)
                        .size() >= origin.size());
        TopicContent destination = TopicContent.read(env.siteB().bootstrapServers(), replica, DEADLINE);
        assertThat(origin.firstDifference(destination)).as(env.diagnostics()).isNull();
        assertThat(destination.size()).isEqualTo(origin.size());
        assertThat(values(replica, 0)).contains("open-0-9", "behind-0-9");
        // The offset map translates every origin position, markers and aborted records included, exactly.
        assertThat(OffsetMapCheck.assertExact(env.siteB().bootstrapServers(), "A", topic, origin, destination))
                .isGreaterThan(origin.size());
    }

    /**
     * Records deleted at the source before they were replicated: the source connector is stopped
     * (its tasks shut down and commit their offsets; a pause would not do: Connect reports tasks
     * PAUSED before their consumers stop fetching, and the records were read before they were
     * deleted), records are produced and deleted (Admin.deleteRecords, as retention would), and the
     * connector resumes; its consumer's committed position is then below the log start and is reset
     * past the deleted records. By default the destination task fails naming topic, partition and range; with
     * {@code offset.gap.policy=accept} replication continues and the gap is counted.
     */
    @Test
    @Order(2)
    void aGapTheSourceCannotFillFailsTheTaskUntilItIsAccepted() throws Exception {
        String topic = "demo.gap";
        String replica = "A." + topic;
        env.siteA().createTopic(topic, 1);
        try (KafkaProducer<byte[], byte[]> producer = plain()) {
            produce(producer, topic, "before", 1_000);
            await("the first 1,000 records arrive")
                    .atMost(DEADLINE).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                    .until(() -> values(replica, 0).size() == 1_000);

            env.connectA().stop(ReplicationEnvironment.SOURCE_CONNECTOR);
            await("the source connector is stopped").atMost(DEADLINE).ignoreExceptions().until(() -> {
                var status = env.connectA().status(ReplicationEnvironment.SOURCE_CONNECTOR);
                return "STOPPED".equals(status.state()) && status.tasks().isEmpty();
            });
            produce(producer, topic, "lost", 500); // offsets 1000..1499
            try (Admin admin = env.siteA().admin()) {
                admin.deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(1_500)))
                        .all().get();
            }
            produce(producer, topic, "after", 200); // offsets 1500..1699
            env.connectA().resume(ReplicationEnvironment.SOURCE_CONNECTOR);
        }

        String failure = await("a destination task fails on the gap").atMost(DEADLINE).ignoreExceptions()
                .until(() -> env.connectB().status(ReplicationEnvironment.SINK_CONNECTOR).firstFailure(), Objects::nonNull);
        assertThat(failure).contains("demo.gap-0").contains("1000..1499").contains("offset.gap.policy=accept");
        assertThat(values(replica, 0)).as("nothing after the gap is written").hasSize(1_000);
        assertThat(sourceMetric("unvouched-offset-jumps-total"))
                .as("the source saw a jump over offsets it no longer holds").isGreaterThanOrEqualTo(1.0);

        env.deploySink(Map.of("offset.gap.policy", "accept"));
        await("the records after the gap arrive")
                .atMost(DEADLINE).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                .until(() -> values(replica, 0).size() == 1_200);
        List<String> values = values(replica, 0);
        assertThat(values.subList(0, 1_000)).allMatch(v -> v.startsWith("before-"));
        assertThat(values.subList(1_000, 1_200)).as("in order, once").containsExactlyElementsOf(
                IntStream.range(0, 200).mapToObj(i -> "after-" + i).toList());
        double gaps = JmxReader.sum(env.siteB().requireWorker().process().pid(),
                "kafka.connect:type=plugins,connector=" + ReplicationEnvironment.SINK_CONNECTOR
                        + ",topic=" + topic + ",partition=0,*", "offset-gaps-total");
        assertThat(gaps).as("offset-gaps-total of demo.gap-0").isEqualTo(1.0);
        env.connectB().awaitRunning(ReplicationEnvironment.SINK_CONNECTOR, 2, DEADLINE);
    }

    /**
     * The first batch after an assignment used to pass any gap (prevOffset -1). Here the source
     * connector is deleted, its consumer group's offset is reset forward past 300 unreplicated
     * records, and the connector is deployed again under the same name: its tasks start from the
     * reset offset, and the destination, which knows it wrote up to 299, fails naming the range.
     */
    /**
     * Compaction leaves offset gaps inside the log: they are legitimate, so they pass without a
     * reported gap even with {@code offset.gap.policy=fail}, and the destination's latest value per
     * key is the origin's. The connector is paused while the records it has not read yet are
     * compacted, so that its consumer skips compacted offsets in the middle of a replicated chain.
     */
    @Test
    @Order(3)
    void compactionGapsPassAndTheLatestValuePerKeyArrives() throws Exception {
        String topic = "demo.compact";
        String replica = "A." + topic;
        env.deploySink(Map.of()); // offset.gap.policy back to the default, fail
        env.connectB().awaitRunning(ReplicationEnvironment.SINK_CONNECTOR, 2, DEADLINE);
        env.siteA().createTopic(topic, 1, Map.of("cleanup.policy", "compact", "segment.bytes", "1048576",
                "min.cleanable.dirty.ratio", "0.01", "min.compaction.lag.ms", "0", "delete.retention.ms", "0"));
        try (KafkaProducer<byte[], byte[]> producer = plain()) {
            produceKeyed(producer, topic, 0, 100);
            await("the first 100 records arrive")
                    .atMost(DEADLINE).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                    .until(() -> values(replica, 0).size() == 100);
            env.connectA().pause(ReplicationEnvironment.SOURCE_CONNECTOR);
            await("the source connector is paused").atMost(DEADLINE).ignoreExceptions().until(() -> sourcePaused());
            produceKeyed(producer, topic, 100, 2_000);
        }
        await("the origin compacted records the connector has not read")
                .atMost(DEADLINE).pollInterval(Duration.ofSeconds(2)).ignoreExceptions()
                .until(() -> TopicContent.read(env.siteA().bootstrapServers(), topic, DEADLINE).size() < 2_100);
        double checksBefore = sourceMetric("origin-offset-checks-total");
        env.connectA().resume(ReplicationEnvironment.SOURCE_CONNECTOR);

        Map<String, String> latest = latestPerKey(env.siteA().bootstrapServers(), topic);
        assertThat(latest).hasSize(50);
        await("the destination's latest value per key is the origin's")
                .atMost(DEADLINE).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                .until(() -> latestPerKey(env.siteB().bootstrapServers(), replica).equals(latest));
        List<Integer> sequence = values(replica, 0).stream().map(v -> Integer.parseInt(v.split("-")[1])).toList();
        assertThat(sequence).as("origin order").isSorted();
        assertThat(sourceMetric("origin-offset-checks-total")).as("the source read past compacted offsets and "
                + "asked about them").isGreaterThan(checksBefore);
        assertThat(env.connectB().status(ReplicationEnvironment.SINK_CONNECTOR).firstFailure()).isNull();
        assertThat(JmxReader.sum(env.siteB().requireWorker().process().pid(),
                "kafka.connect:type=plugins,connector=" + ReplicationEnvironment.SINK_CONNECTOR + ",topic=" + topic
                        + ",*", "offset-gaps-total")).isZero();
    }

    /** A metric of the source-site connector's tasks, summed over them. */
    /**
     * The connector and every task PAUSED: a task reports it only once its thread stopped
     * consuming, while the connector's own state changes first (records produced in between were
     * read, and the test's gaps would start later than it wrote them).
     */
    private static boolean sourcePaused() throws Exception {
        var status = env.connectA().status(ReplicationEnvironment.SOURCE_CONNECTOR);
        return "PAUSED".equals(status.state()) && !status.tasks().isEmpty()
                && status.tasks().stream().allMatch(t -> "PAUSED".equals(t.state()));
    }

    private static double sourceMetric(String name) throws Exception {
        return JmxReader.sum(env.siteA().requireWorker().process().pid(), "kafka.connect:type=plugins,connector="
                + ReplicationEnvironment.SOURCE_CONNECTOR + ",*", name);
    }

    /** Records {@code from..from+count-1}: 50 keys in turn, values {@code v-<sequence>-} padded to 10 KB. */
    private static void produceKeyed(KafkaProducer<byte[], byte[]> producer, String topic, int from, int count)
            throws Exception {
        for (int i = from; i < from + count; i++) {
            String value = "v-" + i + "-" + "x".repeat(10_000);
            producer.send(new ProducerRecord<>(topic, 0, ("key-" + i % 50).getBytes(StandardCharsets.UTF_8),
                    value.getBytes(StandardCharsets.UTF_8)));
        }
        producer.flush();
    }

    private static Map<String, String> latestPerKey(String bootstrap, String topic) {
        Map<String, String> latest = new HashMap<>();
        TopicContent.read(bootstrap, topic, DEADLINE).partitions().values()
                .forEach(entries -> entries.forEach(e -> latest.put(e.key(), e.value().split("-")[1])));
        return latest;
    }

    /**
     * A source topic deleted and recreated under the same name gets a new topic id and starts its
     * offsets again at 0. Its records used to be taken for duplicates of the old topic's (offsets
     * the destination had written) and dropped without a word. Now each batch carries the topic id:
     * the destination replicates the new incarnation from its first record and, with the default
     * {@code topic.recreation.policy=continue}, writes it after the old one's records.
     */
    @Test
    @Order(4)
    void aTopicDeletedAndRecreatedIsReplicatedAsANewIncarnation() throws Exception {
        String topic = "demo.recreated";
        String replica = "A." + topic;
        env.deploySink(Map.of()); // offset.gap.policy back to the default, fail
        env.connectB().awaitRunning(ReplicationEnvironment.SINK_CONNECTOR, 2, DEADLINE);
        env.siteA().createTopic(topic, 1);
        try (KafkaProducer<byte[], byte[]> producer = plain(); Admin admin = env.siteA().admin()) {
            produce(producer, topic, "old", 300);
            await("the old topic's 300 records arrive")
                    .atMost(DEADLINE).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                    .until(() -> values(replica, 0).size() == 300);
            admin.deleteTopics(List.of(topic)).all().get();
            await(topic + " is gone at the source")
                    .atMost(DEADLINE).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                    .until(() -> !admin.listTopics().names().get().contains(topic));
            env.siteA().createTopic(topic, 1);
            produce(producer, topic, "new", 100); // offsets 0..99 again
        }
        await("the new topic's 100 records follow the old ones")
                .atMost(DEADLINE).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                .until(() -> values(replica, 0).size() >= 400);
        List<String> values = values(replica, 0);
        assertThat(values).as("old then new, each in order, once").containsExactlyElementsOf(
                IntStream.concat(IntStream.range(0, 300), IntStream.range(300, 400))
                        .mapToObj(i -> i < 300 ? "old-" + i : "new-" + (i - 300)).toList());
        double recreations = JmxReader.sum(env.siteB().requireWorker().process().pid(),
                "kafka.connect:type=plugins,connector=" + ReplicationEnvironment.SINK_CONNECTOR
                        + ",topic=" + topic + ",partition=0,*", "topic-recreations-total");
        assertThat(recreations).as("topic-recreations-total of demo.recreated-0").isEqualTo(1.0);
        assertThat(env.connectB().status(ReplicationEnvironment.SINK_CONNECTOR).firstFailure()).isNull();
        assertThat(env.connectA().status(ReplicationEnvironment.SOURCE_CONNECTOR).firstFailure()).isNull();
    }

    /**
     * A destination topic deleted while the connector writes it (auto-creation is off at the
     * destination broker, as in production). Connect's producer waits for the missing topic; the next
     * metadata the source sends (every {@code topic.metadata.refresh.interval.ms}, 30 s) makes it
     * again with the origin's partition count and configs, on a thread of its own, since the task's
     * thread is the one waiting. The records produced after the deletion arrive, once each and in
     * order; those written before went with the topic.
     */
    @Test
    @Order(5)
    void aDestinationTopicDeletedUnderTheRunningConnectorIsMadeAgainAndReplicationGoesOn() throws Exception {
        String topic = "demo.dst-deleted";
        String replica = "A." + topic;
        env.deploySink(Map.of());
        env.connectB().awaitRunning(ReplicationEnvironment.SINK_CONNECTOR, 2, DEADLINE);
        env.siteA().createTopic(topic, 2, Map.of("retention.ms", "7200000"));
        try (KafkaProducer<byte[], byte[]> producer = plain(); Admin adminB = env.siteB().admin()) {
            produce(producer, topic, "before", 200);
            await("the first 200 records arrive")
                    .atMost(DEADLINE).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                    .until(() -> values(replica, 0).size() == 200);
            adminB.deleteTopics(List.of(replica)).all().get();
            await(replica + " is gone at the destination")
                    .atMost(DEADLINE).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                    .until(() -> !adminB.listTopics().names().get().contains(replica));
            produce(producer, topic, "after", 100);
            await(replica + " made again with the 100 records produced after the deletion")
                    .atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                    .until(() -> adminB.listTopics().names().get().contains(replica) && values(replica, 0).size() >= 100);
            assertThat(values(replica, 0)).as("the records after the deletion, in order, once")
                    .containsExactlyElementsOf(IntStream.range(0, 100).mapToObj(i -> "after-" + i).toList());
            assertThat(adminB.describeTopics(List.of(replica)).allTopicNames().get().get(replica).partitions())
                    .as("the origin's partition count").hasSize(2);
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, replica);
            assertThat(adminB.describeConfigs(List.of(resource)).all().get().get(resource).get("retention.ms")
                    .value()).isEqualTo("7200000");
        }
        assertThat(JmxReader.sum(env.siteB().requireWorker().process().pid(), "kafka.connect:type=plugins,connector="
                + ReplicationEnvironment.SINK_CONNECTOR + ",*", "destination-topics-recreated-total"))
                .as("destination-topics-recreated-total").isGreaterThanOrEqualTo(1.0);
        assertThat(env.connectB().status(ReplicationEnvironment.SINK_CONNECTOR).firstFailure()).isNull();
        assertThat(env.connectA().status(ReplicationEnvironment.SOURCE_CONNECTOR).firstFailure()).isNull();
    }

    /**
     * A batch the destination refuses for good (here: a topic its {@code topics.allow} leaves out,
     * while another topic flows) follows Connect's error conventions: by default the source task
     * fails naming topic, partition, source offsets and the destination's reason; with
     * {@code errors.tolerance=all} and a dead letter queue the refused records go to the queue, a skip
     * marker takes each refused batch's place, and the other topic's records all arrive, once and in
     * order, while the task stays RUNNING.
     */
    @Test
    @Order(5)
    void aBatchTheDestinationRefusesForGoodFailsTheTaskOrGoesToTheDeadLetterQueue() throws Exception {
        String refused = "demo.refused";
        String flowing = "demo.flowing";
        String deadLetters = "jetstream-source-refused-dlq";
        env.deploySink(Map.of("topics.allow", "demo\\.(?!refused$).*"));
        env.connectB().awaitRunning(ReplicationEnvironment.SINK_CONNECTOR, 2, DEADLINE);
        env.siteA().createTopic(refused, 1);
        env.siteA().createTopic(flowing, 2);
        env.siteA().createTopic(deadLetters, 1);
        try (KafkaProducer<byte[], byte[]> producer = plain()) {
            produce(producer, refused, "refused", 50); // offsets 0..49
            String failure = await("the source task fails on the refused batch").atMost(DEADLINE).ignoreExceptions()
                    .until(() -> env.connectA().status(ReplicationEnvironment.SOURCE_CONNECTOR).firstFailure(), Objects::nonNull);
            assertThat(failure).contains("demo.refused-0 (source offsets 0..").contains("NOT_AUTHORIZED")
                    .contains("topics.allow").contains("errors.tolerance=all");

            env.deploySource(Map.of("errors.tolerance", "all", "errors.deadletterqueue.topic.name", deadLetters,
                    "errors.deadletterqueue.topic.replication.factor", "1",
                    "errors.deadletterqueue.context.headers.enable", "true"));
            for (int i = 0; i < 600; i++) {
                producer.send(new ProducerRecord<>(flowing, i % 2, ("k" + i).getBytes(StandardCharsets.UTF_8),
                        ("flowing-" + i).getBytes(StandardCharsets.UTF_8)));
                if (i % 10 == 0) {
                    producer.send(new ProducerRecord<>(refused, 0, null,
                            ("refused-" + (50 + i / 10)).getBytes(StandardCharsets.UTF_8)));
                }
                if (i % 100 == 0) {
                    producer.flush(); // several batches of each topic
                }
            }
            producer.flush();
        }
        try {
            String replica = "A." + flowing;
            await("every record of " + flowing + " arrives")
                    .atMost(DEADLINE).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                    .until(() -> values(replica, 0).size() >= 300 && values(replica, 1).size() >= 300);
            for (int partition = 0; partition < 2; partition++) {
                int first = partition;
                assertThat(values(replica, partition)).as("partition %d in order, once", partition)
                        .containsExactlyElementsOf(IntStream.range(0, 300).map(i -> 2 * i + first)
                                .mapToObj(i -> "flowing-" + i).toList());
            }
            List<String> expected = IntStream.range(0, 110).mapToObj(i -> "refused-" + i).toList();
            await("every refused record is in the dead letter queue")
                    .atMost(DEADLINE).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                    .until(() -> deadLetterValues(deadLetters).containsAll(expected));
            assertThat(deadLetterValues(deadLetters)).as("only the refused records").allMatch(v -> v.startsWith(
                    "refused-"));
            env.connectA().awaitRunning(ReplicationEnvironment.SOURCE_CONNECTOR, 1, DEADLINE);
            assertThat(sourceMetric("skipped-refused-records-total")).isGreaterThanOrEqualTo(110.0);
            assertThat(JmxReader.sum(env.siteB().requireWorker().process().pid(), "kafka.connect:type=plugins,"
                    + "connector=" + ReplicationEnvironment.SINK_CONNECTOR + ",*", "skipped-at-source-records-total"))
                    .as("skipped-at-source-records-total").isGreaterThanOrEqualTo(110.0);
        } finally {
            env.deploySink(Map.of()); // allows demo.refused again first: the source may re-read some of it
            env.deploySource(Map.of());
        }
    }

    private static List<String> deadLetterValues(String topic) {
        return TopicContent.read(env.siteA().bootstrapServers(), topic, DEADLINE).partitions()
                .getOrDefault(0, List.of()).stream().map(TopicContent.Entry::value).toList();
    }

    @Test
    @Order(6)
    void anOffsetResetPastUnreplicatedRecordsIsDetectedAfterTheAssignment() throws Exception {
        String topic = "demo.reset";
        String replica = "A." + topic;
        String group = "connect-" + ReplicationEnvironment.SOURCE_CONNECTOR;
        env.deploySink(Map.of()); // offset.gap.policy back to the default, fail
        env.connectB().awaitRunning(ReplicationEnvironment.SINK_CONNECTOR, 2, DEADLINE);
        env.siteA().createTopic(topic, 1);
        try (KafkaProducer<byte[], byte[]> producer = plain(); Admin admin = env.siteA().admin()) {
            produce(producer, topic, "before", 300);
            await("the first 300 records arrive")
                    .atMost(DEADLINE).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                    .until(() -> values(replica, 0).size() == 300);
            env.connectA().deleteConnector(ReplicationEnvironment.SOURCE_CONNECTOR);
            await("the source connector's consumer group is empty")
                    .atMost(DEADLINE).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                    .until(() -> admin.describeConsumerGroups(List.of(group)).all().get().get(group).members().isEmpty());
            produce(producer, topic, "skipped", 300); // offsets 300..599
            produce(producer, topic, "after", 100); // offsets 600..699
            admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(topic, 0),
                    new OffsetAndMetadata(600))).all().get();
            env.deploySource(Map.of());
        }
        String failure = await("a destination task fails on the gap").atMost(DEADLINE).ignoreExceptions()
                .until(() -> env.connectB().status(ReplicationEnvironment.SINK_CONNECTOR).firstFailure(), Objects::nonNull);
        assertThat(failure).contains("demo.reset-0").contains("300..599");
        assertThat(values(replica, 0)).as("nothing after the gap is written").hasSize(300);
    }

    private static void produce(KafkaProducer<byte[], byte[]> producer, String topic, String prefix, int count)
            throws Exception {
        for (int i = 0; i < count; i++) {
            producer.send(new ProducerRecord<>(topic, 0, ("k" + i).getBytes(StandardCharsets.UTF_8),
                    (prefix + "-" + i).getBytes(StandardCharsets.UTF_8)));
        }
        producer.flush();
    }

    private static KafkaProducer<byte[], byte[]> plain() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, env.siteA().bootstrapServers());
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static List<String> values(String topic, int partition) {
        return TopicContent.read(env.siteB().bootstrapServers(), topic, DEADLINE).partitions()
                .getOrDefault(partition, List.of()).stream().map(TopicContent.Entry::value).toList();
    }

    private static KafkaProducer<byte[], byte[]> transactional(String id) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, env.siteA().bootstrapServers());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer());
        producer.initTransactions();
        return producer;
    }

    /** {@code count} records of one transaction, spread over the three partitions. */
    private static void send(KafkaProducer<byte[], byte[]> producer, String topic, String who, int round, int count) {
        for (int i = 0; i < count; i++) {
            producer.send(record(topic, (round + i) % 3, who, round, i));
        }
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, int partition, String who, int round, int i) {
        String id = who + "-" + round + "-" + i;
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, partition,
                TIMESTAMP_BASE + round * 1_000L + i, ("key-" + i % 7).getBytes(StandardCharsets.UTF_8),
                id.getBytes(StandardCharsets.UTF_8));
        record.headers().add(new RecordHeader("who", who.getBytes(StandardCharsets.UTF_8)));
        record.headers().add(new RecordHeader("round", Integer.toString(round).getBytes(StandardCharsets.UTF_8)));
        return record;
    }
}
