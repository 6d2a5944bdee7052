package io.jetstream.kafka.sink;

/**
 * The name {@link io.jetstream.kafka.sink.naming.TopicNamingPolicy} had before the connector's
 * classes were put in packages by their part: a {@code topic.naming.policy} class written against
 * it loads and names topics as before. Nothing in the connector uses this name.
 *
 * @deprecated implement {@link io.jetstream.kafka.sink.naming.TopicNamingPolicy}
 */
@Deprecated
public interface TopicNamingPolicy extends io.jetstream.kafka.sink.naming.TopicNamingPolicy {
}
