package io.jetstream.kafka.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.core.config.ConfigDocs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.junit.jupiter.api.Test;

class SinkSiteConfigTest {

    static final Path DOC = Path.of("..", "docs", "sink-connector-config.md");

    static Map<String, String> valid() {
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

    /** A user's naming policy. */
    public static final class UpperCaseNaming implements TopicNamingPolicy {
        @Override
        public String destinationTopic(String originTopic) {
            return originTopic.toUpperCase();
        }
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
    void taskIOfNTakesShareIOfN() {
        List<Map<String, String>> tasks = SinkSiteConnector.taskConfigs(valid(), 4);
        assertThat(tasks).extracting(t -> t.get(SinkSiteConnector.TASK_ID)).containsExactly("0", "1", "2", "3");
        assertThat(tasks).allMatch(t -> t.get(SinkSiteConnector.TASK_COUNT).equals("4"));
        SinkSiteTaskConfig third = new SinkSiteTaskConfig(tasks.get(2));
        assertThat(third.taskId()).isEqualTo(2);
        assertThat(third.taskCount()).isEqualTo(4);
        assertThat(third.exactlyOnce()).isFalse();
    }

    @Test
    void aMalformedTaskConfigurationNamesTheKey() {
        Map<String, String> task = SinkSiteConnector.taskConfigs(valid(), 2).get(1);
        task.put(SinkSiteTaskConfig.TASK_ID, "2");
        assertThatThrownBy(() -> new SinkSiteTaskConfig(task)).hasMessageContaining(SinkSiteTaskConfig.TASK_ID)
                .hasMessageContaining("must be below");
        task.remove(SinkSiteTaskConfig.TASK_COUNT);
        assertThatThrownBy(() -> new SinkSiteTaskConfig(task)).hasMessageContaining(SinkSiteTaskConfig.TASK_COUNT);
        Map<String, String> exactlyOnce = SinkSiteConnector.taskConfigs(valid(), 1).get(0);
        exactlyOnce.put(SinkSiteTaskConfig.EXACTLY_ONCE_SUPPORT, "REQUIRED");
        assertThat(new SinkSiteTaskConfig(exactlyOnce).exactlyOnce()).isTrue();
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
                        + "`ByteArrayConverter` for key, value and header).",
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
