package io.jetstream.kafka.sink;

import io.jetstream.kafka.connect.common.config.ClusterClients;
import io.jetstream.kafka.connect.common.config.RelayClientConfigs;
import io.jetstream.kafka.connect.common.metrics.TaskMetrics;
import io.jetstream.kafka.connect.common.relay.RelayClients;
import io.jetstream.kafka.connect.common.view.TaskView;
import io.jetstream.kafka.core.batch.RecordHeader;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.core.protocol.SubscribeFrame;
import io.jetstream.kafka.sink.atleastonce.CrashTakeover;
import io.jetstream.kafka.sink.atleastonce.DestinationTail;
import io.jetstream.kafka.sink.config.OffsetMapConfigs;
import io.jetstream.kafka.sink.config.SinkSiteTaskConfig;
import io.jetstream.kafka.sink.exactlyonce.StableCommits;
import io.jetstream.kafka.sink.exactlyonce.WorkerTransactionsCheck;
import io.jetstream.kafka.sink.metrics.SinkSiteMetrics;
import io.jetstream.kafka.sink.metrics.SinkTaskView;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import io.jetstream.kafka.sink.offsetmap.OffsetMapTopic;
import io.jetstream.kafka.sink.offsetmap.OffsetMapWriter;
import io.jetstream.kafka.sink.progress.BoundedReads;
import io.jetstream.kafka.sink.progress.SourceOffsets;
import io.jetstream.kafka.sink.receiver.FrameIntegrity;
import io.jetstream.kafka.sink.receiver.RelayUpstream;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver;
import io.jetstream.kafka.sink.schemas.SinkSiteSchemas;
import io.jetstream.kafka.sink.topics.DestinationTopics;
import io.jetstream.kafka.sink.topics.MetadataGenerations;
import io.jetstream.kafka.sink.topics.TopicCreationBudget;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeProducersOptions;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A destination-site task: a Connect {@link SourceTask} that subscribes to the egress relays for
 * its share of origin partitions and returns the records a {@link ReplicationReceiver} puts in
 * order, each with its origin key, value, headers, timestamp and partition number.
 *
 * <p>Progress: each record's source partition is {@code {cluster, topic, partition}} of its origin
 * and its source offset {@code {offset}} the origin offset, so the last written origin offset per
 * partition is Connect's stored source offset (in the same transaction as the records with
 * exactly-once). Acknowledgements go upstream only when records are durable: with exactly-once once
 * read_committed consumers can read them ({@link StableCommits}), with at-least-once once the stored
 * progress covers them.
 *
 * <p>Exactly-once is what the connector asks for ({@code exactly.once.support=required}); whether
 * the worker running the task grants it, Connect does not say (it checks the key only when the
 * config is submitted). {@link WorkerTransactionsCheck} proves it does not from
 * what Connect reports, and the task then fails before acknowledging more.
 *
 * <p>Threads: Connect's task thread calls start and poll, and on a worker with exactly-once commit
 * and commitRecord; on a worker without, producer threads call commitRecord and an offset-commit
 * thread calls commit; a Netty event-loop thread per task runs the relay connections.
 */
public final class SinkSiteTask extends SourceTask {

    private static final Logger log = LoggerFactory.getLogger(SinkSiteTask.class);
    /**
     * Longest wait for one read of the stored progress (Connect's reader has no limit of its own):
     * well below the worker's graceful stop timeout, so a stop is never held up by a broker outage;
     * {@code cluster.call.timeout.ms} lowers it further when set below it.
     */
    static final Duration PROGRESS_READ_TIMEOUT = Duration.ofSeconds(3);
    /**
     * Exactly-once: checks of the stable offsets are at least this far apart. An acknowledgement waits
     * up to this long more; the source's window (max.in.flight.bytes) dwarfs what that holds, and each
     * check costs a ListOffsets call at the destination broker (0.05 cores of connect-B at 50 checks
     * a second, measured).
     */
    static final Duration STABLE_RECHECK = Duration.ofMillis(100);

    private SinkSiteTaskConfig config;
    /** The time transaction gaps, stability checks and call deadlines go by. */
    private final Clock clock;
    /** Exactly-once: when Connect last reported a transaction committed ({@link #commit()}). */
    private volatile long lastCommitNanos;
    /** Exactly-once: {@code exactly.once.transaction.gap.ms}, read once at start, not per poll. */
    private long transactionGapNanos;
    private ClusterClients targetCluster;
    private String sourceAlias;
    private TopicNamingPolicy naming;
    private RelayClients relayClients;
    private ReplicationReceiver receiver;
    /** Schema id translation, or null when off. */
    private SinkSiteSchemas schemas;
    private DestinationTopics topics;
    private SinkSiteMetrics metrics;
    /** The task's figures, for GET /jetstream/tasks and ./jetstream explain. */
    private TaskView view;
    private boolean exactlyOnce;
    /** Exactly-once: proves the worker writes without transactions (null in at-least-once mode). */
    private volatile WorkerTransactionsCheck transactionsCheck;
    /** The thread Connect polls this task on (null before the first poll): with exactly-once it commits there too. */
    private volatile Thread pollThread;
    private BoundedReads progressReads;
    /** At-least-once: the takeover after a crashed predecessor and the destination offsets it predicts. */
    private CrashTakeover takeover;
    /** Exactly-once: holds acknowledgements until the records are readable ({@link StableCommits}). */
    private StableCommits stableCommits;
    private Admin stableOffsetsAdmin;
    /** Applies topic metadata off the task thread (see {@link ReplicationReceiver}). */
    private ExecutorService metadataApplier;
    /**
     * Source partition maps by origin partition: one per partition, not one per record (immutable,
     * shared by the records of every poll). Task thread only.
     */
    private final Map<TopicPartition, Map<String, Object>> sourcePartitions = new HashMap<>();
    /** The exact offset map's entries, written with the records (null when offset.map.enabled=false). */
    private OffsetMapWriter offsetMap;
    private String offsetMapTopic;
    /** Whether the offset map topic is known to exist; until then poll takes nothing. Task thread only. */
    private boolean offsetMapTopicReady;
    private Admin offsetMapAdmin;
    /** The last source offset returned per origin partition, carried by map records. Task thread only. */
    private final Map<TopicPartition, Map<String, Object>> lastSourceOffsets = new HashMap<>();

    public SinkSiteTask() {
        this(Clock.system());
    }

    SinkSiteTask(Clock clock) {
        this.clock = clock;
        this.lastCommitNanos = clock.nanoTime();
    }

    @Override
    public String version() {
        return Version.get();
    }

    @Override
    public void start(Map<String, String> props) {
        SinkSiteTaskConfig config = new SinkSiteTaskConfig(props);
        this.config = config;
        sourceAlias = config.sourceAlias();
        naming = config.topicNamingPolicy();
        String connectorName = config.connectorName();
        int taskId = config.taskId();
        int taskCount = config.taskCount();
        exactlyOnce = config.exactlyOnce();
        transactionsCheck = exactlyOnce ? new WorkerTransactionsCheck() : null;
        transactionGapNanos = config.transactionGap().toNanos();
        RelayClientConfigs.Settings relaySettings = config.relays(connectorName);
        String nodeId = RelayClients.nodeId(connectorName, taskId);
        // Of two instances of this task subscribed at once (one left over from a stop that timed
        // out), the relay keeps the one that started later.
        long epoch = System.currentTimeMillis();
        progressReads = new BoundedReads("jetstream-progress-" + nodeId,
                progressReadTimeout(config.clusterCallTimeout()));
        metrics = new SinkSiteMetrics(TaskMetrics.forTask(() -> context.pluginMetrics(), connectorName, taskId));
        targetCluster = config.targetCluster();
        Admin admin = targetCluster.admin(nodeId + "-topics");
        topics = new DestinationTopics(admin, naming, config.topicCreation(), config.topicReplicationFactor(),
                config.topicConfigsSync(), config.topicConfigsExclude().asMatchPredicate(), config.clusterCallTimeout(),
                this::destinationTopicRecreated, config.topicPartitionsMax(),
                new MetadataGenerations(java.time.Clock.systemUTC(), config.topicMetadataMaxAge()),
                config.integrityKey().isPresent() ? TopicCreationBudget.UNLIMITED : new TopicCreationBudget(
                        config.topicCreateUnsignedMax(), config.topicCreateUnsignedInterval(), java.time.Clock.systemUTC()));
        FrameIntegrity integrity = FrameIntegrity.of(config.integrityKey(), config.integrityRequired());
        receiver = newReceiver(config, relaySettings.streamId(), nodeId, integrity);
        metrics.receiverGauges(receiver::bufferedBytes);
        takeover = new CrashTakeover(naming, new TakeoverReads(), metrics::rewritten);
        if (OffsetMapConfigs.enabled(config)) {
            startOffsetMap(config, admin);
        }
        if (exactlyOnce) {
            startStableCommits(config, nodeId);
        }
        subscribe(relaySettings, new SubscribeFrame(relaySettings.streamId(), nodeId, taskId, taskCount, epoch),
                integrity);
        StableCommits stable = stableCommits;
        view = TaskView.register(connectorName, taskId, new SinkTaskView(sourceAlias, config.targetAlias(),
                exactlyOnce, metrics.activity(), metrics::heartbeatAgeSeconds, receiver::bufferedBytes,
                stable == null ? null : () -> stable.waiting())::view);
        relayClients.start();
        log.info("Destination-site task {} started: share {}/{} of stream {} from {}, {} mode, {}, topics managed "
                + "on the {}", nodeId, taskId, taskCount, relaySettings.streamId(), relaySettings.relays(),
                exactlyOnce ? "exactly-once" : "at-least-once", integrity, targetCluster);
    }

    /** The engine that orders, checks and hands over the batches of this task's share. */
    private ReplicationReceiver newReceiver(SinkSiteTaskConfig config, String streamId, String nodeId,
                                            FrameIntegrity integrity) {
        return new ReplicationReceiver(new ReplicationReceiver.Settings(streamId,
                config.topicsAllow(), naming, config.targetAlias(), config.bufferMaxBytes(), config.pollMaxRecords(),
                exactlyOnce ? ReplicationReceiver.Durability.ON_RECORD_COMMIT
                        : ReplicationReceiver.Durability.ON_OFFSET_FLUSH,
                config.acceptOffsetGaps() ? ReplicationReceiver.GapPolicy.ACCEPT : ReplicationReceiver.GapPolicy.FAIL,
                config.failOnTopicRecreation() ? ReplicationReceiver.RecreationPolicy.FAIL
                        : ReplicationReceiver.RecreationPolicy.CONTINUE),
                new StoredProgress(), topics, metrics, metadataApplier(nodeId), integrity, translator(config));
    }

    /**
     * Exactly-once: acknowledgements wait until read_committed readers can read the records
     * ({@link StableCommits}), checked on a thread of its own.
     */
    private void startStableCommits(SinkSiteTaskConfig config, String nodeId) {
        stableOffsetsAdmin = targetCluster.admin(nodeId + "-stable");
        Duration callTimeout = config.clusterCallTimeout();
        Admin stableAdmin = stableOffsetsAdmin;
        WorkerTransactionsCheck check = transactionsCheck;
        StableCommits.StableOffsets offsets = new StableCommits.StableOffsets() {
            @Override
            public Map<TopicPartition, Long> lastStableOffsets(List<TopicPartition> destinations) throws Exception {
                return SinkSiteTask.lastStableOffsets(stableAdmin, destinations, callTimeout, clock);
            }

            @Override
            public boolean markersPending(TopicPartition destination, long heldOffset) throws Exception {
                return SinkSiteTask.markersPending(stableAdmin, destination, heldOffset, callTimeout);
            }
        };
        stableCommits = new StableCommits(offsets,
                (origin, offset, topicId) -> {
                    // nothing is acknowledged once the worker is known to write without transactions
                    if (check.evidence() == null) {
                        receiver.onWritten(origin.topic(), origin.partition(), offset, topicId);
                    }
                },
                STABLE_RECHECK, config.stableTimeout(), clock::nanoTime, Executors.newSingleThreadScheduledExecutor(
                        new DefaultThreadFactory("jetstream-stable-" + nodeId, true)));
        metrics.stableCommitsGauges(stableCommits::waiting);
    }

    /** One subscriber client per egress relay (not connected yet), each feeding the receiver. */
    private void subscribe(RelayClientConfigs.Settings relaySettings, SubscribeFrame share, FrameIntegrity integrity) {
        relayClients = RelayClients.open(relaySettings, RelayClients.Role.subscriber(share), share.subscriberId());
        relayClients.connect(relay -> new RelayUpstream(receiver::onFrame), integrity.required(), "Egress relay {} does "
                + "not carry end-to-end MACs (a relay built before them): every batch it delivers arrives unsigned and "
                + "is refused, as integrity.required asks. Upgrade the relays of the path.");
    }

    private void startOffsetMap(SinkSiteTaskConfig config, Admin admin) {
        offsetMapTopic = OffsetMapConfigs.topic(config);
        offsetMapAdmin = admin;
        StoredProgress stored = new StoredProgress();
        offsetMap = new OffsetMapWriter(sourceAlias, naming, exactlyOnce, new OffsetMapWriter.Positions() {
            @Override
            public long endOffset(String destinationTopic, int partition) throws Exception {
                return topics.endOffset(destinationTopic, partition);
            }

            @Override
            public ReplicationReceiver.Progress stored(TopicPartition origin) {
                return stored.progress(origin.topic(), origin.partition());
            }
        });
        metrics.offsetMapGauges(offsetMap::entries, offsetMap::corrections, offsetMap::unmappedRecords);
    }

    /**
     * Makes the offset map topic if it is missing, once per task instance. Until it exists the task
     * takes no batches (they wait at the relay and the source), so no record is written unmapped.
     */
    private boolean offsetMapTopicReady() {
        if (offsetMap == null || offsetMapTopicReady) {
            return true;
        }
        try {
            OffsetMapTopic.ensure(offsetMapAdmin, offsetMapTopic, OffsetMapConfigs.retention(config),
                    config.topicReplicationFactor(), config.clusterCallTimeout());
            offsetMapTopicReady = true;
        } catch (Exception e) {
            log.warn("Cannot make the offset map topic {}; batches wait until it exists: {}", offsetMapTopic,
                    e.toString());
        }
        return offsetMapTopicReady;
    }

    /** The schema id translation when {@code schema.translation.enabled}; else one that only warns. */
    private ReplicationReceiver.Translator translator(SinkSiteTaskConfig config) {
        if (!config.schemaTranslation()) {
            return SinkSiteSchemas.disabled();
        }
        schemas = SinkSiteSchemas.start(config, naming, metrics, clock);
        return schemas;
    }

    /**
     * Progress as Connect stores it: the source offset of the last record written per origin
     * partition, with the incarnation (origin topic id) it belongs to.
     */
    private final class StoredProgress implements ReplicationReceiver.ProgressStore {
        @Override
        public ReplicationReceiver.Progress progress(String originTopic, int partition) {
            return SourceOffsets.progressOf(storedOffset(new TopicPartition(originTopic, partition)));
        }

        @Override
        public Map<TopicPartition, ReplicationReceiver.Progress> progress(Collection<TopicPartition> partitions) {
            Map<TopicPartition, Map<String, Object>> keys = new HashMap<>();
            for (TopicPartition tp : partitions) {
                keys.put(tp, sourcePartition(tp.topic(), tp.partition()));
            }
            Map<Map<String, Object>, Map<String, Object>> offsets = progressReads.read(
                    "stored progress of " + partitions.size() + " partition(s)",
                    () -> context.offsetStorageReader().offsets(keys.values()));
            Map<TopicPartition, ReplicationReceiver.Progress> out = new HashMap<>();
            keys.forEach((tp, key) -> out.put(tp, SourceOffsets.progressOf(offsets.get(key))));
            return out;
        }
    }

    /** What the crash takeover reads: destination end offsets and tails, and the stored progress. */
    private final class TakeoverReads implements CrashTakeover.Destination {
        @Override
        public long endOffset(String topic, int partition) throws Exception {
            return topics.endOffset(topic, partition);
        }

        @Override
        public Map<String, Object> storedOffset(TopicPartition origin) {
            return SinkSiteTask.this.storedOffset(origin);
        }

        @Override
        public DestinationTail.Window tail(TopicPartition destination, long endOffset, boolean withTimestamps) {
            return DestinationTail.read(targetCluster, "jetstream-tail-" + destination.topic() + "-"
                    + destination.partition(), destination, endOffset, withTimestamps, config.clusterCallTimeout(),
                    clock);
        }
    }

    /** How long one read of the stored progress may take: the fixed cap, or the configured call bound if lower. */
    static Duration progressReadTimeout(Duration clusterCallTimeout) {
        return clusterCallTimeout.compareTo(PROGRESS_READ_TIMEOUT) < 0 ? clusterCallTimeout : PROGRESS_READ_TIMEOUT;
    }

    /** The stored source offset of an origin partition, read within {@link #progressReadTimeout}. */
    private Map<String, Object> storedOffset(TopicPartition origin) {
        return progressReads.read("stored progress of " + origin,
                () -> context.offsetStorageReader().offset(sourcePartition(origin.topic(), origin.partition())));
    }

    /** The Connect source partition of an origin partition ({@link SourceOffsets#sourcePartition}). */
    private Map<String, Object> sourcePartition(String originTopic, int partition) {
        return SourceOffsets.sourcePartition(sourceAlias, originTopic, partition);
    }

    /** A destination topic was found deleted: records written to it are released, not awaited. */
    private void destinationTopicRecreated(String topic) {
        metrics.destinationTopicRecreated();
        StableCommits stable = stableCommits;
        if (stable != null) {
            stable.destinationReplaced(topic);
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

    /**
     * Whether a transaction open on {@code destination} is between its commit (or abort) and its markers:
     * its coordinator lists it in PrepareCommit or PrepareAbort.
     */
    /**
     * {@link StableCommits.StableOffsets#markersPending}: the transactions open on {@code destination} that
     * started at or before {@code heldOffset} (only those can hold its records back) are all in
     * PrepareCommit/PrepareAbort; or there is none; or they changed between two readings of the
     * partition's producers around the coordinator's answer (markers written meanwhile, or a producer
     * moved on to a later transaction): then the stable offset read before was stale, not held. A
     * hanging transaction stays open on the partition across both readings and is not being prepared.
     */
    static boolean markersPending(Admin admin, TopicPartition destination, long heldOffset, Duration timeout)
            throws Exception {
        int timeoutMs = (int) timeout.toMillis();
        Map<Long, Long> holding = holdingTransactions(admin, destination, heldOffset, timeoutMs);
        if (holding.isEmpty()) {
            return true;
        }
        int preparing = 0;
        for (TransactionListing listing : admin.listTransactions(new ListTransactionsOptions()
                .filterProducerIds(holding.keySet()).timeoutMs(timeoutMs)).all().get(timeoutMs, TimeUnit.MILLISECONDS)) {
            if (listing.state() == TransactionState.PREPARE_COMMIT || listing.state() == TransactionState.PREPARE_ABORT) {
                preparing++;
            }
        }
        return preparing == holding.size()
                || !holding.equals(holdingTransactions(admin, destination, heldOffset, timeoutMs));
    }

    /** Producer id to start offset of the transactions open on {@code destination} that started at or before {@code heldOffset}. */
    private static Map<Long, Long> holdingTransactions(Admin admin, TopicPartition destination, long heldOffset,
                                                       int timeoutMs) throws Exception {
        Map<Long, Long> holding = new HashMap<>();
        for (ProducerState producer : admin.describeProducers(List.of(destination),
                new DescribeProducersOptions().timeoutMs(timeoutMs)).partitionResult(destination)
                .get(timeoutMs, TimeUnit.MILLISECONDS).activeProducers()) {
            if (producer.currentTransactionStartOffset().isPresent()
                    && producer.currentTransactionStartOffset().getAsLong() <= heldOffset) {
                holding.put(producer.producerId(), producer.currentTransactionStartOffset().getAsLong());
            }
        }
        return holding;
    }

    /**
     * The last stable offsets of {@code destinations}: what read_committed consumers can read up to.
     */
    private static Map<TopicPartition, Long> lastStableOffsets(Admin admin, List<TopicPartition> destinations,
                                                               Duration timeout, Clock clock) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        destinations.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        ListOffsetsResult result = admin.listOffsets(latest,
                new ListOffsetsOptions(IsolationLevel.READ_COMMITTED).timeoutMs((int) timeout.toMillis()));
        // Partition by partition: one that cannot be read (its topic deleted) holds back only its own.
        Map<TopicPartition, Long> out = new HashMap<>();
        Exception failure = null;
        long deadline = clock.nanoTime() + timeout.toNanos();
        for (TopicPartition tp : destinations) {
            try {
                out.put(tp, result.partitionResult(tp).get(Math.max(0, deadline - clock.nanoTime()),
                        TimeUnit.NANOSECONDS).offset());
            } catch (ExecutionException | TimeoutException e) {
                failure = e;
            }
        }
        if (out.isEmpty() && failure != null) {
            throw failure;
        }
        return out;
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        pollThread = Thread.currentThread();
        WorkerTransactionsCheck.Evidence withoutTransactions = transactionsCheck == null ? null
                : transactionsCheck.evidence();
        if (withoutTransactions != null) {
            throw new ConnectException(withoutTransactions.message());
        }
        RuntimeException unstable = stableCommits == null ? null : stableCommits.failure();
        if (unstable != null) {
            throw new ConnectException(unstable.getMessage());
        }
        if (exactlyOnce) {
            awaitTransactionGap();
        }
        if (!offsetMapTopicReady()) {
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
        if (!exactlyOnce) {
            takeover.takeOverNewPartitions(deliveries);
        }
        List<SourceRecord> records = new ArrayList<>(deliveries.size() + 16);
        for (ReplicationReceiver.Delivery delivery : deliveries) {
            records.add(toSourceRecord(delivery));
        }
        if (offsetMap != null) {
            addOffsetMapEntries(deliveries, records);
        }
        return records;
    }

    /**
     * Exactly-once: lets {@code exactly.once.transaction.gap.ms} pass since the last commit before the
     * next transaction's records go to Connect, so that their writes find the commit markers written.
     */
    private void awaitTransactionGap() throws InterruptedException {
        if (transactionGapNanos == 0) {
            return;
        }
        long since = clock.nanoTime() - lastCommitNanos;
        if (since < transactionGapNanos) {
            TimeUnit.NANOSECONDS.sleep(transactionGapNanos - since);
        }
    }

    /**
     * Appends the map entries of this poll's records (and corrections of earlier polls): in the same
     * transaction with exactly-once. Each carries the stored progress of its origin partition's last
     * record, so it commits no progress of its own.
     */
    private void addOffsetMapEntries(List<ReplicationReceiver.Delivery> deliveries, List<SourceRecord> records) {
        for (int i = 0; i < records.size(); i++) {
            Map<String, ?> partition = records.get(i).sourcePartition();
            boolean lastOfItsRun = i == records.size() - 1 || records.get(i + 1).sourcePartition() != partition;
            if (lastOfItsRun) {
                @SuppressWarnings("unchecked")
                Map<String, Object> offset = (Map<String, Object>) records.get(i).sourceOffset();
                lastSourceOffsets.put(new TopicPartition((String) partition.get(SourceOffsets.TOPIC),
                        ((Number) partition.get(SourceOffsets.PARTITION)).intValue()), offset);
            }
        }
        for (OffsetMapWriter.MapRecord entry : offsetMap.entriesFor(deliveries)) {
            Map<String, Object> progress = lastSourceOffsets.get(entry.origin());
            if (progress == null) {
                continue; // a correction of a run this instance no longer tracks
            }
            records.add(new SourceRecord(sourcePartitions.computeIfAbsent(entry.origin(),
                    tp -> Collections.unmodifiableMap(sourcePartition(tp.topic(), tp.partition()))), progress,
                    offsetMapTopic, null, Schema.BYTES_SCHEMA, entry.key(), Schema.BYTES_SCHEMA, entry.value()));
        }
    }

    private SourceRecord toSourceRecord(ReplicationReceiver.Delivery delivery) {
        ReplicatedRecord record = delivery.record();
        ConnectHeaders headers = new ConnectHeaders();
        for (RecordHeader header : record.headers()) {
            headers.addBytes(header.key(), header.value());
        }
        Long timestamp = record.timestampType() == TimestampType.NO_TIMESTAMP_TYPE ? null : record.timestamp();
        Map<String, Object> partition = sourcePartitions.computeIfAbsent(
                new TopicPartition(delivery.originTopic(), delivery.partition()),
                tp -> Collections.unmodifiableMap(sourcePartition(tp.topic(), tp.partition())));
        return new SourceRecord(partition,
                sourceOffset(delivery), naming.destinationTopic(delivery.originTopic()),
                delivery.partition(), Schema.OPTIONAL_BYTES_SCHEMA, record.key(), Schema.OPTIONAL_BYTES_SCHEMA,
                record.value(), timestamp, headers);
    }

    /**
     * The record's progress: its origin offset with the incarnation of the origin topic, and in
     * at-least-once mode its predicted destination offset.
     */
    private Map<String, Object> sourceOffset(ReplicationReceiver.Delivery delivery) {
        long offset = delivery.record().offset();
        ReplicationReceiver.Incarnation incarnation = delivery.incarnation();
        long predicted = SourceOffsets.UNKNOWN_DESTINATION_OFFSET;
        if (!exactlyOnce) {
            predicted = takeover.predictNext(new TopicPartition(delivery.originTopic(), delivery.partition()));
        }
        return SourceOffsets.sourceOffset(offset, incarnation, predicted);
    }

    @Override
    public void commitRecord(SourceRecord record, RecordMetadata metadata) {
        if (offsetMap != null && offsetMapTopic.equals(record.topic())) {
            if (metadata == null) {
                log.warn("An offset map entry of {} was not written (dropped by a transformation?)",
                        record.sourcePartition());
            }
            return;
        }
        if (metadata != null && record.timestamp() != null) {
            metrics.replicationLatency(System.currentTimeMillis() - record.timestamp());
        }
        Map<String, ?> partition = record.sourcePartition();
        String originTopic = (String) partition.get(SourceOffsets.TOPIC);
        int originPartition = ((Number) partition.get(SourceOffsets.PARTITION)).intValue();
        if (metadata != null && record.timestamp() != null) {
            metrics.written(new TopicPartition(originTopic, originPartition), record.timestamp());
        }
        if (!exactlyOnce) {
            if (metadata == null) {
                takeover.onSkipped(new TopicPartition(originTopic, originPartition));
            } else {
                takeover.onWritten(new TopicPartition(originTopic, originPartition), metadata.offset());
            }
        }
        Map<String, ?> offset = record.sourceOffset();
        long originOffset = ((Number) offset.get(SourceOffsets.OFFSET)).longValue();
        if (offsetMap != null) {
            offsetMap.verify(new TopicPartition(originTopic, originPartition), originOffset,
                    metadata != null && metadata.hasOffset() ? metadata.offset() : -1L);
        }
        if (exactlyOnce) {
            boolean written = metadata != null && metadata.hasOffset();
            TopicPartition destination = written ? new TopicPartition(metadata.topic(), metadata.partition()) : null;
            long destinationOffset = written ? metadata.offset() : -1L;
            stableCommits.written(new TopicPartition(originTopic, originPartition), originOffset, offset.get(SourceOffsets.TOPIC_ID),
                    destination, destinationOffset);
        } else {
            receiver.onWritten(originTopic, originPartition, originOffset, offset.get(SourceOffsets.TOPIC_ID));
        }
    }

    /**
     * At-least-once: Connect stored offsets; acknowledges what the stored progress covers. Exactly-once:
     * a transaction committed (Connect calls this after each, on the task thread); its records are
     * acknowledged once stable. Called from another thread, it follows an offset flush of a worker
     * without transactions: nothing is acknowledged and the task fails ({@link WorkerTransactionsCheck}).
     */
    @Override
    public void commit() {
        if (exactlyOnce) {
            WorkerTransactionsCheck check = transactionsCheck;
            if (check == null) {
                return; // start() has not finished: nothing was written
            }
            Thread caller = Thread.currentThread();
            Thread polling = pollThread;
            WorkerTransactionsCheck.Evidence found = polling == null ? null // never polled: nothing written
                    : check.committed(caller == polling, caller.getName());
            if (found != null) {
                log.error(found.message());
            }
            if (check.evidence() != null) {
                return; // acknowledges nothing: poll() fails the task
            }
            lastCommitNanos = clock.nanoTime();
            stableCommits.committed();
        } else {
            receiver.onOffsetsFlushed();
        }
        metrics.committed();
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
        if (stableCommits != null) {
            stableCommits.close();
        }
        if (stableOffsetsAdmin != null) {
            stableOffsetsAdmin.close(Duration.ZERO);
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
        if (progressReads != null) {
            progressReads.close();
        }
        if (metrics != null) {
            metrics.close();
        }
        log.info("Destination-site task stopped in {} ms", (System.nanoTime() - start) / 1_000_000);
    }
}
