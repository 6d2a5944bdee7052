package io.jetstream.kafka.sink.topics;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the destination's brokers serve every partition of a topic the task has just created or
 * grown: each partition's leader answers a ListOffsets once it has made the partition's log. Until
 * then {@link #check} refuses the topic's batches with {@link DestinationTopics.MetadataPendingException}
 * (the source sends them again). One ListOffsets over the topic per {@link #CHECK_INTERVAL} at most
 * while it is not ready; nothing at all for a topic that was never marked.
 */
final class TopicReadiness {

    private static final Logger log = LoggerFactory.getLogger(DestinationTopics.class);

    /** Least time between two readiness checks of one topic. */
    static final Duration CHECK_INTERVAL = Duration.ofMillis(500);
    /** Longest wait for one readiness check (below {@code cluster.call.timeout.ms} if that is lower). */
    static final Duration CHECK_TIMEOUT = Duration.ofSeconds(2);

    private final Admin admin;
    private final long timeoutMillis;
    /** Topics created or grown here whose partitions have not all answered yet, to the nano time of the next check. */
    private final Map<String, Long> unready = new ConcurrentHashMap<>();
    private final Map<String, Long> unreadySince = new ConcurrentHashMap<>();
    private volatile Duration checkInterval = CHECK_INTERVAL;

    TopicReadiness(Admin admin, Duration callTimeout) {
        this.admin = admin;
        this.timeoutMillis = Math.min(callTimeout.toMillis(), CHECK_TIMEOUT.toMillis());
    }

    /** Marks a topic just created or grown: its batches wait until every partition answers at its leader. */
    void notReadyYet(String topic) {
        long now = System.nanoTime();
        unready.put(topic, now);
        unreadySince.putIfAbsent(topic, now);
    }

    /**
     * Returns when {@code topic} takes writes; throws (retriably) while a topic marked by
     * {@link #notReadyYet} has a partition its leader does not serve yet.
     */
    void check(String topic, int partitionCount) throws DestinationTopics.MetadataPendingException {
        if (unready.isEmpty()) {
            return;
        }
        Long next = unready.get(topic);
        if (next == null) {
            return;
        }
        long now = System.nanoTime();
        if (now - next < 0) {
            throw new DestinationTopics.MetadataPendingException("destination topic " + topic + " was just created "
                    + "or grown and not every partition is served by its leader yet");
        }
        unready.put(topic, now + checkInterval.toNanos());
        String notServed = firstPartitionNotServed(topic, partitionCount);
        if (notServed != null) {
            throw new DestinationTopics.MetadataPendingException("destination topic " + topic + " was just created "
                    + "or grown and " + notServed);
        }
        unready.remove(topic);
        Long since = unreadySince.remove(topic);
        log.info("Topic {}: all {} partitions are served by their leaders{}; writing to it", topic, partitionCount,
                since == null ? "" : " " + (now - since) / 1_000_000 + " ms after it was created or grown");
    }

    /** For tests: check on every batch. */
    void checkInterval(Duration interval) {
        this.checkInterval = interval;
    }

    /** A description of the first partition of {@code topic} that does not answer a ListOffsets, or null when all do. */
    private String firstPartitionNotServed(String topic, int partitionCount) {
        Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
        for (int p = 0; p < partitionCount; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        ListOffsetsResult result = admin.listOffsets(latest, new ListOffsetsOptions().timeoutMs((int) timeoutMillis));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        for (TopicPartition tp : latest.keySet()) {
            try {
                result.partitionResult(tp).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                return "partition " + tp.partition() + " is not served by its leader yet ("
                        + e.getCause().getClass().getSimpleName() + ")";
            } catch (TimeoutException e) {
                return "partition " + tp.partition() + " did not answer within " + timeoutMillis + " ms";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "the check was interrupted";
            }
        }
        return null;
    }
}
