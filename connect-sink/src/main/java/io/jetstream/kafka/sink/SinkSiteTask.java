package io.jetstream.kafka.sink;

import io.jetstream.kafka.connect.common.config.ClusterClients;
import io.jetstream.kafka.connect.common.config.RelayClientConfigs;
import io.jetstream.kafka.connect.common.metrics.TaskMetrics;
import io.jetstream.kafka.connect.common.relay.RelayClients;
import io.jetstream.kafka.connect.common.view.TaskView;
import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.core.protocol.SubscribeFrame;
import io.jetstream.kafka.sink.atleastonce.AtLeastOnceDelivery;
import io.jetstream.kafka.sink.config.OffsetMapConfigs;
import io.jetstream.kafka.sink.config.SinkSiteTaskConfig;
import io.jetstream.kafka.sink.exactlyonce.ExactlyOnceDelivery;
import io.jetstream.kafka.sink.metrics.SinkSiteMetrics;
import io.jetstream.kafka.sink.metrics.SinkTaskView;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import io.jetstream.kafka.sink.offsetmap.OffsetMapTopic;
import io.jetstream.kafka.sink.offsetmap.OffsetMapWriter;
import io.jetstream.kafka.sink.progress.SourceOffsets;
import io.jetstream.kafka.sink.progress.SourceRecords;
import io.jetstream.kafka.sink.progress.StoredProgress;
import io.jetstream.kafka.sink.receiver.DeliveryGuarantee;
import io.jetstream.kafka.sink.receiver.FrameIntegrity;
import io.jetstream.kafka.sink.receiver.RelayUpstream;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver;
import io.jetstream.kafka.sink.schemas.SinkSiteSchemas;
import io.jetstream.kafka.sink.topics.DestinationTopics;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A destination-site task: a Connect {@link SourceTask} that subscribes to the egress relays for
 * its share of origin partitions and returns the records a {@link ReplicationReceiver} puts in
 * order, each with its origin key, value, headers, timestamp and partition number
 * ({@link SourceRecords}).
 *
 * <p>Progress: each record's source partition is {@code {cluster, topic, partition}} of its origin
 * and its source offset {@code {offset}} the origin offset ({@link SourceOffsets}), so the last
 * written origin offset per partition is Connect's stored source offset (in the same transaction as
 * the records with exactly-once). Acknowledgements go upstream only when records are durable, as the
 * task's {@link DeliveryGuarantee}, chosen once at start, says: with exactly-once once read_committed
 * consumers can read them ({@link ExactlyOnceDelivery}), with at-least-once once the stored progress
 * covers them ({@link AtLeastOnceDelivery}).
 *
 * <p>Threads: Connect's task thread calls start and poll, and on a worker with exactly-once commit
 * and commitRecord; on a worker without, producer threads call commitRecord and an offset-commit
 * thread calls commit; a Netty event-loop thread per task runs the relay connections.
 */
public final class SinkSiteTask extends SourceTask {

    private static final Logger log = LoggerFactory.getLogger(SinkSiteTask.class);

    private SinkSiteTaskConfig config;
    /** The time transaction gaps, stability checks and call deadlines go by. */
    private final Clock clock;
    /** When the task was made: the first transaction gap starts here. */
    private final long createdNanos;
    private ClusterClients targetCluster;
    private RelayClients relayClients;
    private ReplicationReceiver receiver;
    /** Exactly-once or at-least-once, chosen in {@link #start}; null before. */
    private volatile DeliveryGuarantee guarantee;
    /** Schema id translation, or null when off. */
    private SinkSiteSchemas schemas;
    private DestinationTopics topics;
    private SinkSiteMetrics metrics;
    /** The task's figures, for GET /jetstream/tasks and ./jetstream explain. */
    private TaskView view;
    private StoredProgress storedProgress;
    /** Applies topic metadata off the task thread (see {@link ReplicationReceiver}). */
    private ExecutorService metadataApplier;
    private SourceRecords records;
    /** The exact offset map's entries and its topic (both null when offset.map.enabled=false). */
    private OffsetMapWriter offsetMap;
    private OffsetMapTopic offsetMapTopic;

    public SinkSiteTask() {
        this(Clock.system());
    }

    SinkSiteTask(Clock clock) {
        this.clock = clock;
        this.createdNanos = clock.nanoTime();
    }

    @Override
    public String version() {
        return Version.get();
    }

    @Override
    public void start(Map<String, String> props) {
        SinkSiteTaskConfig config = new SinkSiteTaskConfig(props);
        this.config = config;
        TopicNamingPolicy naming = config.topicNamingPolicy();
        String connectorName = config.connectorName();
        int taskId = config.taskId();
        RelayClientConfigs.Settings relaySettings = config.relays(connectorName);
        String nodeId = RelayClients.nodeId(connectorName, taskId);
        // Of two instances of this task subscribed at once (one left over from a stop that timed
        // out), the relay keeps the one that started later.
        long epoch = System.currentTimeMillis();
        storedProgress = new StoredProgress(nodeId, config.sourceAlias(), config.clusterCallTimeout(),
                () -> context.offsetStorageReader());
        metrics = new SinkSiteMetrics(TaskMetrics.forTask(() -> context.pluginMetrics(), connectorName, taskId));
        targetCluster = config.targetCluster();
        Admin admin = targetCluster.admin(nodeId + "-topics");
        topics = DestinationTopics.start(admin, naming, config, this::destinationTopicRecreated);
        FrameIntegrity integrity = FrameIntegrity.of(config.integrityKey(), config.integrityRequired());
        receiver = newReceiver(config, naming, relaySettings.streamId(), nodeId, integrity);
        metrics.receiverGauges(receiver::bufferedBytes);
        DeliveryGuarantee guarantee = config.exactlyOnce()
                ? ExactlyOnceDelivery.start(config, targetCluster, nodeId, receiver, metrics, clock, createdNanos,
                        log)
                : AtLeastOnceDelivery.start(naming, topics, storedProgress::storedOffset, targetCluster,
                        config.clusterCallTimeout(), clock, metrics, receiver);
        this.guarantee = guarantee;
        if (OffsetMapConfigs.enabled(config)) {
            offsetMap = OffsetMapWriter.start(config.sourceAlias(), naming, guarantee.exactlyOnce(), topics,
                    storedProgress, metrics);
            offsetMapTopic = new OffsetMapTopic(admin, OffsetMapConfigs.topic(config), OffsetMapConfigs.retention(config),
                    config.topicReplicationFactor(), config.clusterCallTimeout());
        }
        records = new SourceRecords(config.sourceAlias(), naming, guarantee::predictedDestinationOffset, offsetMap,
                offsetMapTopic == null ? null : offsetMapTopic.name());
        subscribe(relaySettings, new SubscribeFrame(relaySettings.streamId(), nodeId, taskId, config.taskCount(),
                epoch), integrity);
        view = TaskView.register(connectorName, taskId, new SinkTaskView(config.sourceAlias(), config.targetAlias(),
                guarantee.exactlyOnce(), metrics.activity(), metrics::heartbeatAgeSeconds, receiver::bufferedBytes,
                guarantee.commitsAwaitingStability())::view);
        relayClients.start();
        log.info("Destination-site task {} started: share {}/{} of stream {} from {}, {} mode, {}, topics managed "
                + "on the {}", nodeId, taskId, config.taskCount(), relaySettings.streamId(), relaySettings.relays(),
                guarantee.exactlyOnce() ? "exactly-once" : "at-least-once", integrity, targetCluster);
    }

    /** The engine that orders, checks and hands over the batches of this task's share. */
    private ReplicationReceiver newReceiver(SinkSiteTaskConfig config, TopicNamingPolicy naming, String streamId,
                                            String nodeId, FrameIntegrity integrity) {
        return new ReplicationReceiver(new ReplicationReceiver.Settings(streamId,
                config.topicsAllow(), naming, config.targetAlias(), config.bufferMaxBytes(), config.pollMaxRecords(),
                config.acceptOffsetGaps() ? ReplicationReceiver.GapPolicy.ACCEPT : ReplicationReceiver.GapPolicy.FAIL,
                config.failOnTopicRecreation() ? ReplicationReceiver.RecreationPolicy.FAIL
                        : ReplicationReceiver.RecreationPolicy.CONTINUE),
                storedProgress, topics, metrics, metadataApplier(nodeId), integrity, translator(config, naming));
    }

    /** One subscriber client per egress relay (not connected yet), each feeding the receiver. */
    private void subscribe(RelayClientConfigs.Settings relaySettings, SubscribeFrame share, FrameIntegrity integrity) {
        relayClients = RelayClients.open(relaySettings, RelayClients.Profile.subscriber(share), share.subscriberId());
        relayClients.connect(relay -> new RelayUpstream(receiver::onFrame), integrity.required(), "Egress relay {} does "
                + "not carry end-to-end MACs (a relay built before them): every batch it delivers arrives unsigned and "
                + "is refused, as integrity.required asks. Upgrade the relays of the path.");
    }

    /** The schema id translation when {@code schema.translation.enabled}; else one that only warns. */
    private ReplicationReceiver.Translator translator(SinkSiteTaskConfig config, TopicNamingPolicy naming) {
        if (!config.schemaTranslation()) {
            return SinkSiteSchemas.disabled();
        }
        schemas = SinkSiteSchemas.start(config, naming, metrics, clock);
        return schemas;
    }

    /** A destination topic was found deleted: records written to it are released, not awaited. */
    private void destinationTopicRecreated(String topic) {
        metrics.destinationTopicRecreated();
        DeliveryGuarantee current = guarantee;
        if (current != null) {
            current.destinationTopicRecreated(topic);
        }
    }

    /**
     * One daemon thread with a bounded queue: metadata arrives per topic every
     * {@code topic.metadata.refresh.interval.ms}; past the bound it is refused and sent again.
     */
    private ExecutorService metadataApplier(String nodeId) {
        metadataApplier = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(1_000),
                new DefaultThreadFactory("jetstream-topics-" + nodeId, true));
        return metadataApplier;
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        guarantee.beforePoll();
        guarantee.awaitTransactionGap();
        if (offsetMapTopic != null && !offsetMapTopic.ready()) {
            return null;
        }
        String held = schemas == null ? null : schemas.overdue();
        if (held != null) {
            throw new ConnectException(held);
        }
        List<ReplicationReceiver.Delivery> deliveries = receiver.poll(config.pollTimeout());
        if (deliveries.isEmpty() && (offsetMap == null || !offsetMap.hasCorrections())) {
            return null;
        }
        guarantee.polled(deliveries);
        return records.of(deliveries);
    }

    @Override
    public void commitRecord(SourceRecord record, RecordMetadata metadata) {
        if (records.isOffsetMapEntry(record)) {
            if (metadata == null) {
                log.warn("An offset map entry of {} was not written (dropped by a transformation?)",
                        record.sourcePartition());
            }
            return;
        }
        TopicPartition origin = SourceOffsets.origin(record.sourcePartition());
        long originOffset = SourceOffsets.originOffset(record.sourceOffset());
        if (metadata != null && record.timestamp() != null) {
            metrics.replicationLatency(System.currentTimeMillis() - record.timestamp());
            metrics.written(origin, record.timestamp());
        }
        if (offsetMap != null) {
            offsetMap.verify(origin, originOffset, metadata != null && metadata.hasOffset() ? metadata.offset() : -1L);
        }
        guarantee.written(origin, originOffset, record.sourceOffset().get(SourceOffsets.TOPIC_ID), metadata);
    }

    /**
     * A transaction committed (exactly-once) or Connect stored offsets (at-least-once): the guarantee
     * acknowledges what is durable now ({@link DeliveryGuarantee#committed}).
     */
    @Override
    public void commit() {
        DeliveryGuarantee current = guarantee;
        if (current != null && current.committed()) { // null: start() has not finished, nothing was written
            metrics.committed();
        }
    }

    @Override
    public void stop() {
        long start = System.nanoTime();
        if (view != null) {
            view.close();
        }
        if (relayClients != null) {
            relayClients.close();
        }
        if (guarantee != null) {
            guarantee.close();
        }
        if (metadataApplier != null) {
            metadataApplier.shutdownNow();
        }
        if (receiver != null) {
            receiver.close();
        }
        if (topics != null) {
            topics.close();
        }
        if (schemas != null) {
            schemas.close();
        }
        if (storedProgress != null) {
            storedProgress.close();
        }
        if (metrics != null) {
            metrics.close();
        }
        log.info("Destination-site task stopped in {} ms", (System.nanoTime() - start) / 1_000_000);
    }
}
