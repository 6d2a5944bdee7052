package io.jetstream.kafka.sink.topics;

import io.jetstream.kafka.core.protocol.TopicMetadataFrame;

/**
 * Creates and grows destination topics, as the receiver asks before it writes a batch or when topic
 * metadata arrives ({@link DestinationTopics}). Calls may block; failures are retried by the sender.
 */
public interface TopicProvisioner {
    void ensure(String originTopic, int partition) throws Exception;

    void apply(TopicMetadataFrame metadata) throws Exception;
}
