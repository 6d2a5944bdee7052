package io.jetstream.kafka.source;

import io.jetstream.kafka.source.sender.MetadataInFlight;
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
final class TopicMetadataPublisher implements AutoCloseable, MetadataInFlight.Listener {

    private static final Logger log = LoggerFactory.getLogger(TopicMetadataPublisher.class);

    /** Configs never replicated: they describe the source cluster, not the data (as MirrorMaker 2). */
    static final Set<String> EXCLUDED_CONFIGS = Set.of(
            "follower.replication.throttled.replicas", "leader.replication.throttled.replicas",
            "message.timestamp.difference.max.ms", "message.timestamp.type", "unclean.leader.election.enable",
            "min.insync.replicas");

    /** Where metadata goes: the sender, which tells the answers to {@code answers} (this publisher). */
    interface Sink {
        /**
         * @param schemaGeneration the {@link Schemas#generation} of the schemas among the configs
         * @param topicId          the topic's id (its incarnation)
         * @param generation       when the topic was described ({@link #nextGeneration})
         * @param answers          told the destination's answer, and when it lacks the topic's schemas
         */
        boolean sendMetadata(String topic, int partitionCount, Map<String, String> configs, long schemaGeneration,
                             Uuid topicId, long generation, MetadataInFlight.Listener answers);
    }

    /**
     * Schemas shipped with a topic's metadata ({@code schema.translation.enabled}): config entries
     * added to the topic's, and a generation that grows when a topic gains a schema.
     */
    interface Schemas {
        Schemas NONE = new Schemas() {
            @Override
            public Map<String, String> entries(String topic) {
                return Map.of();
            }

            @Override
            public long generation(String topic) {
                return 0;
            }
        };

        Map<String, String> entries(String topic);

        long generation(String topic);
    }

    /** What was shipped of a topic, or what the destination confirmed it applied. */
    private record Shipped(int partitions, long schemaGeneration) {
    }

    private final Admin admin;
    private final Sink sink;
    private final BiConsumer<String, Uuid> topicIds;
    private final ScheduledExecutorService executor;
    private final Set<String> topics = ConcurrentHashMap.newKeySet();
    private final Schemas schemas;
    private final Map<String, Shipped> lastSent = new ConcurrentHashMap<>();
    private final Map<String, Shipped> confirmed = new ConcurrentHashMap<>();

    /** How often metadata the destination has not confirmed is published again. */
    static final Duration UNCONFIRMED_RETRY = Duration.ofSeconds(2);

    /** Longest wait for one Admin call ({@code cluster.call.timeout.ms}). */
    private final long callTimeoutMillis;

    /** The last generation given to a description (publisher thread only). */
    private long lastGeneration;

    /**
     * @param topicIds hears the id of every topic described (a recreated topic shows here first when
     *     the consumer read on into it without noticing)
     */
    TopicMetadataPublisher(Admin admin, Sink sink, BiConsumer<String, Uuid> topicIds, Duration refresh,
                           Duration callTimeout, String threadName) {
        this(admin, sink, topicIds, refresh, callTimeout, threadName, Schemas.NONE);
    }

    /** @param schemas the schemas shipped with each topic's metadata */
    TopicMetadataPublisher(Admin admin, Sink sink, BiConsumer<String, Uuid> topicIds, Duration refresh,
                           Duration callTimeout, String threadName, Schemas schemas) {
        this.callTimeoutMillis = callTimeout.toMillis();
        this.admin = admin;
        this.sink = sink;
        this.schemas = schemas;
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

    /**
     * The destination's answer to the metadata of {@code topic} with {@code partitionCount}
     * partitions and the schemas of {@code schemaGeneration}.
     */
    @Override
    public void onMetadataAcknowledged(String topic, int partitionCount, long schemaGeneration, boolean applied) {
        if (applied) {
            confirmed.put(topic, new Shipped(partitionCount, schemaGeneration));
        } else {
            confirmed.remove(topic);
        }
    }

    /**
     * Whether the destination confirmed the partition count last described for {@code topic}, with
     * every schema the topic has now.
     */
    boolean isConfirmed(String topic) {
        Shipped applied = confirmed.get(topic);
        return applied != null && applied.equals(lastSent.get(topic))
                && applied.schemaGeneration() == schemas.generation(topic);
    }

    /** The topic gained a schema: see {@link #republish}. */
    void onSchemasChanged(String topic) {
        republish(topic);
    }

    /**
     * The destination refused a batch of the topic for a schema it lacks (a task that restarted
     * there): see {@link #republish}. Told by the sender, as the listener of the topic's metadata.
     */
    @Override
    public void onSchemasMissing(String topic) {
        republish(topic);
    }

    /** The topic's metadata, with its schemas, goes again now, and every {@link #UNCONFIRMED_RETRY} until confirmed. */
    private void republish(String topic) {
        confirmed.remove(topic);
        if (topics.contains(topic)) {
            executor.execute(() -> publish(List.of(topic)));
        }
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
                long metadataGeneration = nextGeneration();
                long generation = schemas.generation(topic);
                Map<String, String> withSchemas = new HashMap<>(replicated);
                withSchemas.putAll(schemas.entries(topic));
                if (sink.sendMetadata(topic, partitions, withSchemas, generation, description.topicId(),
                        metadataGeneration, this)) {
                    Shipped before = lastSent.put(topic, new Shipped(partitions, generation));
                    if (before == null || before.partitions() != partitions) {
                        log.info("Shipped metadata of topic {}: {} partitions, configs {}", topic, partitions, replicated);
                    }
                    if (before == null || before.schemaGeneration() != generation) {
                        log.info("Shipped the schemas of topic {}: {} schema id(s)", topic,
                                withSchemas.size() - replicated.size());
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

    /**
     * The generation of a description just read: this worker's wall clock in milliseconds, taken
     * after the describe calls answered, and above the last one given (a clock stepping back does not
     * make a later description look older). A wall clock rather than a counter, so that the
     * descriptions of every task, and of a task before and after a restart, compare: the destination
     * applies a description only if it is newer than the last it applied, and not older than its
     * {@code topic.metadata.max.age.ms}. Descriptions read by two tasks within the same Admin
     * call's duration (or within the skew of their clocks) may compare either way; the next refresh
     * settles it.
     */
    private long nextGeneration() {
        lastGeneration = Math.max(System.currentTimeMillis(), lastGeneration + 1);
        return lastGeneration;
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
