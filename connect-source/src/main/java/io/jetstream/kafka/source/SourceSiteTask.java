package io.jetstream.kafka.source;

import io.jetstream.kafka.connect.common.config.ClusterClients;
import io.jetstream.kafka.connect.common.config.RelayClientConfigs;
import io.jetstream.kafka.connect.common.metrics.TaskMetrics;
import io.jetstream.kafka.connect.common.relay.RelayClients;
import io.jetstream.kafka.connect.common.view.TaskView;
import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.environment.OperatingPointMonitor;
import io.jetstream.kafka.core.model.BatchPolicy;
import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.source.sender.ReplicationSender;
import io.jetstream.kafka.source.sender.SenderIntegrity;
import io.jetstream.kafka.source.sender.SenderSettings;
import io.jetstream.kafka.transport.FrameBuffers;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A source-site task: a Connect {@link SinkTask} that reads its share of the replicated topics and
 * hands each record to a {@link ReplicationSender}, which batches and ships them to the relays.
 *
 * <p>It only wires the parts and calls them in turn: {@link RecordIntake} checks a put's records and
 * hands them to the sender; {@link RefusedBatches} reports what the destination refused for good;
 * {@link Backpressure} pauses the partitions while the sender holds {@code max.in.flight.bytes};
 * {@link TopicMetadataPublisher} ships the topics' metadata; {@link ReplicationLag} and
 * {@link SourceSiteMetrics} measure; {@link TaskEnvironment} says where the task runs and what binds
 * it, from the sender's events to its batching policy (watched by an {@code OperatingPointMonitor}).
 *
 * <p>Offsets: {@link #preCommit} returns only offsets the destination acknowledged as durably
 * written, so Connect never commits past an unwritten record (no loss).
 *
 * <p>Threads: Connect's task thread calls put/preCommit/open/close; one Netty event-loop thread per
 * task runs the relay connections and the sender's timer (linger, re-sends: every 5 ms while batches
 * are open or unanswered, every 100 ms otherwise, {@link SenderTimer}).
 */
public final class SourceSiteTask extends SinkTask {

    private static final Logger log = LoggerFactory.getLogger(SourceSiteTask.class);

    private SourceSiteConfig config;
    /** The time the sender, the batching gauges and the lag figures go by. */
    private final Clock clock;
    private RelayClients relayClients;
    private ReplicationSender sender;
    private BatchPolicy batchPolicy;
    /** Where the task runs and what binds it, measured from the sender's events to its batching policy. */
    private TaskEnvironment environment;
    private TopicMetadataPublisher metadata;
    /** Schema ids looked up and shipped ({@code schema.translation.enabled}), or null. */
    private SourceSiteSchemas schemas;
    private OversizedRecords oversized;
    private RefusedBatches refusedBatches;
    private OriginCoverage coverage;
    private TopicIncarnations incarnations;
    private RecordIntake intake;
    private Backpressure backpressure;
    private Admin admin;
    private SenderTimer timer;
    private IntakePacing pacing;
    private SourceSiteMetrics metrics;
    /** The task's decisions and their reasons, for GET /jetstream/tasks and ./jetstream explain. */
    private TaskView view;
    private ReplicationLag lag;
    private ScheduledExecutorService lagRefresher;

    public SourceSiteTask() {
        this(Clock.system());
    }

    SourceSiteTask(Clock clock) {
        this.clock = clock;
    }

    @Override
    public String version() {
        return Version.get();
    }

    @Override
    public void start(Map<String, String> props) {
        SourceSiteTaskConfig config = new SourceSiteTaskConfig(props);
        this.config = config;
        String connectorName = config.connectorName();
        RelayClientConfigs.Settings relaySettings = config.relays(connectorName);
        String nodeId = RelayClients.nodeId(connectorName, config.taskId());
        boolean tolerateAll = tolerateAll(props);
        metrics = new SourceSiteMetrics(TaskMetrics.forTask(() -> context.pluginMetrics(), connectorName,
                config.taskId()));
        SenderIntegrity integrity = SenderIntegrity.of(config.integrityKey());
        startSender(config, relaySettings, nodeId, integrity, tolerateAll);
        refusedBatches = new RefusedBatches(errantRecordReporter(), props.get("errors.deadletterqueue.topic.name"));
        ClusterClients sourceCluster = config.sourceCluster();
        admin = sourceCluster.admin(nodeId + "-metadata");
        AdminOriginOffsets originOffsets = new AdminOriginOffsets(admin, config.consumerGroupId(),
                config.clusterCallTimeout());
        startOriginChecks(originOffsets, tolerateAll);
        startMetadata(nodeId);
        intake = new RecordIntake(config.targetAlias(), new RecordIntake.Checks(metadata, oversized, schemas,
                incarnations, coverage), sender, context, config.retryBackoff());
        startLag(originOffsets, nodeId);
        startView(connectorName, config.taskId());
        relayClients.start();
        timer = new SenderTimer(SenderTimer.on(relayClients.timerExecutor()), this::tick, sender::quiet);
        timer.start();
        log.info("Source-site task {} started: {} -> {} via {}, {}; reads metadata from the {}", nodeId,
                config.sourceAlias(), config.targetAlias(), relaySettings, integrity, sourceCluster);
    }

    /**
     * The engine that batches records to the relays, which it opens itself (their answers go to it),
     * with its gauges and the backpressure it asks for.
     */
    private void startSender(SourceSiteTaskConfig config, RelayClientConfigs.Settings relaySettings, String nodeId,
                             SenderIntegrity integrity, boolean tolerateAll) {
        relayClients = RelayClients.open(relaySettings, RelayClients.Profile.sender(), nodeId);
        RelayPreference.Tiers tiers = relayTiers(relaySettings, nodeId);
        batchPolicy = config.batchPolicy();
        OperatingPointMonitor operatingPoint = new OperatingPointMonitor(batchPolicy);
        sender = new ReplicationSender(new SenderSettings(relaySettings.streamId(), nodeId,
                config.targetAlias(), CompressionCodec.valueOf(config.compressionName().toUpperCase()),
                config.ackTimeout(), config.retryBackoff(), config.maxInFlightBytes(), integrity,
                config.heartbeatInterval()).skippingRefused(tolerateAll).framingAtMost(config.frameMaxPartitions()),
                inbound -> relayClients.connect(address -> new SenderRelay(tiers.preferred(address), inbound),
                        integrity.enabled(), "Relay {} does not carry end-to-end MACs (a relay built before them): "
                                + "batches sent through it reach the destination unsigned, which refuses them while "
                                + "it requires integrity, and its answers come back unsigned, which this task does "
                                + "not commit on. Upgrade the relays."),
                operatingPoint, clock::nanoTime, FrameBuffers.ALLOCATOR, metrics);
        backpressure = new Backpressure(context, sender);
        environment = new TaskEnvironment(operatingPoint, clock, backpressure::paused, backpressure::assignedCount,
                JvmCpu.platform(clock::nanoTime));
        pacing = new IntakePacing(config.pollMinInterval(), clock::nanoTime, IntakePacing.PARK);
        metrics.senderGauges(sender::bufferedBytes, sender::inFlightBatches, backpressure::paused);
        BatchingGauges.register(metrics::gauge, batchPolicy, clock);
        environment.registerGauges(metrics::gauge);
    }

    /** The relays on this host first when {@code relays.prefer.local} asks for it. */
    private RelayPreference.Tiers relayTiers(RelayClientConfigs.Settings relaySettings, String nodeId) {
        RelayPreference.Tiers tiers = RelayPreference.tiers(relaySettings.relays(), config.preferLocalRelays(),
                RelayPreference::onThisHost);
        if (config.preferLocalRelays()) {
            if (tiers.local()) {
                log.info("Task {} sends to the relays on its host {}, to {} only while none of those is ready", nodeId,
                        tiers.preferred(), tiers.fallback());
            } else {
                log.info("Task {}: none of the relays {} is on this host, so it uses them all alike ({})", nodeId,
                        tiers.preferred(), SourceSiteConfig.RELAYS_PREFER_LOCAL);
            }
        }
        return tiers;
    }

    /** The task's decisions and their reasons, read by the REST extension (GET /jetstream/tasks). */
    private void startView(String connectorName, int taskId) {
        SourceTaskView.Sources sources = new SourceTaskView.Sources(sender::bufferedBytes, sender::inFlightBatches,
                backpressure::paused, lag::totals, backpressure::assignedCount, environment::read);
        view = TaskView.register(connectorName, taskId, new SourceTaskView(config.sourceAlias(),
                config.targetAlias(), config.compressionName(), batchPolicy, clock, metrics.deliveries(), sources)::view);
    }

    /** What the origin vouches for: oversized records, topic incarnations, offsets still in the log. */
    private void startOriginChecks(AdminOriginOffsets originOffsets, boolean tolerateAll) {
        oversized = new OversizedRecords(errantRecordReporter(), tolerateAll, sender::maxRecordBytes);
        incarnations = new TopicIncarnations(originOffsets);
        coverage = new OriginCoverage(originOffsets);
        metrics.originGauges(oversized, incarnations, coverage);
    }

    /**
     * Topic metadata (and, with schema translation, schemas) published to the destination through
     * the sender, which tells the publisher the answers.
     */
    private void startMetadata(String nodeId) {
        schemas = config.schemaTranslation() ? SourceSiteSchemas.start(config.schemaRegistry(), metrics) : null;
        metadata = new TopicMetadataPublisher(admin, sender::sendMetadata, incarnations::observed,
                config.metadataRefresh(), config.clusterCallTimeout(), "jetstream-metadata-" + nodeId,
                schemas == null ? TopicMetadataPublisher.Schemas.NONE : schemas);
    }

    /** The replication lag figures, refreshed every heartbeat interval on a thread of their own. */
    private void startLag(AdminOriginOffsets originOffsets, String nodeId) {
        lag = new ReplicationLag(originOffsets, sender::committableOffsets, originOffsets, sender::unackedBytes,
                sender::atRiskBytes, metrics::meanRecordBytes, clock::nanoTime, metrics);
        lagRefresher = Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("jetstream-lag-" + nodeId,
                true));
        long lagMillis = config.heartbeatInterval().toMillis();
        lagRefresher.scheduleWithFixedDelay(this::refreshLag, lagMillis, lagMillis, TimeUnit.MILLISECONDS);
    }

    /** The sender's timer: linger, re-sends, heartbeats, the relays' round trips. */
    private void tick() {
        try {
            sender.tick();
        } catch (RuntimeException e) {
            log.error("Sender timer failed", e);
        }
    }

    /** The lag figures' periodic refresh: a failure is logged and the next refresh tries again. */
    private void refreshLag() {
        try {
            lag.refresh();
        } catch (RuntimeException e) {
            log.warn("Replication lag refresh failed", e);
        }
    }

    @Override
    public void open(Collection<TopicPartition> partitions) {
        lag.assign(partitions);
        coverage.assign(partitions);
        incarnations.assign(partitions);
        sender.assign(partitions);
        backpressure.assign(partitions);
        // a topic is created at the destination when it is discovered, as MirrorMaker 2 does, not
        // when its first record arrives: consumers there can subscribe before data flows
        for (TopicPartition partition : partitions) {
            if (!intake.isReplicaOfTarget(partition.topic())) {
                metadata.onTopicSeen(partition.topic());
            }
        }
    }

    @Override
    public void close(Collection<TopicPartition> partitions) {
        lag.revoke(partitions);
        backpressure.revoke(partitions);
        intake.revoke(partitions);
        coverage.revoke(partitions);
        incarnations.revoke(partitions);
        sender.revoke(partitions);
    }

    /** Stops on a refused batch, reports and skips what was refused, hands the records over, applies backpressure. */
    @Override
    public void put(Collection<SinkRecord> records) {
        RuntimeException failure = sender.fatalError();
        if (failure != null) {
            throw new ConnectException(failure.getMessage(), failure);
        }
        refusedBatches.handle(sender); // errors.tolerance=all: report and skip what the destination refused
        intake.put(records);
        sender.tick();
        timer.afterPut();
        backpressure.apply();
        pacing.afterPut(records.size());
    }

    /** Whether the connector sets Connect's {@code errors.tolerance=all}: skip what cannot be replicated. */
    private static boolean tolerateAll(Map<String, String> props) {
        return "all".equals(props.get("errors.tolerance"));
    }

    /** Connect's reporter for records this task cannot replicate; null from a worker without one. */
    private ErrantRecordReporter errantRecordReporter() {
        try {
            return context.errantRecordReporter();
        } catch (NoSuchMethodError | NoClassDefFoundError e) {
            return null; // a worker older than Kafka 2.6
        }
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        sender.committableOffsets(currentOffsets.keySet())
                .forEach((tp, offset) -> commit.put(tp, new OffsetAndMetadata(offset)));
        for (TopicPartition tp : intake.skipped()) {
            OffsetAndMetadata current = currentOffsets.get(tp);
            if (current != null) {
                commit.put(tp, current);
            }
        }
        return commit;
    }

    @Override
    public void stop() {
        long start = System.nanoTime();
        closeQuietly(view, "task view");
        if (timer != null) {
            timer.close();
        }
        if (lagRefresher != null) {
            lagRefresher.shutdownNow();
        }
        closeQuietly(metadata, "metadata publisher");
        closeQuietly(schemas, "schema registry client");
        closeQuietly(relayClients, "relay clients");
        closeQuietly(sender, "sender");
        closeQuietly(admin, "admin client");
        if (metrics != null) {
            metrics.close();
        }
        log.info("Source-site task stopped in {} ms", (System.nanoTime() - start) / 1_000_000);
    }

    private static void closeQuietly(AutoCloseable closeable, String what) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            log.warn("Closing the {} failed", what, e);
        }
    }
}
