package io.jetstream.kafka.source;

import io.jetstream.kafka.connect.common.config.ClusterClients;
import io.jetstream.kafka.connect.common.config.RelayClientConfigs;
import io.jetstream.kafka.connect.common.metrics.TaskMetrics;
import io.jetstream.kafka.connect.common.relay.RelayClients;
import io.jetstream.kafka.connect.common.view.TaskView;
import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.RecordHeader;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.model.BatchPolicy;
import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.transport.FrameBuffers;
import io.jetstream.kafka.transport.PeerClient;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A source-site task: a Connect {@link SinkTask} that reads its share of the replicated topics and
 * hands each record to a {@link ReplicationSender}, which batches and ships them to the relays.
 *
 * <p>Offsets: {@link #preCommit} returns only offsets the destination acknowledged as durably
 * written, so Connect never commits past an unwritten record (no loss). Backpressure: when the
 * sender holds {@code max.in.flight.bytes}, every assigned partition is paused until it drains to
 * half; Connect keeps calling {@code put} with nothing, which drives the timers.
 *
 * <p>Threads: Connect's task thread calls put/preCommit/open/close; one Netty event-loop thread per
 * task runs the relay connections and a 5 ms timer (linger, re-sends).
 */
public final class SourceSiteTask extends SinkTask {

    private static final Logger log = LoggerFactory.getLogger(SourceSiteTask.class);
    private static final Duration TICK = Duration.ofMillis(5);
    /** How often the relays' round trips are handed to the batching model. */
    private static final Duration RTT_SAMPLE_INTERVAL = Duration.ofSeconds(1);
    /** Pause before Connect hands the same records over again after the source cluster did not answer. */
    private static final long ORIGIN_RETRY_MILLIS = 1_000;

    private SourceSiteConfig config;
    /** {@code <target alias>.}: topics with this prefix came from the destination. */
    private String replicaPrefix;
    /** The time the sender, the batching gauges and the lag figures go by. */
    private final Clock clock;
    private RelayClients relayClients;
    private ReplicationSender sender;
    private TopicMetadataPublisher metadata;
    /** Schema ids looked up and shipped ({@code schema.translation.enabled}), or null. */
    private SourceSiteSchemas schemas;
    private OversizedRecords oversized;
    private RefusedBatches refusedBatches;
    private OriginCoverage coverage;
    private TopicIncarnations incarnations;
    private Admin admin;
    private ScheduledFuture<?> ticker;
    private SourceSiteMetrics metrics;
    /** The task's decisions and their reasons, for GET /jetstream/tasks and ./jetstream explain. */
    private TaskView view;
    private BatchPolicy batchPolicy;
    private ReplicationLag lag;
    private ScheduledExecutorService lagRefresher;
    private final Set<TopicPartition> assigned = new HashSet<>();
    private final Set<TopicPartition> skipped = new HashSet<>();
    private volatile boolean paused;

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
        this.replicaPrefix = config.targetAlias() + ".";
        String connectorName = config.connectorName();
        RelayClientConfigs.Settings relaySettings = config.relays(connectorName);
        String nodeId = RelayClients.nodeId(connectorName, config.taskId());
        metrics = new SourceSiteMetrics(TaskMetrics.forTask(() -> context.pluginMetrics(), connectorName,
                config.taskId()));
        SenderIntegrity integrity = SenderIntegrity.of(config.integrityKey());
        startSender(config, relaySettings, nodeId, integrity, tolerateAll(props));
        refusedBatches = new RefusedBatches(errantRecordReporter(), props.get("errors.deadletterqueue.topic.name"));
        ClusterClients sourceCluster = config.sourceCluster();
        admin = sourceCluster.admin(nodeId + "-metadata");
        AdminOriginOffsets originOffsets = new AdminOriginOffsets(admin, config.consumerGroupId(),
                config.clusterCallTimeout());
        startOriginChecks(originOffsets, tolerateAll(props));
        startMetadata(nodeId);
        startLag(originOffsets, nodeId);
        startView(connectorName, config.taskId());
        relayClients.start();
        ticker = relayClients.scheduleAtFixedRate(this::tick, TICK);
        log.info("Source-site task {} started: {} -> {} via {}, {}; reads metadata from the {}", nodeId,
                config.sourceAlias(), config.targetAlias(), relaySettings, integrity, sourceCluster);
    }

    /** The engine that batches records to the relays, with its gauges; the relay clients feed it their answers. */
    private void startSender(SourceSiteTaskConfig config, RelayClientConfigs.Settings relaySettings, String nodeId,
                             SenderIntegrity integrity, boolean tolerateAll) {
        List<SenderRelay> relays = connectRelays(relaySettings, nodeId, integrity);
        BatchPolicy policy = config.batchPolicy();
        batchPolicy = policy;
        sender = new ReplicationSender(new ReplicationSender.Settings(relaySettings.streamId(), nodeId,
                config.targetAlias(), CompressionCodec.valueOf(config.compressionName().toUpperCase()),
                config.ackTimeout(), config.retryBackoff(), config.maxInFlightBytes(), integrity,
                config.heartbeatInterval()).skippingRefused(tolerateAll),
                List.<ReplicationSender.Relay>copyOf(relays), policy, clock::nanoTime, FrameBuffers.ALLOCATOR, metrics);
        relays.forEach(relay -> relay.deliverTo(sender));
        metrics.senderGauges(sender, () -> paused);
        BatchingGauges.register(metrics::gauge, policy, clock);
    }

    /** The task's decisions and their reasons, read by the REST extension (GET /jetstream/tasks). */
    private void startView(String connectorName, int taskId) {
        SourceTaskView.Sources sources = new SourceTaskView.Sources(sender::bufferedBytes, sender::inFlightBatches,
                () -> paused, lag::totals, assigned::size);
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

    /** Topic metadata (and, with schema translation, schemas) published to the destination. */
    private void startMetadata(String nodeId) {
        schemas = config.schemaTranslation() ? SourceSiteSchemas.start(config.schemaRegistry(), metrics) : null;
        metadata = new TopicMetadataPublisher(admin, sender::sendMetadata, incarnations::observed,
                config.metadataRefresh(), config.clusterCallTimeout(), "jetstream-metadata-" + nodeId,
                schemas == null ? TopicMetadataPublisher.Schemas.NONE : schemas);
        sender.metadataListener(metadata::onMetadataAcknowledged);
        sender.schemasMissingListener(metadata::onSchemasChanged);
    }

    /**
     * One client per relay (not connected yet), the relays on this host first when
     * {@code relays.prefer.local} asks for it.
     */
    private List<SenderRelay> connectRelays(RelayClientConfigs.Settings relaySettings, String nodeId,
                                            SenderIntegrity integrity) {
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
        relayClients = RelayClients.open(relaySettings, RelayClients.Role.sender(), nodeId);
        return relayClients.connect(address -> new SenderRelay(tiers.preferred(address)), integrity.enabled(),
                "Relay {} does not carry end-to-end MACs (a relay built before them): batches sent through it reach "
                        + "the destination unsigned, which refuses them while it requires integrity, and its answers "
                        + "come back unsigned, which this task does not commit on. Upgrade the relays.");
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

    private long lastRttSample;

    /** The sender's timer (linger, re-sends), with a sample of the relays' round trips once a second. */
    private void tick() {
        try {
            long now = clock.nanoTime();
            if (now - lastRttSample > RTT_SAMPLE_INTERVAL.toNanos()) {
                lastRttSample = now;
                for (PeerClient client : relayClients.clients()) {
                    if (client.isReady() && !client.rtt().isZero()) {
                        sender.onRttSample(client.rtt().toNanos());
                    }
                }
            }
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
        assigned.addAll(partitions);
        coverage.assign(partitions);
        incarnations.assign(partitions);
        sender.assign(partitions);
        if (paused) {
            context.pause(partitions.toArray(new TopicPartition[0]));
        }
        // a topic is created at the destination when it is discovered, as MirrorMaker 2 does, not
        // when its first record arrives: consumers there can subscribe before data flows
        for (TopicPartition partition : partitions) {
            if (!isReplicaOfTarget(partition.topic())) {
                metadata.onTopicSeen(partition.topic());
            }
        }
    }

    @Override
    public void close(Collection<TopicPartition> partitions) {
        lag.revoke(partitions);
        assigned.removeAll(partitions);
        skipped.removeAll(partitions);
        coverage.revoke(partitions);
        incarnations.revoke(partitions);
        sender.revoke(partitions);
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        RuntimeException failure = sender.fatalError();
        if (failure != null) {
            throw new ConnectException(failure.getMessage(), failure);
        }
        refusedBatches.handle(sender); // errors.tolerance=all: report and skip what the destination refused
        if (!records.isEmpty() && sender.maxRecordBytes() == ReplicationSender.RECORD_LIMIT_UNKNOWN) {
            // Sizes are checked against the relays' frame limits, which arrive with their handshakes:
            // checked against a guess, a record too large for them would fail the task at the send.
            long backoff = Math.max(100, config.retryBackoff().toMillis());
            context.timeout(backoff);
            throw new RetriableException("No relay has completed its handshake yet, so the largest record the "
                    + "relays take is not known: these " + records.size() + " records are delivered again in "
                    + backoff + " ms");
        }
        List<TopicPartition> partitions = new ArrayList<>(records.size());
        List<ReplicatedRecord> replicated = new ArrayList<>(records.size());
        List<Integer> sizes = new ArrayList<>(records.size());
        String lastTopic = null;
        for (SinkRecord record : records) {
            String topic = record.originalTopic();
            TopicPartition partition = new TopicPartition(topic, record.originalKafkaPartition());
            if (isReplicaOfTarget(topic)) {
                skipped.add(partition);
                continue;
            }
            if (!topic.equals(lastTopic)) {
                metadata.onTopicSeen(topic);
                lastTopic = topic;
            }
            ReplicatedRecord converted = toReplicated(record);
            int dataBytes = converted.dataBytes();
            if (!oversized.fits(record, dataBytes)) {
                continue; // reported to Connect's errant record reporter: the tolerance allows skipping it
            }
            partitions.add(partition);
            replicated.add(converted);
            sizes.add(dataBytes);
        }
        if (schemas != null) {
            shipSchemas(partitions, replicated);
        }
        List<TopicIncarnations.Change> changes = incarnationChanges(partitions, replicated);
        if (!changes.isEmpty()) {
            dropRewound(changes, partitions, replicated, sizes);
        }
        Map<Integer, Long> restarts = coverageRestarts(partitions, replicated);
        incarnations.commit(); // nothing can fail the put from here on
        List<ReplicationSender.Incoming> incoming = new ArrayList<>(replicated.size());
        for (int i = 0; i < replicated.size(); i++) {
            Long coveredFrom = restarts.get(i);
            incoming.add(new ReplicationSender.Incoming(partitions.get(i), replicated.get(i),
                    coveredFrom == null ? ReplicationSender.Incoming.CONTIGUOUS : coveredFrom, sizes.get(i)));
        }
        if (changes.isEmpty()) {
            sender.appendAll(incoming);
        } else {
            appendAcrossIncarnations(incoming, changes);
        }
        sender.tick();
        applyBackpressure();
    }

    /**
     * Looks up the schema ids of the records' keys and values; a topic that gained one has its
     * metadata (and schemas) shipped again. Records whose id the source registry cannot be asked
     * about now are handed over again by Connect: nothing leaves without its schema.
     */
    private void shipSchemas(List<TopicPartition> partitions, List<ReplicatedRecord> records) {
        for (String topic : schemas.observe(partitions, records, config.retryBackoff(), context::timeout)) {
            metadata.onSchemasChanged(topic);
        }
    }

    /** Which incarnation of its topic each record belongs to; Connect hands the records over again when the source cluster cannot say. */
    private List<TopicIncarnations.Change> incarnationChanges(List<TopicPartition> partitions,
                                                              List<ReplicatedRecord> records) {
        long[] offsets = new long[records.size()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = records.get(i).offset();
        }
        try {
            return incarnations.check(partitions, offsets);
        } catch (RuntimeException e) {
            context.timeout(ORIGIN_RETRY_MILLIS);
            throw new RetriableException("Cannot read the ids of the source topics (to tell a recreated topic from "
                    + "the one replicated so far); the records are handed over again: " + e.getMessage(), e);
        }
    }

    /**
     * A partition found reading a recreated topic under its old id is moved back to the new log's
     * start: its records from the change on are dropped here (they come again after the rewind), and
     * the changes' indexes are re-based on the records kept.
     */
    private void dropRewound(List<TopicIncarnations.Change> changes, List<TopicPartition> partitions,
                             List<ReplicatedRecord> records, List<Integer> sizes) {
        Map<TopicPartition, Integer> rewoundFrom = new HashMap<>();
        for (TopicIncarnations.Change change : changes) {
            if (change.rewinds()) {
                rewoundFrom.put(change.partition(), change.index());
                context.offset(change.partition(), change.rewindTo());
                log.warn("Source topic {} was deleted and recreated (topic id {} -> {}) while partition {} kept "
                        + "reading: it starts again from offset {} of the new topic; the records read from the new "
                        + "topic under the old id are replicated twice", change.partition().topic(), change.from(),
                        change.to(), change.partition().partition(), change.rewindTo());
            }
        }
        if (rewoundFrom.isEmpty()) {
            return;
        }
        int[] newIndex = new int[records.size() + 1];
        int kept = 0;
        for (int i = 0; i < records.size(); i++) {
            newIndex[i] = kept;
            Integer from = rewoundFrom.get(partitions.get(i));
            if (from == null || i < from) {
                partitions.set(kept, partitions.get(i));
                records.set(kept, records.get(i));
                sizes.set(kept, sizes.get(i));
                kept++;
            }
        }
        newIndex[records.size()] = kept;
        partitions.subList(kept, partitions.size()).clear();
        records.subList(kept, records.size()).clear();
        sizes.subList(kept, sizes.size()).clear();
        changes.replaceAll(c -> new TopicIncarnations.Change(newIndex[c.index()], c.partition(), c.from(), c.to(),
                c.rewindTo()));
    }

    /**
     * Appends the records in runs, telling the sender each partition's incarnation right before the
     * first record that carries it: a partition's first id, or a new one that starts a new chain.
     */
    private void appendAcrossIncarnations(List<ReplicationSender.Incoming> incoming,
                                          List<TopicIncarnations.Change> changes) {
        int from = 0;
        for (TopicIncarnations.Change change : changes) {
            if (change.index() > from) {
                sender.appendAll(incoming.subList(from, change.index()));
                from = change.index();
            }
            long dropped = sender.incarnation(change.partition(), change.to());
            if (!change.first() && !change.rewinds()) {
                log.warn("Source topic {} was deleted and recreated (topic id {} -> {}): partition {} is replicated "
                        + "as a new incarnation from offset {}{}", change.partition().topic(), change.from(),
                        change.to(), change.partition().partition(),
                        from < incoming.size() ? incoming.get(from).record().offset() : "(next record)",
                        dropped > 0 ? "; " + dropped + " unacknowledged records of the old incarnation are dropped"
                                : "");
            }
        }
        if (from < incoming.size()) {
            sender.appendAll(incoming.subList(from, incoming.size()));
        }
    }

    /**
     * Where records must start batches that vouch for fewer offsets ({@link OriginCoverage}). When the
     * source cluster cannot answer, Connect hands the same records over again after a pause.
     */
    private Map<Integer, Long> coverageRestarts(List<TopicPartition> partitions, List<ReplicatedRecord> records) {
        long[] offsets = new long[records.size()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = records.get(i).offset();
        }
        try {
            return coverage.check(partitions, offsets);
        } catch (RuntimeException e) {
            context.timeout(ORIGIN_RETRY_MILLIS);
            throw new RetriableException("Cannot tell whether skipped source offsets were legitimately absent; "
                    + "the records are handed over again: " + e.getMessage(), e);
        }
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

    /** Topics named {@code <target alias>.*} came from the destination: never send them back. */
    private boolean isReplicaOfTarget(String topic) {
        return topic.startsWith(replicaPrefix);
    }

    private void applyBackpressure() {
        if (!paused && sender.shouldPause()) {
            paused = true;
            context.pause(assigned.toArray(new TopicPartition[0]));
            log.debug("Paused {} partitions: {} bytes buffered", assigned.size(), sender.bufferedBytes());
        } else if (paused && sender.canResume()) {
            paused = false;
            context.resume(assigned.toArray(new TopicPartition[0]));
        }
    }

    static ReplicatedRecord toReplicated(SinkRecord record) {
        byte[] key = bytes(record.key(), "key", "key.converter", record);
        byte[] value = bytes(record.value(), "value", "value.converter", record);
        List<RecordHeader> headers = new ArrayList<>();
        for (Header header : record.headers()) {
            headers.add(new RecordHeader(header.key(), bytes(header.value(), "header " + header.key(),
                    "header.converter", record)));
        }
        Long timestamp = record.timestamp();
        TimestampType type = timestamp == null ? TimestampType.NO_TIMESTAMP_TYPE : record.timestampType();
        return new ReplicatedRecord(record.originalKafkaOffset(), timestamp == null ? -1L : timestamp,
                type == null ? TimestampType.NO_TIMESTAMP_TYPE : type, key, value, headers);
    }

    private static byte[] bytes(Object data, String what, String converterKey, SinkRecord record) {
        if (data == null || data instanceof byte[]) {
            return (byte[]) data;
        }
        throw new DataException("The " + what + " of " + record.originalTopic() + "-"
                + record.originalKafkaPartition() + "@" + record.originalKafkaOffset() + " is a "
                + data.getClass().getSimpleName() + ", not bytes: set " + converterKey
                + "=org.apache.kafka.connect.converters.ByteArrayConverter in the connector config");
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        sender.committableOffsets(currentOffsets.keySet())
                .forEach((tp, offset) -> commit.put(tp, new OffsetAndMetadata(offset)));
        for (TopicPartition tp : skipped) {
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
        if (ticker != null) {
            ticker.cancel(false);
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
