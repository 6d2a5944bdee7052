package io.jetstream.kafka.sink.checkpoint;

import io.jetstream.kafka.connect.common.config.ClusterClients;
import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.core.offsets.GroupOffsetTranslation;
import io.jetstream.kafka.core.offsets.OffsetMapFollower;
import io.jetstream.kafka.sink.config.CheckpointConfigs;
import io.jetstream.kafka.sink.config.OffsetMapConfigs;
import io.jetstream.kafka.sink.config.SinkSiteConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.ThreadUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@link GroupCheckpoints} every {@code emit.checkpoints.interval.ms} on one thread of the
 * destination-site connector (one per connector, not per task), with the Kafka clients it needs: an
 * Admin client of the source cluster (group positions), an Admin client and a producer of this
 * cluster (group sync, checkpoints) and a follower of the offset map. A failed round is logged and
 * the next one tries again. {@link #close()} stops the thread and closes the clients.
 */
public final class GroupCheckpointer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(GroupCheckpointer.class);

    /** What {@link #close()} may take, at most about. */
    static final Duration STOP_BUDGET = Duration.ofSeconds(4);

    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(
            ThreadUtils.createThreadFactory("jetstream-checkpoints-%d", true));
    private final Admin source;
    private final Admin target;
    private final KafkaProducer<byte[], byte[]> producer;
    private final OffsetMapFollower follower;
    private final GroupCheckpoints checkpoints;
    private final String checkpointsTopic;
    private final String sourceAlias;
    private final boolean mm2Format;
    private final Duration callTimeout;
    private final short replicationFactor;
    private boolean topicReady;

    public GroupCheckpointer(SinkSiteConfig config, String connectorName) {
        this(config, connectorName, Clock.system());
    }

    /** @param clock the time the group offset sync interval goes by */
    public GroupCheckpointer(SinkSiteConfig config, String connectorName, Clock clock) {
        ClusterClients sourceCluster = CheckpointConfigs.sourceCluster(config);
        ClusterClients targetCluster = config.targetCluster();
        this.sourceAlias = config.sourceAlias();
        this.callTimeout = config.clusterCallTimeout();
        this.replicationFactor = config.topicReplicationFactor();
        this.checkpointsTopic = CheckpointConfigs.topic(config);
        this.mm2Format = CheckpointConfigs.mm2Format(config);
        this.source = sourceCluster.admin(connectorName + "-checkpoints-source");
        this.target = targetCluster.admin(connectorName + "-checkpoints-target");
        Map<String, Object> producerProps = new HashMap<>(targetCluster.config(connectorName + "-checkpoints"));
        producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
        this.producer = new KafkaProducer<>(producerProps, new ByteArraySerializer(), new ByteArraySerializer());
        this.follower = new OffsetMapFollower(targetCluster.config(connectorName + "-offset-map"),
                OffsetMapConfigs.topic(config), origin -> origin.sourceAlias().equals(sourceAlias));
        this.checkpoints = new GroupCheckpoints(CheckpointConfigs.groupFilter(config), new SourceGroups(),
                new TargetGroups(), () -> follower.refresh(callTimeout.multipliedBy(3)),
                CheckpointConfigs.syncEnabled(config), CheckpointConfigs.syncInterval(config).toMillis(),
                () -> TimeUnit.NANOSECONDS.toMillis(clock.nanoTime()));
        long interval = CheckpointConfigs.interval(config).toMillis();
        executor.scheduleWithFixedDelay(this::round, Math.min(interval, 5_000), interval, TimeUnit.MILLISECONDS);
        log.info("Checkpointing consumer groups of {} every {} ms into {} (group offset sync {})", sourceCluster,
                interval, checkpointsTopic, CheckpointConfigs.syncEnabled(config) ? "on" : "off");
    }

    private void round() {
        try {
            if (!topicReady) {
                ensureTopic();
                topicReady = true;
            }
            GroupCheckpoints.Round round = checkpoints.run();
            log.debug("Checkpoint round: {}", round);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.warn("Checkpoint round failed; the next one tries again in emit.checkpoints.interval.ms: {}",
                    e.toString());
        }
    }

    private void ensureTopic() throws Exception {
        if (target.listTopics().names().get(callTimeout.toMillis(), TimeUnit.MILLISECONDS).contains(checkpointsTopic)) {
            return;
        }
        NewTopic topic = new NewTopic(checkpointsTopic, Optional.of(1),
                replicationFactor < 0 ? Optional.empty() : Optional.of(replicationFactor))
                .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
        try {
            target.createTopics(List.of(topic)).all().get(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }

    /** The source cluster's groups through its Admin API. */
    private final class SourceGroups implements GroupCheckpoints.Origin {
        @Override
        public Collection<String> groups() throws Exception {
            List<String> groups = new ArrayList<>();
            source.listConsumerGroups().all().get(callTimeout.toMillis(), TimeUnit.MILLISECONDS)
                    .forEach(listing -> groups.add(listing.groupId()));
            return groups;
        }

        @Override
        public Map<TopicPartition, Long> committed(String group) throws Exception {
            return positions(source, group);
        }

        @Override
        public Map<String, Uuid> topicIds(Collection<String> topics) throws Exception {
            return GroupOffsetTranslation.originTopicIds(source, topics, callTimeout);
        }
    }

    /** This cluster's groups and the checkpoints topic. */
    private final class TargetGroups implements GroupCheckpoints.Destination {
        @Override
        public int activeMembers(String group) throws Exception {
            return GroupOffsetTranslation.activeMembers(target, group, callTimeout);
        }

        @Override
        public Map<TopicPartition, Long> committed(String group) throws Exception {
            return positions(target, group);
        }

        @Override
        public void commit(String group, Map<TopicPartition, Long> positions) throws Exception {
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            positions.forEach((tp, offset) -> offsets.put(tp, new OffsetAndMetadata(offset)));
            target.alterConsumerGroupOffsets(group, offsets).all().get(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
        }

        @Override
        public void write(List<GroupCheckpoints.Checkpoint> checkpoints) throws Exception {
            List<Future<?>> sends = new ArrayList<>();
            for (GroupCheckpoints.Checkpoint checkpoint : checkpoints) {
                if (mm2Format) {
                    sends.add(producer.send(new ProducerRecord<>(checkpointsTopic,
                            Mm2CheckpointFormat.key(checkpoint.group(), checkpoint.downstream()),
                            Mm2CheckpointFormat.value(checkpoint.upstreamOffset(), checkpoint.downstreamOffset(), ""))));
                    continue;
                }
                String key = checkpoint.group() + "/" + sourceAlias + "/" + checkpoint.origin().topic() + "/"
                        + checkpoint.origin().partition();
                String value = "{\"upstreamOffset\":" + checkpoint.upstreamOffset() + ",\"downstreamTopic\":\""
                        + checkpoint.downstream().topic() + "\",\"downstreamOffset\":" + checkpoint.downstreamOffset()
                        + "}";
                sends.add(producer.send(new ProducerRecord<>(checkpointsTopic, key.getBytes(StandardCharsets.UTF_8),
                        value.getBytes(StandardCharsets.UTF_8))));
            }
            for (Future<?> send : sends) {
                send.get(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    private Map<TopicPartition, Long> positions(Admin admin, String group) throws Exception {
        Map<TopicPartition, Long> out = new HashMap<>();
        admin.listConsumerGroupOffsets(group, new ListConsumerGroupOffsetsOptions().timeoutMs((int) callTimeout.toMillis()))
                .partitionsToOffsetAndMetadata().get(callTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .forEach((tp, position) -> {
                    if (position != null) {
                        out.put(tp, position.offset());
                    }
                });
        return out;
    }

    /**
     * Stops the thread and closes the clients within about {@link #STOP_BUDGET}: Kafka Connect gives a
     * connector 5 s to stop before it calls it unresponsive, and a stop often comes because a cluster is
     * down, with calls in flight that would wait for their timeouts. What is cut short is a checkpoint
     * round, which the next instance runs again.
     */
    @Override
    public void close() {
        long start = System.nanoTime();
        executor.shutdownNow(); // interrupts a round waiting for a call
        try {
            if (!executor.awaitTermination(STOP_BUDGET.toMillis() / 2, TimeUnit.MILLISECONDS)) {
                log.warn("The checkpoint thread did not stop in time; closing its clients under it");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Duration each = STOP_BUDGET.dividedBy(8);
        follower.close(each);
        producer.close(each);
        source.close(each);
        target.close(each);
        log.info("Checkpointing stopped in {} ms", (System.nanoTime() - start) / 1_000_000);
    }
}
