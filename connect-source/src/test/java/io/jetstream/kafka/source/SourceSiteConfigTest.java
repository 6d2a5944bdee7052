package io.jetstream.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.connect.common.config.ConfigDocs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

class SourceSiteConfigTest {

    static final Path DOC = Path.of("..", "docs", "source-connector-config.md");

    static Map<String, String> valid() {
        Map<String, String> props = new HashMap<>();
        props.put("source.cluster.alias", "A");
        props.put("target.cluster.alias", "B");
        props.put("source.cluster.bootstrap.servers", "127.0.0.1:9092");
        props.put("relays", "127.0.0.1:7070,127.0.0.1:7080");
        props.put("stream.token", "a-token-of-sixteen-chars");
        props.put("relay.tls.enabled", "false");
        props.put("consumer.override.isolation.level", "read_committed");
        return props;
    }

    @Test
    void mirrorMakersRegularExpressionsInConnectsTopicsAreRefusedPointingToTopicsRegex() {
        Map<String, String> names = valid();
        names.put("topics", "orders.eu,payments-v2, audit_log");
        new SourceSiteConfig(names);
        assertThat(SourceSiteConfig.crossFieldErrors(names)).doesNotContainKey("topics");

        Map<String, String> mm2 = valid();
        mm2.put("topics", "orders.*,payments");
        assertThatThrownBy(() -> new SourceSiteConfig(mm2)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("topics").hasMessageContaining("topics.regex");
        ConfigValue topics = new SourceSiteConnector().validate(mm2).configValues().stream()
                .filter(v -> v.name().equals("topics")).findFirst().orElseThrow();
        assertThat(topics.errorMessages()).anyMatch(m -> m.contains("'orders.*' is not a topic name"));
    }

    @Test
    void theIntegrityKeyIsOptionalAtLeast32BytesAndHidden() {
        assertThat(new SourceSiteConfig(valid()).integrityKey()).isEmpty();
        Map<String, String> keyed = valid();
        keyed.put("integrity.key", "ü".repeat(16)); // 16 chars, 32 UTF-8 bytes
        assertThat(new SourceSiteConfig(keyed).integrityKey()).hasValueSatisfying(k -> assertThat(k).hasSize(32));

        Map<String, String> shortKey = valid();
        shortKey.put("integrity.key", "a-secret-of-thirty-one-bytes-!!");
        assertThatThrownBy(() -> new SourceSiteConfig(shortKey)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("integrity.key").hasMessageContaining("at least 32 bytes")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("a-secret-of"));
        ConfigValue shown = new SourceSiteConnector().validate(shortKey).configValues().stream()
                .filter(v -> v.name().equals("integrity.key")).findFirst().orElseThrow();
        assertThat(shown.errorMessages()).anyMatch(m -> m.contains("at least 32 bytes"));
        assertThat(shown.errorMessages()).noneMatch(m -> m.contains("a-secret-of"));
    }

    @Test
    void relaysOnTheTasksHostArePreferredOnlyWhenAsked() {
        assertThat(new SourceSiteConfig(valid()).preferLocalRelays()).isFalse();
        Map<String, String> preferLocal = valid();
        preferLocal.put("relays.prefer.local", "true");
        assertThat(new SourceSiteConfig(preferLocal).preferLocalRelays()).isTrue();

        Map<String, String> wrong = valid();
        wrong.put("relays.prefer.local", "yes");
        assertThatThrownBy(() -> new SourceSiteConfig(wrong)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("relays.prefer.local").hasMessageContaining("yes");
        ConfigValue shown = new SourceSiteConnector().validate(wrong).configValues().stream()
                .filter(v -> v.name().equals("relays.prefer.local")).findFirst().orElseThrow();
        assertThat(shown.errorMessages()).isNotEmpty();
    }

    @Test
    void typedAccessorsOfAValidConfig() {
        SourceSiteConfig config = new SourceSiteConfig(valid());
        assertThat(config.compressionName()).isEqualTo("zstd");
        assertThat(config.batchLinger().toMillis()).isEqualTo(20);
        assertThat(config.relays("my-connector").streamId()).isEqualTo("my-connector");
        assertThat(config.relays("x").relays()).hasSize(2);
    }

    @Test
    void unsetTheLingerFollowsThePathUpTo20MsAndSetItIsFixed() {
        SourceSiteConfig shipped = new SourceSiteConfig(valid());
        assertThat(shipped.lingerFollowsPath()).isTrue();
        assertThat(shipped.batchPolicy()).isInstanceOf(io.jetstream.kafka.core.model.RoundTripLingerPolicy.class);
        assertThat(shipped.batchPolicy().decision(0).linger()).as("until the first receipt").isEqualTo(
                java.time.Duration.ofMillis(20));

        Map<String, String> fixed = valid();
        fixed.put("batch.linger.ms", "5");
        SourceSiteConfig set = new SourceSiteConfig(fixed);
        assertThat(set.lingerFollowsPath()).isFalse();
        assertThat(set.batchPolicy()).isInstanceOf(io.jetstream.kafka.core.model.FixedBatchPolicy.class);
        assertThat(set.batchPolicy().decision(0).linger()).isEqualTo(java.time.Duration.ofMillis(5));

        Map<String, String> wrong = valid();
        wrong.put("batch.linger.ms", "-1");
        assertThatThrownBy(() -> new SourceSiteConfig(wrong)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("batch.linger.ms").hasMessageContaining("-1");
    }

    @Test
    void framesCarryUpTo1024PartitionsByDefaultAndBetween1And65535AsConfigured() {
        assertThat(new SourceSiteConfig(valid()).frameMaxPartitions()).isEqualTo(1024);
        Map<String, String> one = valid();
        one.put("frame.max.partitions", "1");
        assertThat(new SourceSiteConfig(one).frameMaxPartitions()).as("one frame per partition, as in version 2")
                .isEqualTo(1);
        for (String outside : List.of("0", "65536")) {
            Map<String, String> wrong = valid();
            wrong.put("frame.max.partitions", outside);
            assertThatThrownBy(() -> new SourceSiteConfig(wrong)).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("frame.max.partitions");
        }
    }

    @Test
    void heartbeatIntervalDefaultsToFiveSecondsAndRefusesTooShortAnInterval() {
        assertThat(new SourceSiteConfig(valid()).heartbeatInterval()).isEqualTo(java.time.Duration.ofSeconds(5));
        Map<String, String> tooShort = valid();
        tooShort.put("replication.heartbeat.interval.ms", "10");
        assertThatThrownBy(() -> new SourceSiteConfig(tooShort)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("replication.heartbeat.interval.ms").hasMessageContaining("at least 100");
    }

    @Test
    void errorsNameTheKey() {
        Map<String, String> unbounded = valid();
        unbounded.put("cluster.call.timeout.ms", "3600000");
        assertThatThrownBy(() -> new SourceSiteConfig(unbounded)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("cluster.call.timeout.ms");
        assertThat(new SourceSiteConfig(valid()).clusterCallTimeout()).isEqualTo(java.time.Duration.ofSeconds(10));

        Map<String, String> props = valid();
        props.put("relays", "127.0.0.1:99999");
        assertThatThrownBy(() -> new SourceSiteConfig(props)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("relays").hasMessageContaining("99999");

        Map<String, String> sameAlias = valid();
        sameAlias.put("target.cluster.alias", "A");
        assertThatThrownBy(() -> new SourceSiteConfig(sameAlias)).hasMessageContaining("target.cluster.alias");

        Map<String, String> dotted = valid();
        dotted.put("source.cluster.alias", "a.b");
        assertThatThrownBy(() -> new SourceSiteConfig(dotted)).hasMessageContaining("source.cluster.alias");

        Map<String, String> noToken = valid();
        noToken.remove("stream.token");
        assertThatThrownBy(() -> new SourceSiteConfig(noToken)).hasMessageContaining("stream.token");

        Map<String, String> noIsolation = valid();
        noIsolation.remove("consumer.override.isolation.level");
        assertThatThrownBy(() -> new SourceSiteConfig(noIsolation))
                .hasMessageContaining("consumer.override.isolation.level");

        Map<String, String> uncommitted = valid();
        uncommitted.put("consumer.override.isolation.level", "read_uncommitted");
        assertThatThrownBy(() -> new SourceSiteConfig(uncommitted))
                .hasMessageContaining("consumer.override.isolation.level").hasMessageContaining("aborted");

        Map<String, String> badCodec = valid();
        badCodec.put("compression.type", "brotli");
        assertThatThrownBy(() -> new SourceSiteConfig(badCodec)).hasMessageContaining("compression.type");
    }

    @Test
    void validateAttachesCrossFieldErrorsToTheirKeys() {
        Map<String, String> props = valid();
        props.put("target.cluster.alias", "A");
        props.put("relay.tls.enabled", "true");
        props.put("relay.tls.cert.file", "/nonexistent/cert.pem");
        Config result = new SourceSiteConnector().validate(props);
        assertThat(errors(result, "target.cluster.alias")).anyMatch(m -> m.contains("must differ"));
        assertThat(errors(result, "relay.tls.key.file")).anyMatch(m -> m.contains("together with"));
        assertThat(errors(result, "relay.tls.cert.file")).anyMatch(m -> m.contains("not a readable file"));
        assertThat(errors(result, "relays")).isEmpty();
    }

    @Test
    void validateRequiresAReadCommittedConsumer() {
        Map<String, String> missing = valid();
        missing.remove("consumer.override.isolation.level");
        assertThat(errors(new SourceSiteConnector().validate(missing), "consumer.override.isolation.level"))
                .anyMatch(m -> m.contains("Missing required configuration"));

        Map<String, String> uncommitted = valid();
        uncommitted.put("consumer.override.isolation.level", "read_uncommitted");
        assertThat(errors(new SourceSiteConnector().validate(uncommitted), "consumer.override.isolation.level"))
                .anyMatch(m -> m.contains("must be read_committed"));
        assertThat(errors(new SourceSiteConnector().validate(valid()), "consumer.override.isolation.level")).isEmpty();
    }

    @Test
    void theRemovedBatchPolicyRefusesAnyValueButFixedNamingTheKey() {
        for (String value : List.of("adaptive", "ADAPTIVE", "")) {
            Map<String, String> props = valid();
            props.put("batch.policy", value);
            assertThatThrownBy(() -> new SourceSiteConfig(props)).as(value).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("batch.policy was removed in this release")
                    .hasMessageContaining("batch.max.records").hasMessageContaining("docs/model.md");
            assertThat(errors(new SourceSiteConnector().validate(props), "batch.policy")).as(value)
                    .anyMatch(m -> m.startsWith("batch.policy was removed in this release: batching follows "
                            + "the batch.* caps"));
        }

        Map<String, String> fixed = valid();
        fixed.put("batch.policy", " fixed");
        SourceSiteConfig config = new SourceSiteConfig(fixed);
        assertThat(config.carriesRemovedBatchPolicy()).as("accepted, to be warned of").isTrue();
        assertThat(config.batchPolicy().decision(0)).as("what it always meant: the caps")
                .isEqualTo(new SourceSiteConfig(valid()).batchPolicy().decision(0));
        assertThat(errors(new SourceSiteConnector().validate(fixed), "batch.policy")).isEmpty();
        new SourceSiteConnector().start(fixed);
        assertThat(new SourceSiteConfig(valid()).carriesRemovedBatchPolicy()).isFalse();
        assertThat(SourceSiteConfig.CONFIG_DEF.configKeys()).doesNotContainKey("batch.policy");
    }

    @Test
    void theSourceClustersSecuritySettingsReachTheConnectorsClientsAndNoLog() {
        Map<String, String> props = valid();
        props.put("source.cluster.security.protocol", "SASL_SSL");
        props.put("source.cluster.sasl.mechanism", "SCRAM-SHA-512");
        props.put("source.cluster.sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule "
                + "required username=\"jetstream\" password=\"pw-from-a-config-provider\";");
        props.put("target.cluster.security.protocol", "SSL"); // the other side's: not this connector's business
        SourceSiteConfig config = new SourceSiteConfig(props);
        Map<String, Object> client = config.sourceCluster().config("task-0-metadata");
        assertThat(client).containsEntry("bootstrap.servers", "127.0.0.1:9092")
                .containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsEntry("client.id", "task-0-metadata").containsKey("sasl.jaas.config");
        assertThat(client.toString()).doesNotContain("pw-from-a-config-provider");
        assertThat(config.sourceCluster().toString()).isEqualTo("source cluster 127.0.0.1:9092 over SASL_SSL "
                + "(SCRAM-SHA-512)");
        assertThat(config.toString()).doesNotContain("pw-from-a-config-provider");
        assertThat(SourceSiteConfig.CONFIG_DEF.configKeys().get("source.cluster.sasl.jaas.config").type)
                .isEqualTo(org.apache.kafka.common.config.ConfigDef.Type.PASSWORD);
    }

    @Test
    void validateReportsSecurityErrorsOnTheirPrefixedKeys() {
        Map<String, String> props = valid();
        props.put("source.cluster.security.protocol", "TLS");
        props.put("source.cluster.ssl.truststore.locaton", "/etc/kafka/truststore.jks");
        Config result = new SourceSiteConnector().validate(props);
        assertThat(errors(result, "source.cluster.security.protocol")).anyMatch(m -> m.contains("TLS"));
        assertThat(errors(result, "source.cluster.ssl.truststore.locaton"))
                .anyMatch(m -> m.contains("not a setting of Kafka's clients"));

        Map<String, String> unreadable = valid();
        unreadable.put("source.cluster.security.protocol", "SSL");
        unreadable.put("source.cluster.ssl.truststore.location", "/nonexistent/truststore.jks");
        assertThat(errors(new SourceSiteConnector().validate(unreadable), "source.cluster.ssl.truststore.location"))
                .anyMatch(m -> m.contains("not a readable file"));
        assertThatThrownBy(() -> new SourceSiteConfig(unreadable))
                .hasMessageContaining("source.cluster.ssl.truststore.location");

        Map<String, String> badJaas = valid();
        badJaas.put("source.cluster.security.protocol", "SASL_SSL");
        badJaas.put("source.cluster.sasl.mechanism", "PLAIN");
        badJaas.put("source.cluster.sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule "
                + "required username=\"jetstream\" password=\"pw-never-in-a-message\""); // no ';'
        assertThatThrownBy(() -> new SourceSiteConfig(badJaas))
                .hasMessageContaining("source.cluster.sasl.jaas.config").hasMessageContaining("[hidden]")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("pw-never-in-a-message"));
        assertThat(errors(new SourceSiteConnector().validate(badJaas), "source.cluster.sasl.jaas.config"))
                .anyMatch(m -> m.contains("not a valid JAAS configuration"))
                .noneMatch(m -> m.contains("pw-never-in-a-message"));
    }

    private static List<String> errors(Config config, String key) {
        return config.configValues().stream().filter(v -> v.name().equals(key)).findFirst()
                .map(ConfigValue::errorMessages).orElse(List.of());
    }

    @Test
    void validateRefusesAConsumerThatStartsNewPartitionsAnywhereButAtTheirFirstRecord() {
        for (String reset : List.of("latest", "none", "by_duration:PT1H", "LATEST")) {
            Map<String, String> props = valid();
            props.put("consumer.override.auto.offset.reset", reset);
            assertThat(errors(new SourceSiteConnector().validate(props), "consumer.override.auto.offset.reset"))
                    .as(reset).anyMatch(m -> m.contains("must be earliest"));
            assertThatThrownBy(() -> new SourceSiteConfig(props)).as(reset).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("consumer.override.auto.offset.reset");
        }
        Map<String, String> earliest = valid();
        earliest.put("consumer.override.auto.offset.reset", "earliest");
        assertThat(errors(new SourceSiteConnector().validate(earliest), "consumer.override.auto.offset.reset"))
                .isEmpty();
        assertThat(errors(new SourceSiteConnector().validate(valid()), "consumer.override.auto.offset.reset"))
                .as("unset: Connect's own default for sink connectors, earliest").isEmpty();
    }

    @Test
    void everyTaskGetsTheConfigAndItsIndex() {
        List<Map<String, String>> tasks = SourceSiteConnector.taskConfigs(valid(), 3);
        assertThat(tasks).hasSize(3);
        assertThat(tasks).extracting(t -> t.get(SourceSiteConnector.TASK_ID)).containsExactly("0", "1", "2");
        assertThat(tasks.get(2)).containsEntry("relays", "127.0.0.1:7070,127.0.0.1:7080");
    }

    @Test
    void committedConfigReferenceIsCurrent() throws Exception {
        String generated = generatedDoc();
        if (Boolean.getBoolean("jetstream.docs.update")) {
            Files.writeString(DOC, generated);
        }
        assertThat(Files.exists(DOC)).as("run with -Djetstream.docs.update=true to create " + DOC).isTrue();
        assertThat(Files.readString(DOC)).as("docs/source-connector-config.md is stale: regenerate with "
                + "mvn -pl connect-source test -Dtest=SourceSiteConfigTest -Djetstream.docs.update=true")
                .isEqualTo(generated);
    }

    static String generatedDoc() {
        return ConfigDocs.markdown("Source-site connector configuration",
                "Keys of `io.jetstream.kafka.source.SourceSiteConnector`, the connector deployed at the **source** "
                        + "site. In Kafka Connect's terms it is a *sink* connector: it reads topics. Besides these "
                        + "keys it takes Connect's own sink-connector keys (`topics` or `topics.regex`, "
                        + "`tasks.max`, converters: use `ByteArrayConverter` for key, value and header). Under "
                        + "`source.cluster.` it also takes every other `ssl.*` and `sasl.*` setting of Kafka's "
                        + "clients, passed to the connector's own clients and validated with Kafka's rules, as "
                        + "MirrorMaker 2 does; other keys under the prefix are ignored with a warning. The consumer "
                        + "that reads the topics is the worker's: secure it with the worker's `consumer.*` settings "
                        + "(docs/operations.md, \"Secured clusters\").",
                SourceSiteConfig.CONFIG_DEF);
    }
}
