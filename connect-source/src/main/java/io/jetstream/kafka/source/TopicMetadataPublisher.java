package io.jetstream.kafka.source;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ships the partition count and the explicitly set configs of each replicated topic to the
 * destination, so it can create the topic alike and grow it when the origin grows. A topic is
 * described when the task first sees it and again every refresh interval, on a thread of its own
 * (Admin calls block). The destination answers each metadata frame: until it has applied the
 * current partition count of a topic (it refuses batches of a topic it cannot create yet), the
 * topic is published again every {@link #UNCONFIRMED_RETRY}.
 */
final class TopicMetadataPublisher implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TopicMetadataPublisher.class);

    /** Configs never replicated: they describe the source cluster, not the data (as MirrorMaker 2). */
    static final Set<String> EXCLUDED_CONFIGS = Set.of(
            "follower.replication.throttled.replicas", "leader.replication.throttled.replicas",
            "message.timestamp.difference.max.ms", "message.timestamp.type", "unclean.leader.election.enable",
            "min.insync.replicas");

    /** Where metadata goes: the sender. */
    interface Sink {
        boolean sendMetadata(String topic, int partitionCount, Map<String, String> configs);
    }

    private final Admin admin;
    private final Sink sink;
    private final BiConsumer<String, Uuid> topicIds;
    private final ScheduledExecutorService executor;
    private final Set<String> topics = ConcurrentHashMap.newKeySet();
    private final Map<String, Integer> lastSentPartitions = new ConcurrentHashMap<>();
    private final Map<String, Integer> confirmedPartitions = new ConcurrentHashMap<>();

    /** How often metadata the destination has not confirmed is published again. */
    static final Duration UNCONFIRMED_RETRY = Duration.ofSeconds(2);

    /** Longest wait for one Admin call ({@code cluster.call.timeout.ms}). */
    private final long callTimeoutMillis;

    /**
     * @param topicIds hears the id of every topic described (a recreated topic shows here first when
     *     the consumer read on into it without noticing)
     */
    TopicMetadataPublisher(Admin admin, Sink sink, BiConsumer<String, Uuid> topicIds, Duration refresh,
                           Duration callTimeout, String threadName) {
        this.callTimeoutMillis = callTimeout.toMillis();
        this.admin = admin;
        this.sink = sink;
        this.topicIds = topicIds;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, threadName);
            thread.setDaemon(true);
            return thread;
        });
        executor.scheduleWithFixedDelay(this::refreshAll, refresh.toMillis(), refresh.toMillis(), TimeUnit.MILLISECONDS);
        executor.scheduleWithFixedDelay(this::retryUnconfirmed, UNCONFIRMED_RETRY.toMillis(),
                UNCONFIRMED_RETRY.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The destination's answer to the metadata of {@code topic} with {@code partitionCount} partitions. */
    void onMetadataAcknowledged(String topic, int partitionCount, boolean applied) {
        if (applied) {
            confirmedPartitions.put(topic, partitionCount);
        } else {
            confirmedPartitions.remove(topic);
        }
    }

    /** Whether the destination confirmed the partition count last described for {@code topic}. */
    boolean isConfirmed(String topic) {
        Integer confirmed = confirmedPartitions.get(topic);
        return confirmed != null && confirmed.equals(lastSentPartitions.get(topic));
    }

    private void retryUnconfirmed() {
        publish(topics.stream().filter(topic -> !isConfirmed(topic)).toList());
    }

    /** Describes and ships a topic the task has not seen before. Cheap to call for every record. */
    void onTopicSeen(String topic) {
        if (topics.add(topic)) {
            executor.execute(() -> publish(List.of(topic)));
        }
    }

    private void refreshAll() {
        publish(List.copyOf(topics));
    }

    private void publish(Collection<String> names) {
        if (names.isEmpty()) {
            return;
        }
        try {
            Map<String, TopicDescription> descriptions = admin.describeTopics(names).allTopicNames()
                    .get(callTimeoutMillis, TimeUnit.MILLISECONDS);
            List<ConfigResource> resources = names.stream()
                    .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
            Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all()
                    .get(callTimeoutMillis, TimeUnit.MILLISECONDS);
            for (String topic : names) {
                TopicDescription description = descriptions.get(topic);
                if (description == null) {
                    continue;
                }
                topicIds.accept(topic, description.topicId());
                Map<String, String> replicated = replicatedConfigs(
                        configs.get(new ConfigResource(ConfigResource.Type.TOPIC, topic)));
                int partitions = description.partitions().size();
                if (sink.sendMetadata(topic, partitions, replicated)) {
                    Integer before = lastSentPartitions.put(topic, partitions);
                    if (before == null || before != partitions) {
                        log.info("Shipped metadata of topic {}: {} partitions, configs {}", topic, partitions, replicated);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // Retried at the next refresh; the destination also grows topics from the batches it sees.
            log.warn("Could not read metadata of topics {}: {}", names, e.toString());
        }
    }

    static Map<String, String> replicatedConfigs(Config config) {
        Map<String, String> out = new HashMap<>();
        if (config == null) {
            return out;
        }
        for (ConfigEntry entry : config.entries()) {
            boolean setOnTopic = entry.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG;
            if (setOnTopic && !entry.isSensitive() && entry.value() != null
                    && !EXCLUDED_CONFIGS.contains(entry.name())) {
                out.put(entry.name(), entry.value());
            }
        }
        return out;
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
