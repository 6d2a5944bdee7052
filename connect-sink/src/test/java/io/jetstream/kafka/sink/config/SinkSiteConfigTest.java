package io.jetstream.kafka.sink.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.connect.common.config.ConfigDocs;
import io.jetstream.kafka.sink.SinkSiteConnector;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import io.jetstream.kafka.sink.topics.DestinationTopics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.junit.jupiter.api.Test;

public class SinkSiteConfigTest {

    static final Path DOC = Path.of("..", "docs", "sink-connector-config.md");

    public static Map<String, String> valid() {
        Map<String, String> props = new HashMap<>();
        props.put("source.cluster.alias", "A");
        props.put("target.cluster.alias", "B");
        props.put("target.cluster.bootstrap.servers", "127.0.0.1:9192");
        props.put("relays", "127.0.0.1:7070");
        props.put("stream.token", "a-token-of-sixteen-chars");
        props.put("relay.tls.enabled", "false");
        return props;
    }

    @Test
    void namingPolicies() {
        SinkSiteConfig config = new SinkSiteConfig(valid());
        TopicNamingPolicy prefix = config.topicNamingPolicy();
        assertThat(prefix.destinationTopic("orders")).isEqualTo("A.orders");
        assertThat(prefix.isReplicaFrom("B.orders", "B")).isTrue();
        assertThat(prefix.isReplicaFrom("orders", "B")).isFalse();

        Map<String, String> identity = valid();
        identity.put("topic.naming.policy", "identity");
        assertThat(new SinkSiteConfig(identity).topicNamingPolicy().destinationTopic("orders")).isEqualTo("orders");

        Map<String, String> custom = valid();
        custom.put("topic.naming.policy", UpperCaseNaming.class.getName());
        assertThat(new SinkSiteConfig(custom).topicNamingPolicy().destinationTopic("orders")).isEqualTo("ORDERS");
    }

    @Test
    void schemaTranslationNeedsARegistryAndTakesTheStrategies() {
        Map<String, String> props = valid();
        assertThat(new SinkSiteConfig(props).schemaTranslation()).as("off by default").isFalse();
        props.put("schema.translation.enabled", "true");
        assertThatThrownBy(() -> new SinkSiteConfig(props)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("schema.registry.url");
        assertThat(SinkSiteConfig.crossFieldErrors(props)).containsKey("schema.registry.url");

        props.put("schema.registry.url", "http://registry-b:8081/apis/ccompat/v7");
        props.put("schema.value.subject.name.strategy", "io.confluent.kafka.serializers.subject.RecordNameStrategy");
        SinkSiteConfig config = new SinkSiteConfig(props);
        assertThat(config.schemaTranslation()).isTrue();
        assertThat(config.schemaRegistry().urls()).hasSize(1);
        assertThat(config.valueSubjectStrategy()).isEqualTo(io.jetstream.kafka.schema.SubjectNameStrategy.RECORD);
        assertThat(config.keySubjectStrategy()).isEqualTo(io.jetstream.kafka.schema.SubjectNameStrategy.TOPIC);
    }

    /** A user's naming policy. */
    public static final class UpperCaseNaming implements TopicNamingPolicy {
        @Override
        public String destinationTopic(String originTopic) {
            return originTopic.toUpperCase();
        }
    }

    @Test
    void byDefaultEveryTopicButInternalOnesIsAllowed() {
        Map<String, String> props = valid();
        props.remove("topics.allow");
        java.util.regex.Pattern allow = new SinkSiteConfig(props).topicsAllow();
        assertThat(java.util.List.of("orders", "demo.events", "payments-v2", "internal.orders", "a_b"))
                .allMatch(topic -> allow.matcher(topic).matches());
        assertThat(java.util.List.of("__consumer_offsets", "__transaction_state", "mm2-offsets.A.internal",
                "connect-configs-internal", "A.checkpoints.internal", "orders.replica"))
                .noneMatch(topic -> allow.matcher(topic).matches());
    }

    @Test
    void topicConfigsThatDescribeAClusterAreNeverSyncedAndTheListCanGrow() {
        Map<String, String> origin = new java.util.LinkedHashMap<>();
        origin.put("retention.ms", "3600000");
        origin.put("cleanup.policy", "compact");
        origin.put("min.insync.replicas", "2");
        origin.put("message.timestamp.type", "LogAppendTime");
        origin.put("leader.replication.throttled.replicas", "*");
        origin.put("unclean.leader.election.enable", "true");
        java.util.regex.Pattern byDefault = new SinkSiteConfig(valid()).topicConfigsExclude();
        assertThat(DestinationTopics.synced(origin, byDefault.asMatchPredicate()))
                .containsExactly(Map.entry("retention.ms", "3600000"), Map.entry("cleanup.policy", "compact"));

        Map<String, String> props = valid();
        props.put("sync.topic.configs.exclude", SinkSiteConfig.DEFAULT_TOPIC_CONFIGS_EXCLUDE + "|retention\\.ms");
        java.util.regex.Pattern more = new SinkSiteConfig(props).topicConfigsExclude();
        assertThat(DestinationTopics.synced(origin, more.asMatchPredicate()))
                .containsExactly(Map.entry("cleanup.policy", "compact"));

        Map<String, String> bad = valid();
        bad.put("sync.topic.configs.exclude", "retention[");
        assertThatThrownBy(() -> new SinkSiteConfig(bad)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("sync.topic.configs.exclude");
    }

    @Test
    void topicRecreationContinuesByDefaultAndFailsOnlyWhenAsked() {
        assertThat(new SinkSiteConfig(valid()).failOnTopicRecreation()).isFalse();
        Map<String, String> fail = valid();
        fail.put("topic.recreation.policy", "fail");
        assertThat(new SinkSiteConfig(fail).failOnTopicRecreation()).isTrue();
        Map<String, String> unknown = valid();
        unknown.put("topic.recreation.policy", "truncate");
        assertThatThrownBy(() -> new SinkSiteConfig(unknown)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("topic.recreation.policy");
    }

    @Test
    void offsetGapsFailByDefaultAndAreAcceptedOnlyWhenAsked() {
        assertThat(new SinkSiteConfig(valid()).acceptOffsetGaps()).isFalse();
        Map<String, String> accept = valid();
        accept.put("offset.gap.policy", "accept");
        assertThat(new SinkSiteConfig(accept).acceptOffsetGaps()).isTrue();
        Map<String, String> unknown = valid();
        unknown.put("offset.gap.policy", "skip");
        assertThatThrownBy(() -> new SinkSiteConfig(unknown)).hasMessageContaining("offset.gap.policy");
    }

    @Test
    void clusterCallsAreBoundedByTenSecondsUnlessConfigured() {
        assertThat(new SinkSiteConfig(valid()).clusterCallTimeout()).isEqualTo(java.time.Duration.ofSeconds(10));
        Map<String, String> shorter = valid();
        shorter.put("cluster.call.timeout.ms", "2500");
        assertThat(new SinkSiteConfig(shorter).clusterCallTimeout()).isEqualTo(java.time.Duration.ofMillis(2500));
        Map<String, String> zero = valid();
        zero.put("cluster.call.timeout.ms", "0");
        assertThatThrownBy(() -> new SinkSiteConfig(zero)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("cluster.call.timeout.ms");
    }

    @Test
    void errorsNameTheKey() {
        Map<String, String> badPolicy = valid();
        badPolicy.put("topic.naming.policy", "com.example.Missing");
        assertThatThrownBy(() -> new SinkSiteConfig(badPolicy)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("topic.naming.policy");

        Map<String, String> badRegex = valid();
        badRegex.put("topics.allow", "orders(");
        assertThatThrownBy(() -> new SinkSiteConfig(badRegex)).hasMessageContaining("topics.allow");

        Map<String, String> badFactor = valid();
        badFactor.put("create.topics.replication.factor", "0");
        assertThatThrownBy(() -> new SinkSiteConfig(badFactor)).hasMessageContaining("create.topics.replication.factor");

        Map<String, String> noBootstrap = valid();
        noBootstrap.put("target.cluster.bootstrap.servers", "");
        assertThatThrownBy(() -> new SinkSiteConfig(noBootstrap))
                .hasMessageContaining("target.cluster.bootstrap.servers");
    }

    @Test
    void theDestinationClustersSecuritySettingsReachTheConnectorsClients() throws Exception {
        Path truststore = Files.createTempFile("truststore", ".p12");
        try {
            Map<String, String> props = valid();
            props.put("target.cluster.security.protocol", "SASL_SSL");
            props.put("target.cluster.sasl.mechanism", "PLAIN");
            props.put("target.cluster.sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule "
                    + "required username=\"jetstream\" password=\"pw-from-a-config-provider\";");
            props.put("target.cluster.ssl.truststore.location", truststore.toString());
            props.put("target.cluster.ssl.truststore.password", "store-pw-from-a-config-provider");
            props.put("target.cluster.ssl.enabled.protocols", "TLSv1.3"); // not declared, passed through
            props.put("source.cluster.security.protocol", "SSL");         // the other side's: not used here
            SinkSiteConfig config = new SinkSiteConfig(props);
            Map<String, Object> client = config.targetCluster().config("task-0-topics");
            assertThat(client).containsEntry("bootstrap.servers", "127.0.0.1:9192")
                    .containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.mechanism", "PLAIN")
                    .containsEntry("ssl.truststore.location", truststore.toString())
                    .containsEntry("ssl.enabled.protocols", "TLSv1.3").containsKeys("sasl.jaas.config",
                            "ssl.truststore.password");
            assertThat(client.toString()).doesNotContain("pw-from-a-config-provider");
            assertThat(config.toString()).doesNotContain("pw-from-a-config-provider");
            assertThat(config.targetCluster()).hasToString("destination cluster 127.0.0.1:9192 over SASL_SSL (PLAIN)");
        } finally {
            Files.deleteIfExists(truststore);
        }
    }

    @Test
    void securityErrorsNameTheirPrefixedKeys() {
        Map<String, String> badProtocol = valid();
        badProtocol.put("target.cluster.security.protocol", "KERBEROS");
        assertThatThrownBy(() -> new SinkSiteConfig(badProtocol)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("target.cluster.security.protocol");

        Map<String, String> forgotProtocol = valid();
        forgotProtocol.put("target.cluster.sasl.mechanism", "PLAIN");
        var errors = new SinkSiteConnector().validate(forgotProtocol).configValues().stream()
                .filter(v -> v.name().equals("target.cluster.security.protocol")).findFirst().orElseThrow()
                .errorMessages();
        assertThat(errors).anyMatch(m -> m.contains("PLAINTEXT") && m.contains("target.cluster.sasl.mechanism"));

        Map<String, String> badPassThrough = valid();
        badPassThrough.put("target.cluster.security.protocol", "SSL");
        badPassThrough.put("target.cluster.sasl.login.retry.backoff.ms", "-");
        assertThatThrownBy(() -> new SinkSiteConfig(badPassThrough))
                .hasMessageContaining("target.cluster.sasl.login.retry.backoff.ms");
    }

    @Test
    void integrityIsOffWithoutAKeyAndRequiredWithOneUnlessSaidOtherwise() {
        SinkSiteConfig off = new SinkSiteConfig(valid());
        assertThat(off.integrityKey()).isEmpty();
        assertThat(off.integrityRequired()).isFalse();

        Map<String, String> keyed = valid();
        keyed.put("integrity.key", "k".repeat(32));
        SinkSiteConfig on = new SinkSiteConfig(keyed);
        assertThat(on.integrityKey()).hasValueSatisfying(key -> assertThat(key).hasSize(32));
        assertThat(on.integrityRequired()).isTrue();
        assertThat(on.toString()).doesNotContain("k".repeat(32));

        keyed.put("integrity.required", "false");
        assertThat(new SinkSiteConfig(keyed).integrityRequired()).as("migration: unsigned batches still taken")
                .isFalse();
    }

    @Test
    void aShortIntegrityKeyOrRequiredIntegrityWithoutAKeyIsAnErrorOnItsKeyThatHidesTheSecret() {
        Map<String, String> shortKey = valid();
        shortKey.put("integrity.key", "thirty-one-bytes-of-secret-text");
        assertThatThrownBy(() -> new SinkSiteConfig(shortKey)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("integrity.key").hasMessageContaining("at least 32 bytes")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("thirty-one-bytes"));

        Map<String, String> requiredWithoutKey = valid();
        requiredWithoutKey.put("integrity.required", "true");
        assertThatThrownBy(() -> new SinkSiteConfig(requiredWithoutKey)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("integrity.required").hasMessageContaining("needs integrity.key");
        var errors = new SinkSiteConnector().validate(requiredWithoutKey).configValues().stream()
                .filter(v -> v.name().equals("integrity.required")).findFirst().orElseThrow().errorMessages();
        assertThat(errors).anyMatch(m -> m.contains("needs integrity.key"));
    }

    @Test
    void theOffsetMapNeedsOneTransactionPerPollUnderExactlyOnce() {
        Map<String, String> interval = new java.util.HashMap<>(valid());
        interval.put("exactly.once.support", "required");
        interval.put("transaction.boundary", "interval");
        var errors = new SinkSiteConnector().validate(interval).configValues().stream()
                .filter(v -> v.name().equals("transaction.boundary")).flatMap(v -> v.errorMessages().stream()).toList();
        assertThat(errors).singleElement().asString().contains("must be 'poll' while offset.map.enabled=true");
        assertThatThrownBy(() -> new SinkSiteConfig(interval)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("transaction.boundary");
        interval.put("offset.map.enabled", "false");
        assertThat(new SinkSiteConfig(interval).getBoolean("offset.map.enabled")).isFalse();
        Map<String, String> badTopic = new java.util.HashMap<>(valid());
        badTopic.put("offset.map.topic", "no spaces allowed");
        assertThatThrownBy(() -> new SinkSiteConfig(badTopic)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("offset.map.topic");
        Map<String, String> shortRetention = new java.util.HashMap<>(valid());
        shortRetention.put("offset.map.retention.ms", "1000");
        assertThatThrownBy(() -> new SinkSiteConfig(shortRetention)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("offset.map.retention.ms");
    }

    @Test
    void checkpointsNeedTheSourceClusterAndTheMapAndSyncNeedsCheckpoints() {
        Map<String, String> syncOnly = new java.util.HashMap<>(valid());
        syncOnly.put("sync.group.offsets.enabled", "true");
        assertThatThrownBy(() -> new SinkSiteConfig(syncOnly)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("sync.group.offsets.enabled").hasMessageContaining("needs emit.checkpoints.enabled");
        Map<String, String> noSource = new java.util.HashMap<>(valid());
        noSource.put("emit.checkpoints.enabled", "true");
        assertThatThrownBy(() -> new SinkSiteConfig(noSource)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("source.cluster.bootstrap.servers");
        noSource.put("source.cluster.bootstrap.servers", "a:9092");
        noSource.put("offset.map.enabled", "false");
        assertThatThrownBy(() -> new SinkSiteConfig(noSource)).hasMessageContaining("needs offset.map.enabled=true");
        noSource.put("offset.map.enabled", "true");
        noSource.put("groups", "app-.*,(unclosed");
        assertThatThrownBy(() -> new SinkSiteConfig(noSource)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("groups");
        noSource.put("groups", "app-.*");
        SinkSiteConfig config = new SinkSiteConfig(noSource);
        assertThat(CheckpointConfigs.groupFilter(config).accepts("app-1")).isTrue();
        assertThat(CheckpointConfigs.groupFilter(config).accepts("connect-app-1")).isFalse();
        assertThat(CheckpointConfigs.sourceCluster(config).bootstrapServers()).isEqualTo("a:9092");
    }

    @Test
    void declaresExactlyOnceSupport() {
        assertThat(new SinkSiteConnector().exactlyOnceSupport(valid())).isEqualTo(ExactlyOnceSupport.SUPPORTED);
    }

    @Test
    void committedConfigReferenceIsCurrent() throws Exception {
        String generated = ConfigDocs.markdown("Destination-site connector configuration",
                "Keys of `io.jetstream.kafka.sink.SinkSiteConnector`, the connector deployed at the **destination** "
                        + "site. In Kafka Connect's terms it is a *source* connector: it writes topics. Besides these "
                        + "keys it takes Connect's own keys (`tasks.max`, `exactly.once.support`, converters: use "
                        + "`ByteArrayConverter` for key, value and header). Under `target.cluster.` it also takes "
                        + "every other `ssl.*` and `sasl.*` setting of Kafka's clients, passed to the connector's own "
                        + "clients and validated with Kafka's rules, as MirrorMaker 2 does; other keys under the "
                        + "prefix are ignored with a warning. The producer that writes the records is the worker's: "
                        + "secure it with the worker's `producer.*` settings (docs/operations.md, \"Secured "
                        + "clusters\").",
                SinkSiteConfig.CONFIG_DEF);
        if (Boolean.getBoolean("jetstream.docs.update")) {
            Files.writeString(DOC, generated);
        }
        assertThat(Files.exists(DOC)).as("run with -Djetstream.docs.update=true to create " + DOC).isTrue();
        assertThat(Files.readString(DOC)).as("docs/sink-connector-config.md is stale: regenerate with "
                + "mvn -pl connect-sink test -Dtest=SinkSiteConfigTest -Djetstream.docs.update=true")
                .isEqualTo(generated);
    }
}
