package io.jetstream.kafka.sink.naming;

import java.util.Map;
import java.util.Objects;

/**
 * Names the destination topic of an origin topic. Implementations must be deterministic and
 * injective (two origin topics never map to one destination topic). A user's class needs a public
 * no-argument constructor; {@link #configure} receives the source alias and separator. A MirrorMaker 2
 * {@code ReplicationPolicy} class is accepted too and adapted ({@link ReplicationPolicyNaming}).
 */
public interface TopicNamingPolicy {

    /** Called once before use. */
    default void configure(String sourceAlias, String separator) {
    }

    String destinationTopic(String originTopic);

    /**
     * True when a topic at this (destination) site was itself replicated from {@code alias}: such a
     * topic must never be sent back there.
     */
    default boolean isReplicaFrom(String topic, String alias) {
        return false;
    }

    /** MirrorMaker 2's policy that {@code prefix} is: {@code <alias><separator><topic>}. */
    String MM2_DEFAULT_POLICY = "org.apache.kafka.connect.mirror.DefaultReplicationPolicy";
    /** MirrorMaker 2's policy that {@code identity} is. */
    String MM2_IDENTITY_POLICY = "org.apache.kafka.connect.mirror.IdentityReplicationPolicy";

    /**
     * The spec as {@link #create} reads it: MirrorMaker 2's {@value #MM2_DEFAULT_POLICY} and
     * {@value #MM2_IDENTITY_POLICY} are {@code prefix} and {@code identity}, which name topics as they
     * do without needing MirrorMaker's jar; anything else is itself.
     */
    static String canonicalSpec(String spec) {
        String trimmed = spec.trim();
        return switch (trimmed) {
            case MM2_DEFAULT_POLICY -> "prefix";
            case MM2_IDENTITY_POLICY -> "identity";
            default -> trimmed;
        };
    }

    /** Instantiates 'prefix', 'identity' or a class name. */
    static TopicNamingPolicy create(String spec, String sourceAlias, String separator) {
        return create(spec, sourceAlias, separator, Map.of());
    }

    /**
     * Instantiates 'prefix', 'identity' or a class name: a {@link TopicNamingPolicy}, or a MirrorMaker 2
     * {@code org.apache.kafka.connect.mirror.ReplicationPolicy} (adapted, {@link ReplicationPolicyNaming}),
     * which is configured with {@code settings} (the connector's configuration) as MirrorMaker 2 configures it.
     */
    static TopicNamingPolicy create(String spec, String sourceAlias, String separator, Map<String, ?> settings) {
        Objects.requireNonNull(spec, "spec");
        String canonical = canonicalSpec(spec);
        TopicNamingPolicy policy;
        switch (canonical) {
            case "prefix" -> policy = new PrefixTopicNaming();
            case "identity" -> policy = new IdentityTopicNaming();
            default -> {
                Class<?> type;
                try {
                    type = Class.forName(canonical, true, TopicNamingPolicy.class.getClassLoader());
                } catch (ClassNotFoundException e) {
                    throw new IllegalArgumentException("is not 'prefix', 'identity' or a class on the plugin's class path");
                } catch (LinkageError e) {
                    throw new IllegalArgumentException(canonical + " cannot be loaded (" + e + "); a MirrorMaker 2 "
                            + "ReplicationPolicy needs connect-mirror-client on the worker's class path (Kafka's "
                            + "distribution has it in libs/)");
                }
                if (TopicNamingPolicy.class.isAssignableFrom(type)) {
                    policy = (TopicNamingPolicy) instantiate(type);
                } else if (ReplicationPolicyNaming.adapts(type)) {
                    policy = new ReplicationPolicyNaming(instantiate(type), settings);
                } else {
                    throw new IllegalArgumentException(canonical + " implements neither " + TopicNamingPolicy.class.getName()
                            + " nor " + ReplicationPolicyNaming.REPLICATION_POLICY);
                }
            }
        }
        policy.configure(sourceAlias, separator);
        return policy;
    }

    private static Object instantiate(Class<?> type) {
        try {
            return type.getConstructor().newInstance();
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            throw new IllegalArgumentException(type.getName() + " cannot be instantiated: " + e);
        }
    }

    /** MirrorMaker 2's DefaultReplicationPolicy naming: {@code <alias><separator><topic>}. */
    final class PrefixTopicNaming implements TopicNamingPolicy {
        private String prefix;
        private String separator;

        @Override
        public void configure(String sourceAlias, String separator) {
            this.separator = separator;
            this.prefix = sourceAlias + separator;
        }

        @Override
        public String destinationTopic(String originTopic) {
            return prefix + originTopic;
        }

        @Override
        public boolean isReplicaFrom(String topic, String alias) {
            return topic.startsWith(alias + separator);
        }
    }

    /** Same name at both sites (one-way replication only: loops cannot be told apart by name). */
    final class IdentityTopicNaming implements TopicNamingPolicy {
        @Override
        public String destinationTopic(String originTopic) {
            return originTopic;
        }
    }
}
