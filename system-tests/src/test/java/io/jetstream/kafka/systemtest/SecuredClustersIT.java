package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.testkit.replication.RelayNode;
import io.jetstream.kafka.testkit.replication.ReplicationEnvironment;
import io.jetstream.kafka.testkit.site.ConfigValidation;
import io.jetstream.kafka.testkit.site.SaslSslListener;
import io.jetstream.kafka.testkit.site.Site;
import io.jetstream.kafka.testkit.workload.ProducedLog;
import io.jetstream.kafka.testkit.workload.VerificationReport;
import io.jetstream.kafka.testkit.workload.Verifier;
import io.jetstream.kafka.testkit.workload.Workload;
import io.jetstream.kafka.testkit.workload.WorkloadSpec;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.provider.FileConfigProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Replication between two secured sites, as on a platform team's own clusters: each broker has a
 * SASL_SSL listener (SASL/PLAIN over TLS, certificates made by the test), each Connect worker talks
 * to its broker only through it, and the connectors' own clients (the source's Admin client, the
 * destination's Admin client and read-back consumer) reach it with {@code source.cluster.*} and
 * {@code target.cluster.*} settings, their own user and secrets read by Connect's
 * {@link FileConfigProvider} from a file the connector configs only point at. Every relay link
 * (connector to relay, relay to relay) is mutual TLS.
 *
 * <p>The brokers keep a PLAINTEXT listener for this test's own producers, verifiers and admin calls
 * only; JetStream and Connect never see its address (a client bootstrapped on the SASL_SSL listener
 * is handed only that listener's address in metadata).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecuredClustersIT {

    private static final Duration VERIFY_DEADLINE = Duration.ofSeconds(180);
    private static final String WORKER_USER = "connect";
    private static final String CONNECTOR_USER = "jetstream";
    /** Per run, so that finding one in a log or a stored config means it leaked. */
    private static final String CONNECTOR_PASSWORD = "jaas-" + UUID.randomUUID();
    private static final String STORE_PASSWORD = "store-" + UUID.randomUUID();
    /** The destination connector's default sync.topic.configs.exclude (MirrorMaker 2's list). */
    private static final String NEVER_SYNCED = "follower\\.replication\\.throttled\\.replicas"
            + "|leader\\.replication\\.throttled\\.replicas|message\\.timestamp\\.difference\\.max\\.ms"
            + "|message\\.timestamp\\.type|unclean\\.leader\\.election\\.enable|min\\.insync\\.replicas";

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    static Path workDir;

    private static ReplicationEnvironment env;
    private static Path secrets;

    @BeforeAll
    static void start() throws Exception {
        TestPki pki = new TestPki(workDir.resolve("pki"));
        Map<String, String> users = Map.of(WORKER_USER, "worker-" + UUID.randomUUID(),
                CONNECTOR_USER, CONNECTOR_PASSWORD);
        SaslSslListener listenerA = pki.saslSslListener("A", STORE_PASSWORD, users);
        SaslSslListener listenerB = pki.saslSslListener("B", STORE_PASSWORD, users);
        secrets = writeSecrets(workDir.resolve("secrets.properties"), Map.of(
                "source.jaas", listenerA.jaasConfig(CONNECTOR_USER),
                "target.jaas", listenerB.jaasConfig(CONNECTOR_USER),
                "truststore.password", STORE_PASSWORD));
        ReplicationEnvironment.Builder builder = ReplicationEnvironment.builder(workDir)
                .routes(1)
                .oneWayDelay(Duration.ofMillis(10))
                .exactlyOnce(true)
                .relayTls(pki.relayTls())
                .sites(a -> secured(a, listenerA), b -> secured(b, listenerB))
                // Source metadata (partition counts, configs) is re-read every 2 s, not 30 s.
                .sourceConnector("topic.metadata.refresh.interval.ms", "2000")
                // The destination keeps its own message size limit, besides the configs never synced.
                .sinkConnector("sync.topic.configs.exclude", NEVER_SYNCED + "|max\\.message\\.bytes");
        clusterSecurity("source.cluster.", "source.jaas", listenerA).forEach(builder::sourceConnector);
        clusterSecurity("target.cluster.", "target.jaas", listenerB).forEach(builder::sinkConnector);
        env = builder.start();
        env.awaitConnectorsRunning(Duration.ofSeconds(120));
    }

    private static void secured(Site.Builder site, SaslSslListener listener) {
        site.saslSsl(listener, WORKER_USER)
                .workerProperty("config.providers", "file")
                .workerProperty("config.providers.file.class", FileConfigProvider.class.getName());
    }

    /** The connector keys of one cluster, as a user writes them: secrets only as config-provider placeholders. */
    private static Map<String, String> clusterSecurity(String prefix, String jaasSecret, SaslSslListener listener) {
        Map<String, String> keys = new HashMap<>();
        keys.put(prefix + "security.protocol", "SASL_SSL");
        keys.put(prefix + "sasl.mechanism", "PLAIN");
        keys.put(prefix + "sasl.jaas.config", "${file:" + secrets + ":" + jaasSecret + "}");
        keys.put(prefix + "ssl.truststore.location", listener.trustStore().toString());
        keys.put(prefix + "ssl.truststore.type", "PKCS12");
        keys.put(prefix + "ssl.truststore.password", "${file:" + secrets + ":truststore.password}");
        return keys;
    }

    private static Path writeSecrets(Path file, Map<String, String> values) throws Exception {
        Properties properties = new Properties();
        properties.putAll(values);
        try (OutputStream out = Files.newOutputStream(file)) {
            properties.store(out, "Secrets of SecuredClustersIT, read by Connect's FileConfigProvider");
        }
        return file;
    }

    @AfterAll
    static void stop() {
        if (env != null) {
            env.close();
        }
    }

    private static ProducedLog produce(String topic, int partitions, int records) {
        return new Workload(WorkloadSpec.builder(topic, partitions)
                .records(records)
                .valueBytes(256)
                .nullKeyEvery(7)
                .extraHeaders(2)
                .compressionType("lz4")
                .build(), env.siteA().bootstrapServers()).run();
    }

    private static VerificationReport verify(ProducedLog log) {
        VerificationReport report = Verifier.builder(env.siteB().bootstrapServers())
                .topicMapping(topic -> "A." + topic)
                .samePartitions(true)
                .deadline(VERIFY_DEADLINE)
                .build()
                .verify(log);
        if (!report.isPerfect() || report.duplicates() != 0) {
            String diagnostics = env.diagnostics();
            LoggerFactory.getLogger(SecuredClustersIT.class).error("verification failed: {}{}", report, diagnostics);
            assertThat(report.isPerfect()).as(report + diagnostics).isTrue();
        }
        assertThat(report.duplicates()).as(report.toString()).isZero();
        return report;
    }

    private static String destinationConfig(Admin admin, String topic, String key) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        return admin.describeConfigs(List.of(resource)).all().get().get(resource).get(key).value();
    }

    @Test
    @Order(1)
    void replicatesAndCreatesTopicsThroughSaslSslAndMutualTls() throws Exception {
        env.siteA().createTopic("demo.secured", 3, Map.of("retention.ms", "3600000", "max.message.bytes", "2000000"));
        assertThat(verify(produce("demo.secured", 3, 20_000)).delivered()).isEqualTo(20_000);
        // Created by the destination connector's Admin client over SASL_SSL, from the metadata its
        // source twin read over SASL_SSL: the origin's partition count and configs, but those the
        // connector excludes.
        try (Admin admin = env.siteB().admin()) {
            assertThat(admin.describeTopics(List.of("A.demo.secured")).allTopicNames().get()
                    .get("A.demo.secured").partitions()).hasSize(3);
            assertThat(destinationConfig(admin, "A.demo.secured", "retention.ms")).isEqualTo("3600000");
            // Excluded by this connector's sync.topic.configs.exclude: the destination broker's default.
            assertThat(destinationConfig(admin, "A.demo.secured", "max.message.bytes")).isNotEqualTo("2000000");
        }
        // Every relay link is TLS with client certificates: the relays saw no failed handshakes.
        for (RelayNode relay : env.relays().values()) {
            assertThat(relay.metrics().errors(ErrorKind.TLS_HANDSHAKE).get()).as(relay.id()).isZero();
        }
    }

    @Test
    @Order(2)
    void topicConfigChangesAndNewPartitionsFollowTheOrigin() throws Exception {
        env.siteA().createTopic("demo.secured.grow", 2, Map.of("retention.ms", "3600000"));
        ProducedLog before = produce("demo.secured.grow", 2, 4_000);
        verify(before);
        try (Admin admin = env.siteA().admin()) {
            ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "demo.secured.grow");
            admin.incrementalAlterConfigs(Map.of(topic, List.of(new AlterConfigOp(
                    new ConfigEntry("retention.ms", "7200000"), AlterConfigOp.OpType.SET)))).all().get();
        }
        env.siteA().addPartitions("demo.secured.grow", 4);
        try (Admin admin = env.siteB().admin()) {
            await("A.demo.secured.grow with retention.ms=7200000 and 4 partitions")
                    .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                    .until(() -> "7200000".equals(destinationConfig(admin, "A.demo.secured.grow",
                            "retention.ms")) && admin.describeTopics(List.of("A.demo.secured.grow")).allTopicNames()
                            .get().get("A.demo.secured.grow").partitions().size() == 4);
        }
        verify(produce("demo.secured.grow", 4, 6_000));
    }

    @Test
    @Order(3)
    void secretsStayPlaceholdersInStoredConfigsAndNeverReachTheWorkerLogs() throws Exception {
        Map<String, String> stored = env.connectA().connectorConfig(ReplicationEnvironment.SOURCE_CONNECTOR);
        assertThat(stored.get("source.cluster.sasl.jaas.config")).startsWith("${file:");
        List<Collection<String>> taskConfigs = List.of(
                values(env.connectA().taskConfigs(ReplicationEnvironment.SOURCE_CONNECTOR)),
                values(env.connectB().taskConfigs(ReplicationEnvironment.SINK_CONNECTOR)));
        for (Collection<String> values : taskConfigs) {
            assertThat(values).isNotEmpty()
                    .noneMatch(v -> v.contains(CONNECTOR_PASSWORD) || v.contains(STORE_PASSWORD));
        }
        for (Site site : List.of(env.siteA(), env.siteB())) {
            String log = Files.readString(site.requireWorker().process().logFile());
            assertThat(log).as(site.name() + " worker log").contains("over SASL_SSL (PLAIN)")
                    .doesNotContain(CONNECTOR_PASSWORD).doesNotContain(STORE_PASSWORD);
        }
    }

    private static Collection<String> values(Map<Integer, Map<String, String>> tasks) {
        return tasks.values().stream().flatMap(t -> t.values().stream()).toList();
    }

    @Test
    @Order(4)
    void validationResolvesConfigProvidersAndNamesTheSecurityKey() throws Exception {
        Map<String, String> sink = new HashMap<>(env.connectB().connectorConfig(ReplicationEnvironment.SINK_CONNECTOR));
        ConfigValidation valid = env.connectB().validate(sink.get("connector.class"), sink);
        assertThat(valid.errorsByKey()).isEmpty();

        sink.put("target.cluster.ssl.truststore.location", workDir.resolve("missing.p12").toString());
        sink.put("target.cluster.sasl.jass.config", "typo");
        ConfigValidation invalid = env.connectB().validate(sink.get("connector.class"), sink);
        assertThat(invalid.errorsFor("target.cluster.ssl.truststore.location"))
                .anyMatch(m -> m.contains("not a readable file"));
        assertThat(invalid.errorsFor("target.cluster.sasl.jass.config"))
                .anyMatch(m -> m.contains("not a setting of Kafka's clients"));
        assertThat(invalid.errorsFor("target.cluster.sasl.jaas.config")).isEmpty();

        sink.put("target.cluster.security.protocol", "SASL_TLS");
        assertThat(env.connectB().validate(sink.get("connector.class"), sink)
                .errorsFor("target.cluster.security.protocol")).anyMatch(m -> m.contains("SASL_TLS"));
    }
}
