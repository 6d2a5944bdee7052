package io.jetstream.kafka.sink.receiver;

/**
 * Records of a recreated source topic arrived and the destination was told not to write them after
 * the old topic's ({@code topic.recreation.policy=fail}): thrown from the task's poll, it fails the
 * task. The message names the topic, the partition and both topic ids.
 */
public final class TopicRecreatedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    TopicRecreatedException(String message) {
        super(message);
    }
}
