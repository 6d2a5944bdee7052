package io.jetstream.kafka.testkit.workload;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the destination topics of a {@link ProducedLog} from the beginning, until every expected record has arrived
 * and the consumer has caught up with the end offsets seen at that moment (so duplicates written before then are
 * counted too), or until the deadline; then reports what it found.
 *
 * <pre>{@code
 * VerificationReport report = Verifier.builder(siteB.bootstrapServers())
 *         .topicMapping(topic -> "A." + topic)      // MirrorMaker 2's DefaultReplicationPolicy
 *         .samePartitions(true)
 *         .deadline(Duration.ofSeconds(60))
 *         .build()
 *         .verify(log);
 * assertThat(report.isPerfect()).as(report.toString()).isTrue();
 * }</pre>
 *
 * <p>The consumer assigns partitions itself (no group, nothing committed), uses byte-array deserializers and
 * {@code read_committed} unless told otherwise. A destination topic that never appears leaves its records missing;
 * partitions added to a destination topic while records are missing are followed (read from their beginning).
 * Instances are immutable and may verify several logs; each {@link #verify} call uses its own consumer on the calling
 * thread.
 */
public final class Verifier {

    private static final Logger log = LoggerFactory.getLogger(Verifier.class);
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);
    private static final Duration METADATA_RETRY = Duration.ofMillis(100);
    /** How often partitions are looked up again while records are missing (and the metadata's max age). */
    private static final Duration PARTITION_REFRESH = Duration.ofSeconds(1);

    private final Map<String, Object> consumerConfig;
    private final UnaryOperator<String> topicMapping;
    private final boolean samePartitions;
    private final boolean checkTimestamps;
    private final Set<String> ignoredHeaders;
    private final Duration deadline;
    private final Function<Map<String, Object>, Consumer<byte[], byte[]>> consumerFactory;

    private Verifier(Builder builder) {
        this.consumerConfig = Map.copyOf(builder.consumerConfig);
        this.topicMapping = builder.topicMapping;
        this.samePartitions = builder.samePartitions;
        this.checkTimestamps = builder.checkTimestamps;
        this.ignoredHeaders = Set.copyOf(builder.ignoredHeaders);
        this.deadline = builder.deadline;
        this.consumerFactory = builder.consumerFactory;
    }

    public static Builder builder(String bootstrapServers) {
        return new Builder(bootstrapServers);
    }

    /** Consumes until everything expected arrived or the deadline passed; never throws for a bad destination. */
    public VerificationReport verify(ProducedLog expected) {
        long startNanos = System.nanoTime();
        long deadlineNanos = startNanos + deadline.toNanos();
        DeliveryTracker tracker =
                new DeliveryTracker(expected, topicMapping, samePartitions, checkTimestamps, ignoredHeaders);
        try (Consumer<byte[], byte[]> consumer = consumerFactory.apply(consumerConfig)) {
            Set<String> topics = destinationTopics(expected);
            List<TopicPartition> partitions = awaitPartitions(consumer, topics, deadlineNanos);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> endOffsets = null;
            long nextPartitionCheck = System.nanoTime() + PARTITION_REFRESH.toNanos();
            while (System.nanoTime() - deadlineNanos < 0) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(pollTimeout(deadlineNanos))) {
                    tracker.observe(record);
                }
                if (!tracker.allDelivered() && System.nanoTime() - nextPartitionCheck >= 0) {
                    // A replicator may create a topic small and grow it, or the origin grew: follow it.
                    partitions = followNewPartitions(consumer, topics, partitions, deadlineNanos);
                    nextPartitionCheck = System.nanoTime() + PARTITION_REFRESH.toNanos();
                }
                if (tracker.allDelivered()) {
                    if (endOffsets == null) {
                        endOffsets = consumer.endOffsets(partitions);
                    }
                    if (caughtUp(consumer, endOffsets)) {
                        break;
                    }
                }
            }
        }
        VerificationReport report = tracker.report(Duration.ofNanos(System.nanoTime() - startNanos));
        log.info("verified run {} against {}: {}", expected.runId(), destinationTopics(expected), report);
        return report;
    }

    private Set<String> destinationTopics(ProducedLog expected) {
        Set<String> topics = new LinkedHashSet<>();
        expected.topics().forEach(topic -> topics.add(topicMapping.apply(topic)));
        return topics;
    }

    /** Waits for each destination topic's metadata until the deadline; topics still unknown then are skipped. */
    private static List<TopicPartition> awaitPartitions(Consumer<byte[], byte[]> consumer, Set<String> topics,
                                                        long deadlineNanos) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : topics) {
            List<PartitionInfo> infos = List.of();
            long leftNanos = deadlineNanos - System.nanoTime();
            try {
                // Not created yet (a replicator creates it): asked again every METADATA_RETRY. The
                // consumer is confined to this thread, so the condition runs on it too.
                infos = await("metadata of destination topic " + topic).atMost(Duration.ofNanos(Math.max(1, leftNanos)))
                        .pollDelay(Duration.ZERO).pollInterval(METADATA_RETRY).pollInSameThread()
                        .until(() -> partitionsFor(consumer, topic, deadlineNanos), found -> !found.isEmpty());
            } catch (ConditionTimeoutException e) {
                log.warn("destination topic {} did not appear before the deadline", topic);
            }
            infos.forEach(info -> partitions.add(new TopicPartition(info.topic(), info.partition())));
        }
        return partitions;
    }

    /** Assigns partitions that appeared since the last look, read from their beginning. */
    private static List<TopicPartition> followNewPartitions(Consumer<byte[], byte[]> consumer, Set<String> topics,
                                                            List<TopicPartition> assigned, long deadlineNanos) {
        List<TopicPartition> added = new ArrayList<>();
        for (String topic : topics) {
            for (PartitionInfo info : partitionsFor(consumer, topic, deadlineNanos)) {
                TopicPartition tp = new TopicPartition(info.topic(), info.partition());
                if (!assigned.contains(tp)) {
                    added.add(tp);
                }
            }
        }
        if (added.isEmpty()) {
            return assigned;
        }
        log.info("verifier follows partitions added since it started: {}", added);
        List<TopicPartition> all = new ArrayList<>(assigned);
        all.addAll(added);
        consumer.assign(all);
        consumer.seekToBeginning(added);
        return all;
    }

    private static List<PartitionInfo> partitionsFor(Consumer<byte[], byte[]> consumer, String topic,
                                                     long deadlineNanos) {
        try {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, pollTimeout(deadlineNanos));
            return infos == null ? List.of() : infos;
        } catch (KafkaException e) {
            // Timeouts and unknown-topic errors while the topic is being created: retry until the deadline.
            log.debug("metadata of {} not available yet: {}", topic, e.toString());
            return List.of();
        }
    }

    private static boolean caughtUp(Consumer<byte[], byte[]> consumer, Map<TopicPartition, Long> endOffsets) {
        for (Map.Entry<TopicPartition, Long> end : endOffsets.entrySet()) {
            if (consumer.position(end.getKey()) < end.getValue()) {
                return false;
            }
        }
        return true;
    }

    private static Duration pollTimeout(long deadlineNanos) {
        long remaining = Math.max(1, deadlineNanos - System.nanoTime());
        return Duration.ofNanos(Math.min(POLL_TIMEOUT.toNanos(), remaining));
    }

    /** Options of a {@link Verifier}; defaults: identity mapping, any partition, timestamps checked, 60 s deadline. */
    public static final class Builder {
        private final Map<String, Object> consumerConfig = new HashMap<>();
        private UnaryOperator<String> topicMapping = UnaryOperator.identity();
        private boolean samePartitions;
        private boolean checkTimestamps = true;
        private final Set<String> ignoredHeaders = new LinkedHashSet<>();
        private Duration deadline = Duration.ofSeconds(60);
        private Function<Map<String, Object>, Consumer<byte[], byte[]>> consumerFactory = KafkaConsumer::new;

        private Builder(String bootstrapServers) {
            consumerConfig.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    Objects.requireNonNull(bootstrapServers, "bootstrapServers"));
            consumerConfig.put(ConsumerConfig.CLIENT_ID_CONFIG, "jetstream-verifier");
            consumerConfig.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            consumerConfig.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
            consumerConfig.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, (int) PARTITION_REFRESH.toMillis());
            consumerConfig.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2_000);
            consumerConfig.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
            consumerConfig.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
            isolationLevel(IsolationLevel.READ_COMMITTED);
        }

        /** Destination topic of each source topic, e.g. {@code t -> "A." + t}. */
        public Builder topicMapping(UnaryOperator<String> mapping) {
            this.topicMapping = Objects.requireNonNull(mapping, "mapping");
            return this;
        }

        /** Destination topic of each source topic; a topic not in the map keeps its name. */
        public Builder topicMapping(Map<String, String> mapping) {
            Map<String, String> copy = Map.copyOf(mapping);
            return topicMapping(topic -> copy.getOrDefault(topic, topic));
        }

        /** Require each record in the partition number it had at the source. */
        public Builder samePartitions(boolean required) {
            this.samePartitions = required;
            return this;
        }

        public Builder checkTimestamps(boolean check) {
            this.checkTimestamps = check;
            return this;
        }

        /** Header keys a replicator may add; they are left out of the headers comparison. */
        public Builder ignoreHeaders(Set<String> keys) {
            ignoredHeaders.addAll(keys);
            return this;
        }

        public Builder isolationLevel(IsolationLevel level) {
            consumerConfig.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, level.toString().toLowerCase(Locale.ROOT));
            return this;
        }

        /** How long to wait, in total, for the destination topics and every expected record. */
        public Builder deadline(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("verifier deadline must be positive, was " + timeout);
            }
            this.deadline = timeout;
            return this;
        }

        public Builder consumerProperty(String key, Object value) {
            consumerConfig.put(key, value);
            return this;
        }

        /** Where the consumer comes from, given its complete configuration (a seam for {@code MockConsumer}). */
        public Builder consumerFactory(Function<Map<String, Object>, Consumer<byte[], byte[]>> factory) {
            this.consumerFactory = Objects.requireNonNull(factory, "factory");
            return this;
        }

        public Verifier build() {
            return new Verifier(this);
        }
    }

    /** For logs: the consumer settings that matter, without credentials. */
    @Override
    public String toString() {
        return "Verifier[" + consumerConfig.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG) + ", "
                + consumerConfig.get(ConsumerConfig.ISOLATION_LEVEL_CONFIG) + ", samePartitions=" + samePartitions
                + ", deadline=" + deadline + "]";
    }
}
