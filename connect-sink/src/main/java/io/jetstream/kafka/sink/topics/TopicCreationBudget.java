package io.jetstream.kafka.sink.topics;

import io.jetstream.kafka.sink.config.SinkSiteConfig;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;

/**
 * How many destination topics a task may still create from metadata that no MAC vouches for
 * ({@code create.topics.unsigned.max} per {@code create.topics.unsigned.interval.ms}): without
 * {@code integrity.key} any relay on the path, or any holder of the stream's token, can send topic
 * metadata, and each frame could otherwise create a topic of up to {@code create.topics.partitions.max}
 * partitions. A sliding window: a creation counts for one interval after it happened. With a key
 * the source is authenticated and {@link #UNLIMITED} applies. Thread-safe.
 */
final class TopicCreationBudget {

    /** No cap (metadata signed by the source-site connector). */
    public static final TopicCreationBudget UNLIMITED = new TopicCreationBudget(Integer.MAX_VALUE,
            SinkSiteConfig.DEFAULT_TOPIC_CREATE_UNSIGNED_INTERVAL,
            Clock.systemUTC());

    private final int max;
    private final long intervalMillis;
    private final Clock clock;
    private final ArrayDeque<Long> creations = new ArrayDeque<>();

    TopicCreationBudget(int max, Duration interval, Clock clock) {
        this.max = max;
        this.intervalMillis = interval.toMillis();
        this.clock = clock;
    }

    /** Takes one creation from the budget; false, taking nothing, when the window already holds the maximum. */
    synchronized boolean tryTake() {
        if (max == Integer.MAX_VALUE) {
            return true;
        }
        long now = clock.millis();
        while (!creations.isEmpty() && creations.peekFirst() <= now - intervalMillis) {
            creations.pollFirst();
        }
        if (creations.size() >= max) {
            return false;
        }
        creations.addLast(now);
        return true;
    }

    int max() {
        return max;
    }

    Duration interval() {
        return Duration.ofMillis(intervalMillis);
    }
}
