package io.jetstream.kafka.sink.topics;

import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.sink.config.SinkSiteConfig;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates destination topics with the origin's partition count and configs, and grows them when
 * the origin grows, so every record lands in its origin partition number. Partition counts are
 * cached; a batch for a partition beyond the known count triggers a describe and, if needed,
 * growth. A topic is created only from the origin's metadata (partition count and configs): a
 * batch that arrives first is refused with {@link MetadataPendingException}, which the sender
 * retries, rather than creating the topic with a guessed partition count and without its configs.
 * An existing topic is grown to the batch's partition when the origin's metadata is missing or
 * stale (the origin grew; the rest converges when the metadata arrives).
 * Several tasks may race to create or grow a topic: "already exists" counts as success.
 *
 * <p>Freshness: only a description newer than the last applied one, and not older than
 * {@code topic.metadata.max.age.ms}, is applied ({@link MetadataGenerations}). Config sync follows
 * the origin both ways, as MirrorMaker 2 does since KIP-894: an override the origin has is SET, an
 * override of the destination topic that the origin no longer has is DELETEd (back to the broker
 * default), both by incremental alter configs; configs matching {@code sync.topic.configs.exclude}
 * are never touched either way. Creation from unsigned metadata is capped
 * ({@link TopicCreationBudget}).
 *
 * <p>Readiness: a topic this task created or grew takes writes only once its leaders serve every
 * partition ({@link TopicReadiness}): at many partitions on a busy broker, transactions written while
 * the logs were still being made kept their markers pending past the stable-offset check.
 */
public final class DestinationTopics implements TopicProvisioner, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DestinationTopics.class);

    private final long callTimeoutMillis;

    private record OriginMetadata(int partitionCount, Map<String, String> configs) {
    }

    /** The origin asks for more partitions than {@code create.topics.partitions.max} allows (final). */
    public static final class PartitionLimitException extends Exception {
        public PartitionLimitException(String message) {
            super(message, null, false, false);
        }
    }

    /** The metadata is older than what was applied, or than the maximum age: not applied. */
    public static final class StaleMetadataException extends Exception {
        private final MetadataGenerations.Staleness staleness;

        public StaleMetadataException(MetadataGenerations.Staleness staleness, String message) {
            super(message, null, false, false);
            this.staleness = staleness;
        }

        public MetadataGenerations.Staleness staleness() {
            return staleness;
        }
    }

    /** Creating the topic would exceed {@code create.topics.unsigned.max} (retried by the source later). */
    public static final class CreationLimitException extends Exception {
        public CreationLimitException(String message) {
            super(message, null, false, false);
        }
    }

    /** The destination topic does not exist and the origin's metadata has not arrived yet (retriable). */
    public static final class MetadataPendingException extends Exception {
        public MetadataPendingException(String message) {
            super(message, null, false, false);
        }
    }

    private final Admin admin;
    private final TopicNamingPolicy naming;
    private final boolean create;
    private final Optional<Short> replicationFactor;
    private final boolean syncConfigs;
    private final Predicate<String> excludedConfig;
    private final Map<String, Integer> destinationPartitions = new ConcurrentHashMap<>();
    private final Map<String, OriginMetadata> origin = new ConcurrentHashMap<>();
    private final Consumer<String> onRecreated;
    private final int partitionsMax;
    private final MetadataGenerations generations;
    private final TopicCreationBudget creations;
    private final TopicReadiness readiness;

    /**
     * A task's destination topics as its configuration says: creation, config sync, the partition cap,
     * the freshness of metadata and, without {@code integrity.key}, the cap on creations from unsigned
     * metadata.
     */
    public static DestinationTopics start(Admin admin, TopicNamingPolicy naming, SinkSiteConfig config,
                                          Consumer<String> onRecreated) {
        return new DestinationTopics(admin, naming, config.topicCreation(), config.topicReplicationFactor(),
                config.topicConfigsSync(), config.topicConfigsExclude().asMatchPredicate(), config.clusterCallTimeout(),
                onRecreated, config.topicPartitionsMax(), new MetadataGenerations(Clock.systemUTC(),
                config.topicMetadataMaxAge()), config.integrityKey().isPresent() ? TopicCreationBudget.UNLIMITED
                : new TopicCreationBudget(config.topicCreateUnsignedMax(), config.topicCreateUnsignedInterval(),
                Clock.systemUTC()));
    }

    /**
     * @param callTimeout longest wait for one Admin call ({@code cluster.call.timeout.ms}); a call
     *                    that takes longer throws a {@link java.util.concurrent.TimeoutException}
     */
    DestinationTopics(Admin admin, TopicNamingPolicy naming, boolean create, short replicationFactor,
                      boolean syncConfigs, Duration callTimeout) {
        this(admin, naming, create, replicationFactor, syncConfigs, name -> false, callTimeout, topic -> { },
                Integer.MAX_VALUE);
    }

    /** With the default maximum age of metadata and no cap on creations. */
    DestinationTopics(Admin admin, TopicNamingPolicy naming, boolean create, short replicationFactor,
                      boolean syncConfigs, Predicate<String> excludedConfig, Duration callTimeout,
                      Consumer<String> onRecreated, int partitionsMax) {
        this(admin, naming, create, replicationFactor, syncConfigs, excludedConfig, callTimeout, onRecreated,
                partitionsMax, new MetadataGenerations(Clock.systemUTC(), SinkSiteConfig.DEFAULT_TOPIC_METADATA_MAX_AGE),
                TopicCreationBudget.UNLIMITED);
    }

    /**
     * @param excludedConfig names of origin topic configs never applied here ({@code sync.topic.configs.exclude})
     * @param onRecreated    told the name of each destination topic this task had created or used that
     *                       was found deleted (or smaller), before it is made again
     * @param partitionsMax  most partitions given to a topic ({@code create.topics.partitions.max})
     * @param generations    which metadata is fresh enough to apply
     * @param creations      how many topics may still be created ({@link TopicCreationBudget#UNLIMITED} with a key)
     */
    DestinationTopics(Admin admin, TopicNamingPolicy naming, boolean create, short replicationFactor,
                      boolean syncConfigs, Predicate<String> excludedConfig, Duration callTimeout,
                      Consumer<String> onRecreated, int partitionsMax, MetadataGenerations generations,
                      TopicCreationBudget creations) {
        this.generations = generations;
        this.creations = creations;
        this.partitionsMax = partitionsMax;
        this.excludedConfig = excludedConfig;
        this.onRecreated = onRecreated;
        this.callTimeoutMillis = callTimeout.toMillis();
        this.admin = admin;
        this.readiness = new TopicReadiness(admin, callTimeout);
        this.naming = naming;
        this.create = create;
        this.replicationFactor = replicationFactor < 0 ? Optional.empty() : Optional.of(replicationFactor);
        this.syncConfigs = syncConfigs;
    }

    @Override
    public void ensure(String originTopic, int partition) throws Exception {
        String topic = naming.destinationTopic(originTopic);
        Integer known = destinationPartitions.get(topic);
        if (known != null && known > partition) {
            readiness.check(topic, known);
            return;
        }
        if (create && !origin.containsKey(originTopic) && describe(topic) == null) {
            throw new MetadataPendingException("destination topic " + topic + " does not exist and the metadata of "
                    + "origin topic " + originTopic + " has not arrived yet");
        }
        int wanted = Math.max(partition + 1, originCount(originTopic));
        ensurePartitions(originTopic, topic, wanted);
        readiness.check(topic, destinationPartitions.getOrDefault(topic, wanted));
    }

    /** For tests: check readiness on every batch. */
    void readinessCheckInterval(Duration interval) {
        readiness.checkInterval(interval);
    }

    /**
     * Applies the origin's metadata, which the source sends when it first sees a topic and then every
     * {@code topic.metadata.refresh.interval.ms}. Each time, the destination topic is described afresh,
     * not taken from the cache: a topic deleted under the running connector (or deleted and created
     * again by a broker's auto-creation with its default partition count) is made again with the
     * origin's partition count and configs. Writes to it wait meanwhile (Connect's producer blocks on
     * the missing topic); records written before the deletion went with it.
     */
    @Override
    public void apply(TopicMetadataFrame metadata) throws Exception {
        if (metadata.partitionCount() > partitionsMax) {
            throw new PartitionLimitException("origin topic " + metadata.topic() + " has " + metadata.partitionCount()
                    + " partitions, more than " + SinkSiteConfig.TOPIC_PARTITIONS_MAX + "=" + partitionsMax
                    + "; nothing was created. Raise " + SinkSiteConfig.TOPIC_PARTITIONS_MAX
                    + " if the origin really has that many");
        }
        MetadataGenerations.Staleness staleness = generations.staleness(metadata);
        if (staleness != null) {
            throw new StaleMetadataException(staleness, "metadata of origin topic " + metadata.topic() + " described at "
                    + metadata.generation() + " (" + generations.ageMillis(metadata) + " ms ago by this worker's clock) "
                    + (staleness == MetadataGenerations.Staleness.SUPERSEDED ? "is older than the description applied "
                    + "already; not applied" : "is older than " + SinkSiteConfig.TOPIC_METADATA_MAX_AGE_MS + "="
                    + generations.maxAgeMillis() + "; not applied (the source describes the topic again; if this "
                    + "repeats, the clocks of the two sites disagree)"));
        }
        Map<String, String> configs = synced(metadata.configs(), excludedConfig);
        origin.put(metadata.topic(), new OriginMetadata(metadata.partitionCount(), configs));
        String topic = naming.destinationTopic(metadata.topic());
        Integer known = destinationPartitions.get(topic);
        if (known != null) {
            Integer actual = describe(topic);
            if (actual == null || actual < known) {
                destinationPartitions.remove(topic);
                log.warn("Destination topic {} {} under the running connector (it had {} partitions): making it "
                        + "again with {} partitions and the origin's configs. Records written to it before were "
                        + "deleted with it; replication goes on from the stored progress (counted in "
                        + "destination-topics-recreated-total)", topic, actual == null ? "was deleted"
                        : "was deleted and created again with " + actual + " partition(s)", known,
                        Math.max(known, metadata.partitionCount()));
                onRecreated.accept(topic);
            }
        }
        boolean created = ensurePartitions(metadata.topic(), topic, Math.max(metadata.partitionCount(),
                known == null ? 0 : known));
        if (!created && syncConfigs) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config current = admin.describeConfigs(List.of(resource)).all()
                    .get(callTimeoutMillis, TimeUnit.MILLISECONDS).get(resource);
            List<AlterConfigOp> ops = alterations(configs, overrides(current), excludedConfig);
            if (!ops.isEmpty()) {
                admin.incrementalAlterConfigs(Map.of(resource, ops)).all().get(callTimeoutMillis, TimeUnit.MILLISECONDS);
                log.info("Aligned the configs of topic {} with origin topic {}: {}", topic, metadata.topic(),
                        ops.stream().map(op -> op.opType() + " " + op.configEntry().name()).toList());
            }
        }
        Uuid replaced = generations.applied(metadata);
        if (replaced != null) {
            log.info("Metadata of origin topic {} now comes from incarnation {} (was {})", metadata.topic(),
                    metadata.topicId(), replaced);
        }
    }

    /** The configs set on the topic itself (dynamic topic overrides), by name. */
    private static Map<String, String> overrides(Config config) {
        Map<String, String> out = new LinkedHashMap<>();
        if (config != null) {
            for (ConfigEntry entry : config.entries()) {
                if (entry.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG && entry.value() != null) {
                    out.put(entry.name(), entry.value());
                }
            }
        }
        return out;
    }

    /**
     * What makes the destination's overrides the origin's: SET for each origin override the
     * destination lacks or holds another value of, DELETE for each destination override the origin
     * does not have (MirrorMaker 2's KIP-894 behaviour); never a config that {@code excluded} names.
     *
     * @param origin      the origin's overrides, excluded ones already taken out
     * @param destination the destination topic's overrides
     */
    static List<AlterConfigOp> alterations(Map<String, String> origin, Map<String, String> destination,
                                           Predicate<String> excluded) {
        List<AlterConfigOp> ops = new ArrayList<>();
        origin.forEach((name, value) -> {
            if (!excluded.test(name) && !value.equals(destination.get(name))) {
                ops.add(new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET));
            }
        });
        destination.keySet().forEach(name -> {
            boolean removedAtOrigin = !origin.containsKey(name);
            if (removedAtOrigin && !excluded.test(name)) {
                ops.add(new AlterConfigOp(new ConfigEntry(name, null), AlterConfigOp.OpType.DELETE));
            }
        });
        return ops;
    }

    /** The origin's configs without the excluded ones, in the origin's order. */
    public static Map<String, String> synced(Map<String, String> configs, Predicate<String> excluded) {
        Map<String, String> kept = new LinkedHashMap<>();
        configs.forEach((name, value) -> {
            if (!excluded.test(name)) {
                kept.put(name, value);
            }
        });
        return kept;
    }

    private int originCount(String originTopic) {
        OriginMetadata metadata = origin.get(originTopic);
        return metadata == null ? 0 : metadata.partitionCount();
    }

    /** Makes {@code topic} have at least {@code wanted} partitions; true when it had to create it. */
    private boolean ensurePartitions(String originTopic, String topic, int wanted) throws Exception {
        if (wanted > partitionsMax) {
            throw new PartitionLimitException("origin topic " + originTopic + " would need " + wanted
                    + " partitions at the destination (topic " + topic + "), more than "
                    + SinkSiteConfig.TOPIC_PARTITIONS_MAX + "=" + partitionsMax + "; nothing was created. Raise "
                    + SinkSiteConfig.TOPIC_PARTITIONS_MAX + " if the origin really has that many");
        }
        Integer current = destinationPartitions.get(topic);
        if (current == null) {
            current = describe(topic);
        }
        if (current == null) {
            if (!create) {
                throw new IllegalStateException("destination topic " + topic + " does not exist and "
                        + SinkSiteConfig.TOPIC_CREATE + " is false");
            }
            if (!creations.tryTake()) {
                throw new CreationLimitException("destination topic " + topic + " (origin " + originTopic + ") was not "
                        + "created: this task already created " + creations.max() + " topics in the last "
                        + creations.interval().toMillis() + " ms from metadata without a MAC ("
                        + SinkSiteConfig.TOPIC_CREATE_UNSIGNED_MAX + "). Set integrity.key on both connectors, or "
                        + "narrow " + SinkSiteConfig.TOPICS_ALLOW + ", or raise " + SinkSiteConfig.TOPIC_CREATE_UNSIGNED_MAX
                        + " if this many new topics are expected");
            }
            OriginMetadata metadata = origin.get(originTopic);
            NewTopic newTopic = new NewTopic(topic, Optional.of(wanted), replicationFactor);
            if (syncConfigs && metadata != null) {
                newTopic.configs(metadata.configs());
            }
            try {
                admin.createTopics(List.of(newTopic)).all().get(callTimeoutMillis, TimeUnit.MILLISECONDS);
                log.info("Created topic {} with {} partitions (origin {})", topic, wanted, originTopic);
                destinationPartitions.put(topic, wanted);
                readiness.notReadyYet(topic);
                return true;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
                current = describe(topic);
                if (current == null) {
                    throw new IllegalStateException("topic " + topic + " exists but cannot be described");
                }
                readiness.notReadyYet(topic); // made by another task a moment ago, perhaps
            }
        }
        if (current < wanted) {
            try {
                admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(wanted))).all()
                        .get(callTimeoutMillis, TimeUnit.MILLISECONDS);
                log.info("Grew topic {} from {} to {} partitions", topic, current, wanted);
                readiness.notReadyYet(topic);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof InvalidPartitionsException)) {
                    throw e;
                }
                // Another task grew it first ("already has N partitions"); metadata may lag, so
                // the describe is not trusted here. A write to a missing partition fails loudly.
                log.debug("Topic {} was grown concurrently: {}", topic, e.getCause().getMessage());
            }
            current = wanted;
        }
        destinationPartitions.put(topic, current);
        return false;
    }

    /** The end offset of a destination partition now (the offset its next record gets). */
    public long endOffset(String topic, int partition) throws Exception {
        TopicPartition tp = new TopicPartition(topic, partition);
        return admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp)
                .get(callTimeoutMillis, TimeUnit.MILLISECONDS).offset();
    }

    private Integer describe(String topic) throws Exception {
        try {
            TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(callTimeoutMillis, TimeUnit.MILLISECONDS).get(topic);
            return description.partitions().size();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return null;
            }
            throw e;
        }
    }

    @Override
    public void close() {
        admin.close(java.time.Duration.ofSeconds(5));
    }
}
