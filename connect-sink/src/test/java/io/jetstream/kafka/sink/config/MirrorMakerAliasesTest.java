package io.jetstream.kafka.sink.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.sink.SinkSiteConnector;
import io.jetstream.kafka.sink.naming.ReplicationPolicyNamingTest;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.mirror.DefaultReplicationPolicy;
import org.junit.jupiter.api.Test;

/** MirrorMaker 2's spellings of the destination-site connector's keys ({@code docs/migrating-from-mm2.md}). */
class MirrorMakerAliasesTest {

    private static Map<String, String> with(String... keyValues) {
        Map<String, String> props = SinkSiteConfigTest.valid();
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put(keyValues[i], keyValues[i + 1]);
        }
        return props;
    }

    private static Pattern allowed(Map<String, String> props) {
        return new SinkSiteConfig(props).topicsAllow();
    }

    @Test
    void mm2TopicsListStandsForTopicsAllowJoinedAsMm2JoinsIt() {
        Pattern allow = allowed(with("topics", "orders\\..*, payments"));
        assertThat(List.of("orders.eu", "orders.us", "payments")).allMatch(t -> allow.matcher(t).matches());
        assertThat(List.of("payments-v2", "orders", "audit")).noneMatch(t -> allow.matcher(t).matches());
        assertThat(new SinkSiteConfig(with("topics", "orders\\..*,payments")).getString("topics.allow"))
                .isEqualTo("orders\\..*|payments");
    }

    @Test
    void anInvalidMm2TopicsIsRefusedNamingTopicsAsTopicsAllowWouldBe() {
        assertThatThrownBy(() -> new SinkSiteConfig(with("topics", "orders(")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("configuration topics")
                .hasMessageNotContaining("topics.allow");
        ConfigValue topics = new SinkSiteConnector().validate(with("topics", "orders(")).configValues().stream()
                .filter(v -> v.name().equals("topics")).findFirst().orElseThrow();
        assertThat(topics.errorMessages()).anyMatch(m -> m.contains("regular expression"));
    }

    @Test
    void topicsAndTopicsAllowSetToDifferentValuesIsAnErrorNamingBoth() {
        Map<String, String> both = with("topics", "orders\\..*", "topics.allow", "payments");
        assertThatThrownBy(() -> new SinkSiteConfig(both)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("topics")
                .hasMessageContaining("topics.allow")
                .hasMessageContaining("not both");
        assertThat(SinkSiteConfig.crossFieldErrors(both)).containsKey("topics");
        assertThat(new SinkSiteConnector().validate(both).configValues().stream()
                .filter(v -> v.name().equals("topics")).flatMap(v -> v.errorMessages().stream()))
                .anyMatch(m -> m.contains("topics.allow"));

        Map<String, String> same = with("topics", "orders\\..*", "topics.allow", "orders\\..*");
        assertThat(allowed(same).matcher("orders.eu").matches()).isTrue();
        assertThat(SinkSiteConfig.crossFieldErrors(same)).doesNotContainKey("topics");
    }

    @Test
    void topicsExcludeKeepsInternalTopicsOutByDefaultEvenWhenTopicsAllowAllowsThem() {
        Pattern everything = allowed(with("topics.allow", ".*"));
        assertThat(List.of("__consumer_offsets", "mm2-offsets.A.internal", "connect-status-internal", "orders.replica"))
                .noneMatch(t -> everything.matcher(t).matches());
        assertThat(everything.matcher("orders").matches()).isTrue();
        Pattern mm2 = allowed(with("topics", ".*"));
        assertThat(mm2.matcher("__consumer_offsets").matches()).isFalse();

        Pattern noExclusion = allowed(with("topics.allow", ".*", "topics.exclude", ""));
        assertThat(noExclusion.matcher("connect-status-internal").matches()).isTrue();

        Pattern mine = allowed(with("topics", "orders\\..*", "topics.exclude", "orders\\.secret.*, .*\\.tmp"));
        assertThat(mine.matcher("orders.eu").matches()).isTrue();
        assertThat(List.of("orders.secret", "orders.secret.eu", "orders.eu.tmp"))
                .noneMatch(t -> mine.matcher(t).matches());

        assertThatThrownBy(() -> new SinkSiteConfig(with("topics.exclude", "orders[")))
                .hasMessageContaining("topics.exclude");
    }

    @Test
    void mm2IntervalsInSecondsStandForTheMillisecondKeys() {
        SinkSiteConfig config = new SinkSiteConfig(with("emit.checkpoints.interval.seconds", "30",
                "sync.group.offsets.interval.seconds", "120"));
        assertThat(CheckpointConfigs.interval(config)).isEqualTo(Duration.ofSeconds(30));
        assertThat(CheckpointConfigs.syncInterval(config)).isEqualTo(Duration.ofSeconds(120));

        assertThat(CheckpointConfigs.interval(new SinkSiteConfig(with("emit.checkpoints.interval.seconds", "30",
                "emit.checkpoints.interval.ms", "30000")))).isEqualTo(Duration.ofSeconds(30));
        assertThatThrownBy(() -> new SinkSiteConfig(with("emit.checkpoints.interval.seconds", "30",
                "emit.checkpoints.interval.ms", "60000")))
                .hasMessageContaining("emit.checkpoints.interval.seconds")
                .hasMessageContaining("emit.checkpoints.interval.ms");
        assertThatThrownBy(() -> new SinkSiteConfig(with("sync.group.offsets.interval.seconds", "0")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sync.group.offsets.interval.seconds");
    }

    @Test
    void mm2ReplicationPolicyClassStandsForTopicNamingPolicy() {
        assertThat(new SinkSiteConfig(with("replication.policy.class", DefaultReplicationPolicy.class.getName()))
                .topicNamingPolicy().destinationTopic("orders")).isEqualTo("A.orders");
        TopicNamingPolicy underscore = new SinkSiteConfig(with("replication.policy.class",
                DefaultReplicationPolicy.class.getName(), "replication.policy.separator", "_")).topicNamingPolicy();
        assertThat(underscore.destinationTopic("orders")).isEqualTo("A_orders");
        assertThat(underscore.isReplicaFrom("B_orders", "B")).isTrue();
        assertThat(new SinkSiteConfig(with("replication.policy.class",
                "org.apache.kafka.connect.mirror.IdentityReplicationPolicy")).topicNamingPolicy()
                .destinationTopic("orders")).isEqualTo("orders");
        assertThat(new SinkSiteConfig(with("replication.policy.class", ReplicationPolicyNamingTest.SuffixPolicy.class
                .getName())).topicNamingPolicy().destinationTopic("orders")).isEqualTo("orders.from-A");

        // prefix and DefaultReplicationPolicy are one policy: no conflict
        new SinkSiteConfig(with("replication.policy.class", DefaultReplicationPolicy.class.getName(),
                "topic.naming.policy", "prefix"));
        assertThatThrownBy(() -> new SinkSiteConfig(with("replication.policy.class",
                DefaultReplicationPolicy.class.getName(), "topic.naming.policy", "identity")))
                .hasMessageContaining("replication.policy.class").hasMessageContaining("topic.naming.policy");
        assertThatThrownBy(() -> new SinkSiteConfig(with("replication.policy.separator", "_",
                "topic.naming.separator", "-")))
                .hasMessageContaining("replication.policy.separator").hasMessageContaining("topic.naming.separator");
        assertThatThrownBy(() -> new SinkSiteConfig(with("replication.policy.class", String.class.getName())))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("replication.policy.class")
                .hasMessageContaining("implements neither");
    }
}
