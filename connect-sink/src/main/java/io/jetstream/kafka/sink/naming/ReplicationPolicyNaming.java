package io.jetstream.kafka.sink.naming;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.connect.mirror.ReplicationPolicy;

/**
 * A MirrorMaker 2 {@link ReplicationPolicy} as a {@link TopicNamingPolicy}, so that a policy class an
 * operator already runs with MM2 ({@code replication.policy.class}) names the topics here as it did
 * there: the destination topic is {@link ReplicationPolicy#formatRemoteTopic(String, String)} of the
 * source alias and the origin topic, and a topic is a replica from a cluster when
 * {@link ReplicationPolicy#topicSource(String)} says it came from there. A policy that is
 * {@link Configurable} is configured as MM2 configures it: with the connector's configuration, plus
 * {@code replication.policy.separator} and {@code source.cluster.alias}.
 *
 * <p>The interface comes from connect-mirror-client, which the plugin does not bundle: every worker of
 * Kafka's distribution has it on its class path. This class is loaded only for such a policy.
 */
public final class ReplicationPolicyNaming implements TopicNamingPolicy {

    public static final String REPLICATION_POLICY = "org.apache.kafka.connect.mirror.ReplicationPolicy";
    static final String SEPARATOR = "replication.policy.separator";
    static final String SOURCE_ALIAS = "source.cluster.alias";

    private final ReplicationPolicy policy;
    private final Map<String, ?> settings;
    private String sourceAlias;

    public ReplicationPolicyNaming(Object policy, Map<String, ?> settings) {
        this.policy = (ReplicationPolicy) Objects.requireNonNull(policy, "policy");
        this.settings = Map.copyOf(settings);
    }

    /** Whether {@code type} is a ReplicationPolicy; false when connect-mirror-client is not there at all. */
    static boolean adapts(Class<?> type) {
        try {
            return ReplicationPolicy.class.isAssignableFrom(type);
        } catch (LinkageError e) {
            return false;
        }
    }

    @Override
    public void configure(String sourceAlias, String separator) {
        this.sourceAlias = Objects.requireNonNull(sourceAlias, "sourceAlias");
        if (policy instanceof Configurable configurable) {
            Map<String, Object> config = new HashMap<>(settings);
            config.put(SEPARATOR, separator);
            config.put(SOURCE_ALIAS, sourceAlias);
            configurable.configure(config);
        }
    }

    @Override
    public String destinationTopic(String originTopic) {
        String topic = policy.formatRemoteTopic(sourceAlias, originTopic);
        if (topic == null || topic.isEmpty()) {
            throw new IllegalStateException(policy.getClass().getName() + " gave no destination topic for " + originTopic);
        }
        return topic;
    }

    @Override
    public boolean isReplicaFrom(String topic, String alias) {
        return alias.equals(policy.topicSource(topic));
    }

    @Override
    public String toString() {
        return "ReplicationPolicy " + policy.getClass().getName();
    }
}
