package io.jetstream.kafka.sink;

import java.util.Objects;

/**
 * Names the destination topic of an origin topic. Implementations must be deterministic and
 * injective (two origin topics never map to one destination topic). A user's class needs a public
 * no-argument constructor; {@link #configure} receives the source alias and separator.
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

    /** Instantiates 'prefix', 'identity' or a class name. */
    static TopicNamingPolicy create(String spec, String sourceAlias, String separator) {
        Objects.requireNonNull(spec, "spec");
        TopicNamingPolicy policy;
        switch (spec) {
            case "prefix" -> policy = new PrefixTopicNaming();
            case "identity" -> policy = new IdentityTopicNaming();
            default -> {
                try {
                    Class<?> type = Class.forName(spec, true, TopicNamingPolicy.class.getClassLoader());
                    if (!TopicNamingPolicy.class.isAssignableFrom(type)) {
                        throw new IllegalArgumentException(spec + " does not implement " + TopicNamingPolicy.class.getName());
                    }
                    policy = (TopicNamingPolicy) type.getConstructor().newInstance();
                } catch (ClassNotFoundException e) {
                    throw new IllegalArgumentException("is not 'prefix', 'identity' or a class on the plugin's class path");
                } catch (ReflectiveOperationException e) {
                    throw new IllegalArgumentException(spec + " cannot be instantiated: " + e);
                }
            }
        }
        policy.configure(sourceAlias, separator);
        return policy;
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
