package io.jetstream.kafka.sink.naming;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.connect.mirror.DefaultReplicationPolicy;
import org.apache.kafka.connect.mirror.IdentityReplicationPolicy;
import org.apache.kafka.connect.mirror.ReplicationPolicy;
import org.junit.jupiter.api.Test;

/** MirrorMaker 2 ReplicationPolicy classes as topic naming policies. */
public class ReplicationPolicyNamingTest {

    private static final List<String> TOPICS = List.of("orders", "orders.eu", "B.orders", "A.orders", "a_b-c");

    @Test
    void mm2sDefaultPolicyAdaptedNamesAndTellsReplicasAsThePrefixPolicy() {
        for (String separator : List.of(".", "_", "--")) {
            TopicNamingPolicy adapted = TopicNamingPolicy.create(DefaultReplicationPolicy.class.getName(), "A",
                    separator, Map.of());
            TopicNamingPolicy viaAdapter = new ReplicationPolicyNaming(new DefaultReplicationPolicy(), Map.of());
            viaAdapter.configure("A", separator);
            TopicNamingPolicy prefix = TopicNamingPolicy.create("prefix", "A", separator);
            for (String topic : TOPICS) {
                assertThat(viaAdapter.destinationTopic(topic)).isEqualTo(prefix.destinationTopic(topic))
                        .isEqualTo(adapted.destinationTopic(topic)).isEqualTo("A" + separator + topic);
                String replica = "B" + separator + topic;
                assertThat(viaAdapter.isReplicaFrom(replica, "B")).isEqualTo(prefix.isReplicaFrom(replica, "B"))
                        .isTrue();
                assertThat(viaAdapter.isReplicaFrom(topic, "C")).isEqualTo(prefix.isReplicaFrom(topic, "C"))
                        .isFalse();
            }
        }
    }

    @Test
    void mm2sIdentityPolicyAdaptedKeepsNames() {
        TopicNamingPolicy viaAdapter = new ReplicationPolicyNaming(new IdentityReplicationPolicy(), Map.of());
        viaAdapter.configure("A", ".");
        for (String topic : TOPICS) {
            assertThat(viaAdapter.destinationTopic(topic)).isEqualTo(topic);
        }
        assertThat(TopicNamingPolicy.create(IdentityReplicationPolicy.class.getName(), "A", ".").destinationTopic("x"))
                .isEqualTo("x");
    }

    @Test
    void aUsersPolicyIsConfiguredWithTheConnectorsSettingsAndNamesTopics() {
        TopicNamingPolicy policy = TopicNamingPolicy.create(SuffixPolicy.class.getName(), "A", ".",
                Map.of("suffix.policy.marker", "from"));
        assertThat(policy).isInstanceOf(ReplicationPolicyNaming.class);
        assertThat(policy.destinationTopic("orders")).isEqualTo("orders.from-A");
        assertThat(policy.isReplicaFrom("orders.from-B", "B")).isTrue();
        assertThat(policy.isReplicaFrom("orders.from-B", "A")).isFalse();
        assertThat(policy.isReplicaFrom("orders", "B")).isFalse();
    }

    /** A user's MM2 policy: {@code <topic><separator><marker>-<alias>}, the marker from the configuration. */
    public static final class SuffixPolicy implements ReplicationPolicy, Configurable {
        private String separator = ".";
        private String marker = "from";

        @Override
        public void configure(Map<String, ?> configs) {
            Object sep = configs.get("replication.policy.separator");
            separator = sep == null ? separator : sep.toString();
            Object mark = configs.get("suffix.policy.marker");
            marker = mark == null ? marker : mark.toString();
        }

        @Override
        public String formatRemoteTopic(String sourceClusterAlias, String topic) {
            return topic + separator + marker + "-" + sourceClusterAlias;
        }

        @Override
        public String topicSource(String topic) {
            int at = topic.lastIndexOf(separator + marker + "-");
            return at < 0 ? null : topic.substring(at + separator.length() + marker.length() + 1);
        }

        @Override
        public String upstreamTopic(String topic) {
            int at = topic.lastIndexOf(separator + marker + "-");
            return at < 0 ? null : topic.substring(0, at);
        }
    }
}
