package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.jetstream.kafka.core.offsets.GroupOffsetTranslation;
import io.jetstream.kafka.core.offsets.GroupOffsetTranslation.Direction;
import io.jetstream.kafka.core.offsets.GroupOffsetTranslation.Row;
import io.jetstream.kafka.core.offsets.OffsetMapReader;
import io.jetstream.kafka.core.offsets.OffsetTranslator;
import io.jetstream.kafka.testkit.replication.ReplicationEnvironment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
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
 * A consumer group moves between the sites through the exact offset map: it consumes part of
 * several partitions at site A and commits; A's connector is stopped; its positions are translated
 * and committed at B, where the same group continues on the replicas, then (planned failback) its
 * positions at B are translated back and it continues at A. At each move no record is skipped and
 * none is read twice, although origin and destination offsets differ: the origin topic is written
 * in transactions, some aborted (markers and aborted records take origin offsets), and the
 * destination's own transaction markers take destination offsets.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsumerGroupFailoverIT {

    private static final Duration DEADLINE = Duration.ofSeconds(120);
    private static final String TOPIC = "demo.orders";
    private static final String REPLICA = "A.demo.orders";
    private static final String GROUP = "orders-app";
    private static final int PARTITIONS = 3;

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    static Path workDir;

    private static ReplicationEnvironment env;

    @BeforeAll
    static void start() throws Exception {
        env = ReplicationEnvironment.builder(workDir).routes(1).oneWayDelay(Duration.ofMillis(5)).exactlyOnce(true)
                .start();
        env.awaitConnectorsRunning(Duration.ofSeconds(90));
    }

    @AfterAll
    static void stop() {
        if (env != null) {
            env.close();
        }
    }

    /**
     * Checkpoints with group offset sync on: the group's positions at A reach the idle group at B by
     * themselves, translated exactly, while replication runs.
     */
    @Test
    @Order(1)
    void anIdleGroupAtTheDestinationIsSyncedToItsTranslatedPositions() throws Exception {
        String topic = "demo.synced";
        String group = "synced-app";
        Map<String, String> config = new HashMap<>(env.connectB().connectorConfig(ReplicationEnvironment.SINK_CONNECTOR));
        config.put("emit.checkpoints.enabled", "true");
        config.put("emit.checkpoints.interval.ms", "2000");
        config.put("sync.group.offsets.enabled", "true");
        config.put("sync.group.offsets.interval.ms", "2000");
        config.put("groups", "synced-.*");
        config.put("source.cluster.bootstrap.servers", env.siteA().bootstrapServers());
        env.connectB().putConnectorConfig(ReplicationEnvironment.SINK_CONNECTOR, config);
        env.siteA().createTopic(topic, PARTITIONS);
        produceInTransactions(env.siteA().bootstrapServers(), topic, 20, 30);
        TopicContent origin = TopicContent.read(env.siteA().bootstrapServers(), topic, DEADLINE);
        await("the destination holds every committed record")
                .atMost(DEADLINE).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                .until(() -> replicaExists("A." + topic) && TopicContent.read(env.siteB().bootstrapServers(), "A." + topic,
                        DEADLINE).size() >= origin.size());

        Map<Integer, Integer> firstStint = Map.of(0, 13, 1, 70, 2, 1);
        consume(env.siteA().bootstrapServers(), group, topic, firstStint);
        await("the group's translated positions are committed at B")
                .atMost(DEADLINE).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                .until(() -> {
                    try (Admin admin = env.siteB().admin()) {
                        return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().size() == PARTITIONS;
                    }
                });
        Map<Integer, Integer> rest = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            rest.put(p, origin.partitions().get(p).size() - firstStint.get(p));
        }
        Map<Integer, List<String>> readAtB = consume(env.siteB().bootstrapServers(), group, "A." + topic, rest);
        assertReadExactly(origin, readAtB, firstStint, rest);
    }

    @Test
    @Order(2)
    void aGroupFailsOverToTheDestinationAndBackWithoutSkippingOrRereadingARecord() throws Exception {
        env.siteA().createTopic(TOPIC, PARTITIONS);
        produceInTransactions(env.siteA().bootstrapServers(), TOPIC, 40, 30);
        TopicContent origin = TopicContent.read(env.siteA().bootstrapServers(), TOPIC, DEADLINE);
        assertThat(origin.size()).isEqualTo(32 * 30); // 8 of 40 transactions aborted
        await("the destination holds every committed record")
                .atMost(DEADLINE).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                .until(() -> replicaExists(REPLICA) && TopicContent.read(env.siteB().bootstrapServers(), REPLICA, DEADLINE).size()
                        >= origin.size());
        TopicContent replica = TopicContent.read(env.siteB().bootstrapServers(), REPLICA, DEADLINE);
        assertThat(origin.firstDifference(replica)).isNull();
        OffsetMapCheck.assertExact(env.siteB().bootstrapServers(), "A", TOPIC, origin, replica);

        // The application consumes part of each partition at A and commits what it processed.
        Map<Integer, Integer> firstStint = Map.of(0, 37, 1, 150, 2, 1);
        Map<Integer, List<String>> readAtA = consume(env.siteA().bootstrapServers(), GROUP, TOPIC, firstStint);
        assertReadExactly(origin, readAtA, Map.of(0, 0, 1, 0, 2, 0), firstStint);

        // Site A's connector stops (A is going away); the group's positions move to B.
        env.connectA().stop(ReplicationEnvironment.SOURCE_CONNECTOR);
        List<Row> failover = move(Direction.TO_DESTINATION);
        assertThat(failover).hasSize(PARTITIONS).allMatch(row -> row.translation().exact());
        assertThat(failover).anyMatch(row -> row.translation().offset() != row.fromOffset());

        Map<Integer, Integer> secondStint = Map.of(0, 100, 1, 20, 2, 200);
        Map<Integer, List<String>> readAtB = consume(env.siteB().bootstrapServers(), GROUP, REPLICA, secondStint);
        assertReadExactly(origin, readAtB, firstStint, secondStint);

        // Planned failback: the group's positions at B move back to A, and it reads the rest there.
        List<Row> failback = move(Direction.TO_ORIGIN);
        assertThat(failback).hasSize(PARTITIONS).allMatch(row -> row.translation().exact());
        Map<Integer, Integer> done = new HashMap<>();
        Map<Integer, Integer> rest = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            done.put(p, firstStint.get(p) + secondStint.get(p));
            rest.put(p, origin.partitions().get(p).size() - done.get(p));
        }
        Map<Integer, List<String>> readBackAtA = consume(env.siteA().bootstrapServers(), GROUP, TOPIC, rest);
        assertReadExactly(origin, readBackAtA, done, rest);
    }

    private static boolean replicaExists(String replica) throws Exception {
        try (Admin admin = env.siteB().admin()) {
            return admin.listTopics().names().get().contains(replica);
        }
    }

    /** Translates the group's committed positions and commits them on the other side. */
    private static List<Row> move(Direction direction) throws Exception {
        Map<TopicPartition, OffsetTranslator> map = OffsetMapReader.read(
                Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, env.siteB().bootstrapServers()),
                OffsetMapCheck.MAP_TOPIC, p -> p.sourceAlias().equals("A") && p.topic().equals(TOPIC), DEADLINE);
        boolean toDestination = direction == Direction.TO_DESTINATION;
        try (Admin from = toDestination ? env.siteA().admin() : env.siteB().admin();
             Admin to = toDestination ? env.siteB().admin() : env.siteA().admin()) {
            Uuid topicId;
            try (Admin origin = env.siteA().admin()) {
                topicId = GroupOffsetTranslation.originTopicId(origin, TOPIC, DEADLINE);
            }
            List<Row> rows = GroupOffsetTranslation.translate(from, topicId, GROUP, TOPIC, map, direction, DEADLINE);
            GroupOffsetTranslation.commit(to, GROUP, rows, DEADLINE);
            return rows;
        }
    }

    /** Every partition's records {@code from .. from + count - 1} (by index among the committed records). */
    private static void assertReadExactly(TopicContent origin, Map<Integer, List<String>> read,
                                          Map<Integer, Integer> from, Map<Integer, Integer> count) {
        for (int p = 0; p < PARTITIONS; p++) {
            List<String> expected = origin.partitions().get(p).subList(from.get(p), from.get(p) + count.get(p))
                    .stream().map(TopicContent.Entry::value).toList();
            assertThat(read.get(p)).as("partition %d, records %d..", p, from.get(p)).isEqualTo(expected);
        }
    }

    /**
     * Transactions of {@code perTransaction} records spread over the partitions; every fifth is
     * aborted. Values name the transaction and record.
     */
    private static void produceInTransactions(String bootstrap, String topic, int transactions, int perTransaction) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "failover-it-" + topic);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.initTransactions();
            for (int t = 0; t < transactions; t++) {
                producer.beginTransaction();
                for (int i = 0; i < perTransaction; i++) {
                    String value = "t" + t + "-r" + i;
                    producer.send(new ProducerRecord<>(topic, (t + i) % PARTITIONS, null,
                            value.getBytes(StandardCharsets.UTF_8)));
                }
                if (t % 5 == 4) {
                    producer.abortTransaction();
                } else {
                    producer.commitTransaction();
                }
            }
        }
    }

    /**
     * The application: a {@code read_committed} member of {@code group} that processes {@code count}
     * more records of each partition from the group's committed position (or the beginning), commits
     * the position after the last one it processed and leaves. Returns the values it processed.
     */
    private static Map<Integer, List<String>> consume(String bootstrap, String group, String topic,
                                                      Map<Integer, Integer> count) throws Exception {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "50");
        Map<Integer, List<String>> processed = new TreeMap<>();
        Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            processed.put(p, new ArrayList<>());
        }
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            await("the group processed " + count + " records of " + topic)
                    .atMost(DEADLINE).pollInterval(Duration.ofMillis(1)).pollInSameThread().ignoreExceptions()
                    .until(() -> {
                        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                            List<String> mine = processed.get(record.partition());
                            if (mine.size() < count.get(record.partition())) {
                                mine.add(new String(record.value(), StandardCharsets.UTF_8));
                                positions.put(new TopicPartition(topic, record.partition()),
                                        new OffsetAndMetadata(record.offset() + 1));
                            }
                        }
                        return processed.entrySet().stream().allMatch(e -> e.getValue().size() >= count.get(e.getKey()));
                    });
            consumer.commitSync(positions);
        }
        return processed;
    }
}
