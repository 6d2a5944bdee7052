package io.jetstream.kafka.sink.topics;

import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.Uuid;

/**
 * Which descriptions of an origin topic are fresh enough to apply. A TOPIC_METADATA frame carries
 * a generation: when the source-site connector described the topic, in milliseconds of its clock,
 * strictly increasing per publisher and comparable across source tasks and their restarts (a
 * wall clock, not a counter that would start again). Two rules keep stale metadata from rolling a
 * destination topic back ({@code retention.ms}, {@code cleanup.policy}):
 * <ul>
 *   <li>a description older than the last one this task applied to the topic is never applied,
 *       whatever route or order it came by (a relay re-sending an old frame, two refreshes
 *       overtaking each other); an equal generation is the same description again and applies;</li>
 *   <li>a description older than {@code topic.metadata.max.age.ms} by this worker's clock is not
 *       applied either. What a task applied is kept in memory only, so this is what holds right
 *       after a task (re)starts: a replayed frame can be at most that old, and the source's next
 *       refresh ({@code topic.metadata.refresh.interval.ms}) supersedes it. The sites' clocks must
 *       agree to well within it.</li>
 * </ul>
 * The origin topic id (its incarnation) is remembered with the generation, for the log: a newer
 * generation of another incarnation (the origin topic deleted and made again) applies like any.
 *
 * <p>Thread-safe; in practice called from the task's single metadata applier thread.
 */
public final class MetadataGenerations {

    /** Why a description is not applied. */
    public enum Staleness {
        /** A newer description of the topic was applied: this one changes nothing (answered OK). */
        SUPERSEDED,
        /** Older than the maximum age and nothing newer seen: refused, the source describes the topic again. */
        TOO_OLD
    }

    private record Applied(Uuid topicId, long generation) {
    }

    private final Clock clock;
    private final long maxAgeMillis;
    private final Map<String, Applied> applied = new HashMap<>();

    public MetadataGenerations(Clock clock, Duration maxAge) {
        this.clock = clock;
        this.maxAgeMillis = maxAge.toMillis();
    }

    /** Null when {@code metadata} may be applied; otherwise why not. */
    synchronized Staleness staleness(TopicMetadataFrame metadata) {
        Applied last = applied.get(metadata.topic());
        boolean supersededHere = last != null && metadata.generation() < last.generation();
        if (supersededHere) {
            return Staleness.SUPERSEDED;
        }
        boolean tooOld = metadata.generation() < clock.millis() - maxAgeMillis;
        return tooOld ? Staleness.TOO_OLD : null;
    }

    /** The topic id {@code metadata} replaces when its incarnation differs from the last applied one, else null. */
    synchronized Uuid applied(TopicMetadataFrame metadata) {
        Applied before = applied.get(metadata.topic());
        if (before != null && before.generation() > metadata.generation()) {
            return null; // a newer one was applied meanwhile
        }
        applied.put(metadata.topic(), new Applied(metadata.topicId(), metadata.generation()));
        boolean newIncarnation = before != null && !before.topicId().equals(metadata.topicId());
        return newIncarnation ? before.topicId() : null;
    }

    /** How old {@code metadata} is by this worker's clock, for messages. */
    long ageMillis(TopicMetadataFrame metadata) {
        return clock.millis() - metadata.generation();
    }

    long maxAgeMillis() {
        return maxAgeMillis;
    }
}
