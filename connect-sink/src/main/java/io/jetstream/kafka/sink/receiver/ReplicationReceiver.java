package io.jetstream.kafka.sink.receiver;

import io.jetstream.kafka.core.batch.BatchDecoder;
import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.delivery.PartitionSequencer;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.core.protocol.integrity.WarningThrottle;
import io.jetstream.kafka.core.wire.ProtocolException;
import io.jetstream.kafka.schema.ShippedSchema;
import io.jetstream.kafka.sink.metrics.SinkSiteMetrics;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import io.jetstream.kafka.sink.topics.DestinationTopics;
import io.jetstream.kafka.sink.topics.MetadataGenerations;
import io.jetstream.kafka.sink.topics.TopicProvisioner;
import io.jetstream.kafka.transport.FrameBuffers;
import io.jetstream.kafka.transport.RetainedBuffers;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine of a destination-site task, free of Kafka Connect types: takes batches from the
 * egress relays, re-orders and de-duplicates them per origin partition, hands records over in
 * order, and acknowledges each batch once its records are durable.
 *
 * <p>Durability depends on the mode: with exactly-once ({@link Durability#ON_RECORD_COMMIT}) a
 * record is durable when the task reports it ({@link #onWritten}): the task does so once the
 * transaction that holds the records and their source offsets has committed and its records are
 * readable ({@link io.jetstream.kafka.sink.exactlyonce.StableCommits}); with at-least-once
 * ({@link Durability#ON_OFFSET_FLUSH}) a record is durable only once the source offset covering it
 * is stored too. After each offset flush the receiver reads the stored progress back and
 * acknowledges up to it: Connect decides on its own schedule which producer-acknowledged records a
 * flush covers, so nothing short of reading the store proves it. Acknowledging earlier lets the
 * source commit past records whose progress is not stored; a task restarted after a crash then
 * resumes below a batch's predecessor that no sender holds any more, and the partition stalls.
 *
 * <p>Memory: received batches wait in a queue, bounded by {@code bufferMaxBytes} in wire bytes, and
 * batches that arrived ahead of their predecessor wait, decoded, in the sequencers' hold areas,
 * bounded by {@code bufferMaxBytes} too in decoded bytes ({@link #decodedBytes}). Once the queue
 * holds half its bound, the relay connection a batch came from is no longer read
 * ({@link Upstream#pauseReading()}) until {@link #poll} has drained the queue to a quarter: TCP then holds the relay back, and the relay its upstreams, without a byte sent
 * twice over the WAN. Only what arrives while a pause takes effect can reach the bound; past it, and
 * past the hold area's bound, batches are refused with a retriable OVERLOADED acknowledgement and the
 * sender re-sends later (never unbounded buffering); a batch that applies at once is never refused
 * for the hold area, so a full hold area always drains.
 *
 * <p>Skip markers ({@link RecordBatch#isSkipMarker()}): the source-site connector, under
 * {@code errors.tolerance=all}, sends one in the place of a batch this destination refused for good.
 * It is checked (MAC, decoding) like any batch and applied in order like one whose records are all
 * absent (see {@link PartitionSequencer}): nothing is written, the partition moves past its offsets
 * without counting them as a gap, the batches after it follow. A marker of a partition nothing is
 * written of here (a topic outside {@code topics.allow}, a partition beyond the limit, a topic
 * incarnation left behind) is acknowledged at once. Counted ({@code skipped-at-source-*}) and logged.
 *
 * <p>Integrity ({@link FrameIntegrity}, {@code integrity.key}): a batch's MAC is checked before
 * anything in it is used (its topic, offsets, records), topic metadata's before it is applied; a
 * frame that fails is refused with a NACK {@code NOT_AUTHORIZED}, never written, counted
 * ({@code integrity-failures-total}) and logged. Every acknowledgement this receiver sends is
 * signed.
 *
 * <p>Threads: {@link #onFrame} runs on Netty threads, {@link #poll} on the task thread,
 * {@link #onWritten} on producer threads, topic metadata on the metadata applier given to the
 * constructor; sequencer state is guarded by one lock.
 */
public final class ReplicationReceiver implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReplicationReceiver.class);

    /** Where acknowledgements go: the relay connection the batch came from. */
    public interface Upstream {
        String name();

        void sendAck(AckFrame ack);

        /** Stop reading batches from this relay connection until {@link #resumeReading()}. Any thread. */
        default void pauseReading() {
        }

        /** Read from this relay connection again. Any thread. */
        default void resumeReading() {
        }
    }

    /**
     * The stored progress of an origin partition: the last origin offset written, and the incarnation
     * (origin topic id) it belongs to with the one before it ({@link Uuid#ZERO_UUID} when unknown)
     * and those before that, newest first (at most {@link Incarnation#RETIRED_KEPT} in all).
     */
    public record Progress(long lastWritten, Uuid topicId, Uuid previousTopicId, List<Uuid> olderTopicIds) {
        public static final Progress NONE = new Progress(-1L, Uuid.ZERO_UUID, Uuid.ZERO_UUID);

        public Progress {
            Objects.requireNonNull(topicId, "topicId");
            Objects.requireNonNull(previousTopicId, "previousTopicId");
            olderTopicIds = List.copyOf(olderTopicIds);
        }

        public Progress(long lastWritten, Uuid topicId, Uuid previousTopicId) {
            this(lastWritten, topicId, previousTopicId, List.of());
        }

        /** Progress of a partition whose incarnation is not known. */
        static Progress of(long lastWritten) {
            return new Progress(lastWritten, Uuid.ZERO_UUID, Uuid.ZERO_UUID);
        }
    }

    /** Where the progress of each origin partition is stored. */
    public interface ProgressStore {
        Progress progress(String originTopic, int partition);

        /** The stored progress of several partitions at once (one read of the store where possible). */
        default Map<TopicPartition, Progress> progress(Collection<TopicPartition> partitions) {
            Map<TopicPartition, Progress> out = new HashMap<>();
            for (TopicPartition tp : partitions) {
                out.put(tp, progress(tp.topic(), tp.partition()));
            }
            return out;
        }
    }

    /**
     * The incarnation of an origin partition whose records a delivery carries: its topic id, the one
     * before it and those before that (the incarnations the partition has left, which it refuses as
     * obsolete), with their string forms made once (they go into every record's stored progress).
     * Ids are {@link Uuid#ZERO_UUID} when unknown, and their strings null.
     *
     * <p>The incarnations left are kept up to {@link #RETIRED_KEPT}, newest first: a batch of one
     * left longer ago (a topic deleted and recreated more than that many times since) is taken for
     * a recreation again. Kafka never reuses a topic id, so nothing legitimate is ever refused.
     */
    public static final class Incarnation {
        public static final Incarnation UNKNOWN = new Incarnation(Uuid.ZERO_UUID, Uuid.ZERO_UUID);

        /** How many incarnations left behind a partition remembers: the previous one and older ones. */
        static final int RETIRED_KEPT = 16;

        public final Uuid topicId;
        final Uuid previousTopicId;
        /** Incarnations left before the previous one, newest first. */
        final List<Uuid> olderTopicIds;
        public final String topicIdString;
        public final String previousTopicIdString;
        /** {@link #olderTopicIds} joined with commas, or null when there are none. */
        public final String olderTopicIdsString;

        public Incarnation(Uuid topicId, Uuid previousTopicId) {
            this(topicId, previousTopicId, List.of());
        }

        public Incarnation(Uuid topicId, Uuid previousTopicId, List<Uuid> olderTopicIds) {
            this.topicId = topicId;
            this.previousTopicId = previousTopicId;
            List<Uuid> older = olderTopicIds.stream().filter(id -> !Uuid.ZERO_UUID.equals(id)).distinct()
                    .limit(RETIRED_KEPT - 1).toList();
            this.olderTopicIds = Uuid.ZERO_UUID.equals(previousTopicId) ? List.of() : older;
            this.topicIdString = Uuid.ZERO_UUID.equals(topicId) ? null : topicId.toString();
            this.previousTopicIdString = Uuid.ZERO_UUID.equals(previousTopicId) ? null : previousTopicId.toString();
            this.olderTopicIdsString = this.olderTopicIds.isEmpty() ? null
                    : String.join(",", this.olderTopicIds.stream().map(Uuid::toString).toList());
        }

        public boolean known() {
            return topicIdString != null;
        }

        /** Whether {@code id} is an incarnation this one replaced (directly or further back). */
        boolean left(Uuid id) {
            return previousTopicIdString != null && (previousTopicId.equals(id) || olderTopicIds.contains(id));
        }

        /** Whether this partition has left an incarnation behind: its topic was recreated. */
        boolean hasLeftAny() {
            return previousTopicIdString != null;
        }

        /** The incarnation {@code next} that replaces this one: this one and those it left become the left ones. */
        public Incarnation replacedBy(Uuid next) {
            List<Uuid> older = new ArrayList<>(olderTopicIds.size() + 1);
            if (hasLeftAny()) {
                older.add(previousTopicId);
                older.addAll(olderTopicIds);
            }
            return new Incarnation(next, topicId, older);
        }

        /** Whether progress stored with {@code storedTopicId} (a string, or null when unknown) may be this incarnation's. */
        boolean matches(Object storedTopicId) {
            if (topicIdString == null) {
                return true;
            }
            // progress without an id predates ids; after a recreation it can only be the old topic's
            return storedTopicId == null ? previousTopicIdString == null : topicIdString.equals(storedTopicId);
        }
    }

    /**
     * Rewrites what a batch's records refer to at the origin site for the destination site (schema
     * ids), before they are ordered and written; takes what the source ships for it with topic
     * metadata.
     */
    public interface Translator {
        public Translator NONE = new Translator() {
            @Override
            public String translate(RecordBatch batch, boolean inOrder) {
                return null;
            }

            @Override
            public void accept(TopicMetadataFrame metadata) {
            }
        };

        /**
         * Rewrites the batch's records in place.
         *
         * @param inOrder whether the batch is next in its partition's order (what must follow the
         *     source's order, such as a schema registration, may happen only then)
         * @return null, or why the batch cannot be written now: it is refused, retriably, and comes again
         */
        String translate(RecordBatch batch, boolean inOrder);

        /** What topic metadata (allowed, MAC checked) brings besides the topic's own configs. */
        void accept(TopicMetadataFrame metadata);
    }

    public enum Durability { ON_RECORD_COMMIT, ON_OFFSET_FLUSH }

    /** What to do with a gap the source cannot vouch for ({@code offset.gap.policy}). */
    public enum GapPolicy { FAIL, ACCEPT }

    /** What to do when records of a recreated source topic arrive ({@code topic.recreation.policy}). */
    public enum RecreationPolicy { CONTINUE, FAIL }

    public record Settings(String streamId, Pattern topicsAllow, TopicNamingPolicy naming, String targetAlias,
                    long bufferMaxBytes, int maxRecordsPerPoll, Durability durability, GapPolicy gapPolicy,
                    RecreationPolicy recreationPolicy) {
        public Settings {
            Objects.requireNonNull(streamId, "streamId");
            Objects.requireNonNull(topicsAllow, "topicsAllow");
            Objects.requireNonNull(naming, "naming");
            Objects.requireNonNull(durability, "durability");
            Objects.requireNonNull(gapPolicy, "gapPolicy");
            Objects.requireNonNull(recreationPolicy, "recreationPolicy");
        }

        public Settings(String streamId, Pattern topicsAllow, TopicNamingPolicy naming, String targetAlias,
                 long bufferMaxBytes, int maxRecordsPerPoll, Durability durability, GapPolicy gapPolicy) {
            this(streamId, topicsAllow, naming, targetAlias, bufferMaxBytes, maxRecordsPerPoll, durability, gapPolicy,
                    RecreationPolicy.CONTINUE);
        }

        public Settings(String streamId, Pattern topicsAllow, TopicNamingPolicy naming, String targetAlias,
                 long bufferMaxBytes, int maxRecordsPerPoll, Durability durability) {
            this(streamId, topicsAllow, naming, targetAlias, bufferMaxBytes, maxRecordsPerPoll, durability,
                    GapPolicy.FAIL);
        }
    }

    /** A record ready to be written, with its origin and the incarnation of the origin topic it belongs to. */
    public record Delivery(String originTopic, int partition, ReplicatedRecord record, Incarnation incarnation) {
    }

    /** An origin partition's sequencer and the incarnation of its topic that the sequencer orders. */
    private static final class PartitionState {
        final PartitionSequencer<AckTarget> sequencer;
        final Incarnation incarnation;

        PartitionState(PartitionSequencer<AckTarget> sequencer, Incarnation incarnation) {
            this.sequencer = sequencer;
            this.incarnation = incarnation;
        }
    }

    private record Inbound(Upstream from, Frame frame, long bytes) {
    }

    /**
     * Where and what to acknowledge. Equal when it answers the same batch (origin node and batch id) on
     * the same way back, so that a batch re-sent while its first copy waits is acknowledged once.
     */
    private record AckTarget(Upstream upstream, AckFrame ack) {

        @Override
        public boolean equals(Object o) {
            return o instanceof AckTarget other && upstream == other.upstream
                    && ack.batchId() == other.ack.batchId() && ack.originNodeId().equals(other.ack.originNodeId());
        }

        @Override
        public int hashCode() {
            return Objects.hash(System.identityHashCode(upstream), ack.batchId(), ack.originNodeId());
        }
    }

    private final Settings settings;
    private final ProgressStore progress;
    private final TopicProvisioner topics;
    private final SinkSiteMetrics metrics;
    private final BatchDecoder decoder = new BatchDecoder();
    private final LinkedBlockingQueue<Inbound> inbound = new LinkedBlockingQueue<>();
    private final AtomicLong queuedBytes = new AtomicLong();
    /** Connections not read while the queue drains. */
    private final Set<Upstream> paused = new HashSet<>();
    private final Object lock = new Object();
    private final Map<TopicPartition, PartitionState> partitions = new HashMap<>();
    private final Executor metadataApplier;
    private final FrameIntegrity integrity;
    private final Translator translator;
    private final WarningThrottle integrityWarnings = WarningThrottle.every(Duration.ofSeconds(10));
    private final WarningThrottle skipWarnings = WarningThrottle.every(Duration.ofSeconds(10));
    private final WarningThrottle creationWarnings = WarningThrottle.every(Duration.ofSeconds(10));
    private final WarningThrottle incarnationWarnings = WarningThrottle.every(Duration.ofSeconds(10));
    private final WarningThrottle adoptionWarnings = WarningThrottle.every(Duration.ofSeconds(10));
    private long heldBytes;
    private volatile boolean closed;
    /** Set when a relay gave this task's share to a newer subscriber: poll fails the task, visibly. */
    private volatile String superseded;

    /** For tests: topic metadata is applied on the thread that hands the frame over; integrity off. */
    public ReplicationReceiver(Settings settings, ProgressStore progress, TopicProvisioner topics, SinkSiteMetrics metrics) {
        this(settings, progress, topics, metrics, Runnable::run, FrameIntegrity.OFF);
    }

    /**
     * @param metadataApplier runs the application of topic metadata (Admin calls that may block),
     *                        away from the task thread: Connect's producer waits on that thread for a
     *                        destination topic that is missing, and only applying the origin's
     *                        metadata makes it again. May reject work (a bounded queue): the metadata
     *                        is then refused retriably.
     * @param integrity       checks the MACs of what arrives and signs what is sent back
     */
    public ReplicationReceiver(Settings settings, ProgressStore progress, TopicProvisioner topics, SinkSiteMetrics metrics,
                        Executor metadataApplier, FrameIntegrity integrity) {
        this(settings, progress, topics, metrics, metadataApplier, integrity, Translator.NONE);
    }

    /** @param translator rewrites records for the destination site (schema ids) before they are ordered */
    public ReplicationReceiver(Settings settings, ProgressStore progress, TopicProvisioner topics, SinkSiteMetrics metrics,
                        Executor metadataApplier, FrameIntegrity integrity, Translator translator) {
        this.translator = Objects.requireNonNull(translator, "translator");
        this.settings = settings;
        this.progress = progress;
        this.topics = topics;
        this.metrics = metrics;
        this.metadataApplier = metadataApplier;
        this.integrity = Objects.requireNonNull(integrity, "integrity");
    }

    /** Takes a frame from a relay (Netty thread); owns and eventually releases it. */
    public void onFrame(Upstream from, Frame frame) {
        if (closed) {
            ReferenceCountUtil.release(frame);
            return;
        }
        if (frame instanceof BatchFrame batch) {
            long bytes = batch.payload().readableBytes() + 128L;
            if (!batch.header().routing().streamId().equals(settings.streamId())) {
                refuse(from, batch, AckReason.NOT_AUTHORIZED, "stream " + batch.header().routing().streamId()
                        + " is not " + settings.streamId());
                return;
            }
            // Only the queue is bounded here; the hold area has its own bound in offer(), which never
            // refuses a batch that applies now: refusing a predecessor because its successors fill
            // the hold area would hold them forever.
            if (queuedBytes.get() + bytes > settings.bufferMaxBytes()) {
                metrics.overloaded();
                refuse(from, batch, AckReason.OVERLOADED, "destination task queue full");
                return;
            }
            metrics.batchTransit(System.currentTimeMillis() - batch.header().createdAtMillis());
            // A small batch read with a large frame would keep that frame's whole buffer alive while it
            // waits here, charged only its own bytes: copied out (large batches stay zero-copy).
            BatchFrame held = RetainedBuffers.detached(batch, bytes, FrameBuffers.ALLOCATOR);
            long queued = queuedBytes.addAndGet(bytes);
            inbound.add(new Inbound(from, held, bytes));
            if (queued > pauseAboveBytes()) {
                pause(from);
            }
        } else if (frame instanceof TopicMetadataFrame metadata) {
            String integrityProblem = integrity.problem(metadata);
            if (integrityProblem != null) {
                refuseForIntegrity(from, AckFrame.nack(metadata, AckReason.NOT_AUTHORIZED, "integrity: "
                        + integrityProblem), "topic metadata of " + metadata.topic() + " (" + metadata.partitionCount()
                        + " partitions, id " + metadata.metadataId() + " from " + metadata.routing().originNodeId()
                        + ")", integrityProblem);
                return;
            }
            try {
                metadataApplier.execute(() -> applyMetadata(from, metadata));
            } catch (RejectedExecutionException e) {
                send(from, AckFrame.nack(metadata, AckReason.OVERLOADED, "topic metadata queue full"));
            }
        } else if (frame instanceof ErrorFrame error && error.code() == ErrorCode.SUPERSEDED) {
            superseded = "relay " + from.name() + " answered " + error.code() + ": " + error.message();
        } else {
            log.debug("Ignoring {} from relay {}", frame.type(), from.name());
            ReferenceCountUtil.release(frame);
        }
    }

    private void refuse(Upstream from, BatchFrame batch, AckReason reason, String message) {
        try {
            send(from, AckFrame.nack(batch.header(), reason, message));
        } finally {
            batch.release();
        }
    }

    /** Every acknowledgement leaves through here: signed when integrity is on. */
    private void send(Upstream to, AckFrame ack) {
        to.sendAck(integrity.sign(ack));
    }

    /** Refuses a frame that failed its integrity check: counted, logged (throttled), answered, never used. */
    private void refuseForIntegrity(Upstream from, AckFrame nack, String what, String problem) {
        metrics.integrityFailure();
        long notLogged = integrityWarnings.admit();
        if (notLogged != WarningThrottle.QUIET) {
            log.warn("Refused {} received from relay {}: {}. Nothing of it is used; answered NOT_AUTHORIZED "
                    + "(counted in integrity-failures-total{})", what, from.name(), problem,
                    notLogged == 0 ? "" : "; " + notLogged + " more refusals since the last such warning");
        }
        send(from, nack);
    }

    /**
     * Returns records now in order (up to the per-poll maximum), waiting up to {@code timeout} for
     * the first batch. Empty when nothing arrived.
     */
    public List<Delivery> poll(Duration timeout) throws InterruptedException {
        String supersededBy = superseded;
        if (supersededBy != null) {
            throw new TaskSupersededException("This destination-site task instance no longer receives: "
                    + supersededBy + ". A newer instance of the same task subscribed to its share. After a Connect "
                    + "restart or rebalance that instance is this task's successor; if no other instance of this "
                    + "task runs, someone else holds the subscriber token of stream " + settings.streamId()
                    + ": rotate it (streams.<id>.subscriber.token on the egress relays, stream.token here; "
                    + "docs/security.md).");
        }
        List<Delivery> out = new ArrayList<>();
        Inbound next = inbound.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        while (next != null && !closed) {
            queuedBytes.addAndGet(-next.bytes());
            handle(next, out);
            if (out.size() >= settings.maxRecordsPerPoll()) {
                break;
            }
            next = inbound.poll();
        }
        resumeIfDrained();
        if (!out.isEmpty()) {
            metrics.recordsOut(out.size());
        }
        return out;
    }

    /** Half the queue's bound: above it, the connection a batch came from is paused. */
    private long pauseAboveBytes() {
        return settings.bufferMaxBytes() / 2;
    }

    /**
     * Pausing and resuming happen under one lock, each with its change to {@link #paused}: a pause
     * on a Netty thread racing a resume on the task thread could otherwise leave a connection
     * paused that the set no longer lists, and nothing would ever resume it.
     */
    private void pause(Upstream from) {
        synchronized (paused) {
            if (paused.add(from)) {
                from.pauseReading();
            }
        }
    }

    private void resumeIfDrained() {
        if (queuedBytes.get() > settings.bufferMaxBytes() / 4) {
            return;
        }
        synchronized (paused) {
            if (paused.isEmpty()) {
                return;
            }
            paused.forEach(Upstream::resumeReading);
            paused.clear();
        }
    }

    private void handle(Inbound in, List<Delivery> out) {
        BatchFrame frame = (BatchFrame) in.frame();
        try {
            BatchHeader header = frame.header();
            // Before anything in the batch is believed: its topic, offsets and records are the source's
            // only if its MAC says so.
            String integrityProblem = integrity.problem(frame);
            if (integrityProblem != null) {
                refuseForIntegrity(in.from(), AckFrame.nack(header, AckReason.NOT_AUTHORIZED, "integrity: "
                        + integrityProblem), "batch " + header.batchId() + " of " + header.topic() + "-"
                        + header.partition() + " offsets " + header.firstOffset() + ".." + header.lastOffset()
                        + " (prev " + header.prevOffset() + ", from " + header.routing().originNodeId() + ")",
                        integrityProblem);
                return;
            }
            String topic = header.topic();
            metrics.heard(new TopicPartition(topic, header.partition()), header.createdAtMillis());
            if (!isAllowed(topic)) {
                RecordBatch marker = skipMarkerOrNull(frame);
                if (marker != null) {
                    acceptUnsequenced(in.from(), header, marker, "topic " + topic + " is not allowed here");
                    return;
                }
                metrics.refused();
                send(in.from(), AckFrame.nack(header, AckReason.NOT_AUTHORIZED, "topic " + topic
                        + " is not allowed by topics.allow and topics.exclude, or came from " + settings.targetAlias()));
                return;
            }
            RecordBatch batch;
            try {
                batch = decoder.decode(frame.encodedBatch());
            } catch (ProtocolException e) {
                metrics.malformed();
                send(in.from(), AckFrame.nack(header, AckReason.MALFORMED_BATCH, e.getMessage()));
                return;
            }
            try {
                topics.ensure(topic, header.partition());
            } catch (DestinationTopics.PartitionLimitException e) {
                if (batch.isSkipMarker()) {
                    acceptUnsequenced(in.from(), header, batch, e.getMessage());
                    return;
                }
                metrics.refused();
                log.error("Batch of {}-{} offsets {}..{} refused: {}", topic, header.partition(), header.firstOffset(),
                        header.lastOffset(), e.getMessage());
                send(in.from(), AckFrame.nack(header, AckReason.NOT_AUTHORIZED, e.getMessage()));
                return;
            } catch (DestinationTopics.MetadataPendingException e) {
                log.debug("Batch of {}-{} refused for now: {}", topic, header.partition(), e.getMessage());
                send(in.from(), AckFrame.nack(header, AckReason.WRITE_FAILED, e.getMessage()));
                return;
            } catch (Exception e) {
                log.warn("Cannot prepare the destination of {}-{}: {}", topic, header.partition(), e.toString());
                send(in.from(), AckFrame.nack(header, AckReason.WRITE_FAILED, "destination topic not ready: " + e));
                return;
            }
            // Before translation, which may register schemas in source order for a batch that applies now.
            if (!batch.hasTopicId() && refusedWithoutTopicId(in.from(), header, batch)) {
                return;
            }
            // Never written with an id that could not be translated: refused, the source sends it again.
            String hold = translator.translate(batch, appliesNow(batch));
            if (hold != null) {
                send(in.from(), AckFrame.nack(header, AckReason.WRITE_FAILED, hold));
                return;
            }
            offer(in.from(), header, batch, Math.max(in.bytes(), decodedBytes(batch)), out);
        } finally {
            frame.release();
        }
    }

    /**
     * The batch as a skip marker, when it is one (checked only for a frame that declares no records
     * and offsets past its predecessor, as only markers do); else null.
     */
    private RecordBatch skipMarkerOrNull(BatchFrame frame) {
        BatchHeader header = frame.header();
        if (header.recordCount() != 0 || header.lastOffset() == header.prevOffset()) {
            return null;
        }
        try {
            RecordBatch batch = decoder.decode(frame.encodedBatch());
            return batch.isSkipMarker() ? batch : null;
        } catch (ProtocolException e) {
            return null;
        }
    }

    /**
     * A skip marker of a partition this destination writes nothing of (a topic it does not allow, a
     * partition beyond its limit, an incarnation of the topic it has left): acknowledged at once. Its
     * successors are refused, or belong to another incarnation, on their own; nothing of the
     * partition is written, so there is no progress to move past the skipped offsets.
     */
    private void acceptUnsequenced(Upstream from, BatchHeader header, RecordBatch marker, String why) {
        metrics.skippedAtSource(marker.skipped().records());
        warnSkipped(marker, why + "; nothing of that partition is written here");
        send(from, AckFrame.ok(header));
    }

    /** WARN (at most one per 10 s) that the source skipped the marker's offsets. */
    private void warnSkipped(RecordBatch marker, String detail) {
        long notLogged = skipWarnings.admit();
        if (notLogged != WarningThrottle.QUIET) {
            log.warn("Origin offsets {}..{} of {}-{} ({} records) were skipped at the source: its errors.tolerance=all "
                    + "skipped the batch after this destination refused it for good, and reported its records to "
                    + "its dead letter queue, if it has one. They are not written here; {} (counted in "
                    + "skipped-at-source-records-total{})", marker.firstOffset(), marker.lastOffset(), marker.topic(),
                    marker.partition(), marker.skipped().records(), detail,
                    notLogged == 0 ? "" : "; " + notLogged + " more since the last such warning");
        }
    }

    /**
     * What a decoded batch holds on the heap, roughly: its records' data plus 64 bytes each (the
     * record, its arrays and list entries). A held batch is charged this, not its compressed size: a
     * well-compressed batch is many times larger once decoded.
     */
    static long decodedBytes(RecordBatch batch) {
        long bytes = 128;
        for (ReplicatedRecord record : batch.records()) {
            bytes += record.dataBytes() + 64L;
        }
        return bytes;
    }

    /** Whether the batch would be applied now (its predecessor written), not held for re-ordering. */
    private boolean appliesNow(RecordBatch batch) {
        synchronized (lock) {
            PartitionState state = partitions.get(new TopicPartition(batch.topic(), batch.partition()));
            return state == null || state.sequencer.isApplicable(batch);
        }
    }

    private boolean isAllowed(String originTopic) {
        return settings.topicsAllow().matcher(originTopic).matches()
                && !settings.naming().isReplicaFrom(originTopic, settings.targetAlias());
    }

    /**
     * The partition's state, made from its stored progress when it has none yet; null when the stored
     * progress cannot be read now (the batch was then refused, retriably, rather than guess where the
     * partition stands). Under {@link #lock}.
     */
    private PartitionState stateOf(TopicPartition tp, Upstream from, BatchHeader header) {
        PartitionState state = partitions.get(tp);
        if (state == null) {
            Progress stored;
            try {
                stored = progress.progress(tp.topic(), tp.partition());
            } catch (RuntimeException e) {
                // Stored progress unreadable right now (e.g. the broker is down)
                log.warn("Cannot read the stored progress of {}: {}", tp, e.toString());
                send(from, AckFrame.nack(header, AckReason.WRITE_FAILED, "progress unavailable: " + e));
                return null;
            }
            state = new PartitionState(new PartitionSequencer<>(stored.lastWritten(), this::onGap),
                    new Incarnation(stored.topicId(), stored.previousTopicId(), stored.olderTopicIds()));
            partitions.put(tp, state);
        }
        return state;
    }

    /**
     * A batch without a topic id (its sender could not read the id: the topic was being deleted) for
     * a partition whose incarnation is known is taken only when it applies at once to that
     * incarnation, which has replaced no other: only then can it be nothing but the current
     * incarnation's. Otherwise it is refused, retriably and never held: held, it would pin buffer
     * bytes until the buffer fills and every other batch is refused OVERLOADED (a relay replaying
     * old frames stalls the task so), and after a recreation it may be a replay of the old topic's
     * batch, whose records would be written into the new topic's sequence. Its sender, if any, goes
     * on re-sending it until its partition moves on (the topic's deletion revokes it). Returns
     * whether the batch was refused (answered).
     */
    private boolean refusedWithoutTopicId(Upstream from, BatchHeader header, RecordBatch batch) {
        String why;
        synchronized (lock) {
            TopicPartition tp = new TopicPartition(batch.topic(), batch.partition());
            PartitionState state = stateOf(tp, from, header);
            if (state == null) {
                return true;
            }
            Incarnation current = state.incarnation;
            if (!current.known()) {
                return false;
            }
            if (current.hasLeftAny()) {
                why = "topic " + tp.topic() + " was deleted and recreated (topic id " + current.previousTopicId
                        + " -> " + current.topicId + "): a batch without a topic id may be the old topic's";
            } else if (!state.sequencer.isApplicable(batch)) {
                why = "it does not follow the last offset written of " + tp + " (" + state.sequencer.lastWritten()
                        + ", topic id " + current.topicId + "), and a batch without a topic id is not held: it "
                        + "may belong to another incarnation of the topic";
            } else {
                return false;
            }
        }
        metrics.incarnationRefused();
        long notLogged = incarnationWarnings.admit();
        if (notLogged != WarningThrottle.QUIET) {
            log.warn("Refused batch {} of {}-{} offsets {}..{} (prev {}) from relay {}: it carries no topic id and {}. "
                    + "Answered WRITE_FAILED, not held, nothing written (counted in incarnation-refusals-total{})",
                    header.batchId(), batch.topic(), batch.partition(), header.firstOffset(), header.lastOffset(),
                    batch.prevOffset(), from.name(), why,
                    notLogged == 0 ? "" : "; " + notLogged + " more since the last such warning");
        }
        send(from, AckFrame.nack(header, AckReason.WRITE_FAILED, "no topic id: " + why));
        return true;
    }

    private void offer(Upstream from, BatchHeader header, RecordBatch batch, long bytes, List<Delivery> out) {
        List<AckTarget> due;
        synchronized (lock) {
            TopicPartition tp = new TopicPartition(batch.topic(), batch.partition());
            PartitionState state = stateOf(tp, from, header);
            if (state == null) {
                return;
            }
            if (batch.hasTopicId() && !batch.topicId().equals(state.incarnation.topicId)) {
                state = switchIncarnation(tp, state, from, header, batch);
                if (state == null) {
                    return;
                }
            }
            PartitionSequencer<AckTarget> sequencer = state.sequencer;
            if (!sequencer.isApplicable(batch) && heldBytes + bytes > settings.bufferMaxBytes()) {
                metrics.overloaded();
                send(from, AckFrame.nack(header, AckReason.OVERLOADED, "destination re-order buffer full"));
                return;
            }
            long duplicatesBefore = sequencer.duplicateRecords();
            long skippedBefore = sequencer.skippedRecords();
            long heldBefore = sequencer.heldBytes();
            PartitionSequencer.Result<AckTarget> result = sequencer.offer(batch,
                    new AckTarget(from, AckFrame.ok(header)), bytes);
            heldBytes += sequencer.heldBytes() - heldBefore;
            metrics.duplicates(sequencer.duplicateRecords() - duplicatesBefore);
            long skipped = sequencer.skippedRecords() - skippedBefore;
            if (skipped > 0) {
                metrics.skippedAtSource(skipped);
                if (batch.isSkipMarker()) {
                    warnSkipped(batch, "the records after them follow");
                }
            }
            for (ReplicatedRecord record : result.records()) {
                out.add(new Delivery(batch.topic(), batch.partition(), record, state.incarnation));
            }
            due = result.dueAcks();
        }
        due.forEach(target -> send(target.upstream(), target.ack()));
    }

    /**
     * A batch carries another topic id than the partition's: the first id known for it (adopted),
     * a batch of an incarnation the partition has left, the one before or an older one (refused for
     * good: that topic is gone and its sender has moved on; a relay may replay such a batch, its MAC
     * still valid), or a recreated topic. A recreated topic's records start a new sequence from its
     * first record, whatever the offsets written for the old one, unless
     * {@code topic.recreation.policy=fail}. The old incarnation's held batches and waiting
     * acknowledgements are dropped: its sender dropped them when it met the new incarnation. Returns
     * the state to offer the batch to, or null when the batch was answered.
     */
    private PartitionState switchIncarnation(TopicPartition tp, PartitionState state, Upstream from,
                                             BatchHeader header, RecordBatch batch) {
        Incarnation current = state.incarnation;
        if (!current.known()) {
            if (state.sequencer.lastWritten() >= 0) {
                warnAdopted(tp, state.sequencer.lastWritten(), batch);
            }
            PartitionState adopted = new PartitionState(state.sequencer,
                    new Incarnation(batch.topicId(), current.previousTopicId, current.olderTopicIds));
            partitions.put(tp, adopted);
            return adopted;
        }
        if (current.left(batch.topicId())) {
            if (batch.isSkipMarker()) {
                acceptUnsequenced(from, header, batch, "it belongs to topic id " + batch.topicId()
                        + ", deleted and recreated (now " + current.topicId + ")");
                return null;
            }
            metrics.incarnationRefused();
            String since = batch.topicId().equals(current.previousTopicId) ? " as " + current.topicId
                    : ", and recreated again since (topic id now " + current.topicId + ")";
            send(from, AckFrame.nack(header, AckReason.OBSOLETE_INCARNATION, "topic " + tp.topic() + " id "
                    + batch.topicId() + " was deleted and recreated" + since));
            return null;
        }
        metrics.recreation(tp);
        String what = "Source topic " + tp.topic() + " was deleted and recreated (topic id " + current.topicId
                + " -> " + batch.topicId() + "): records of the new topic arrive for partition " + tp.partition()
                + ", whose last record written here was offset " + state.sequencer.lastWritten() + " of the old one";
        if (settings.recreationPolicy() == RecreationPolicy.FAIL) {
            log.error("{}. Failing the task (topic.recreation.policy=fail)", what);
            throw new TopicRecreatedException(what + ". Nothing of the new topic is written until "
                    + "topic.recreation.policy=continue is set on the destination-site connector (the new records "
                    + "then follow the old ones in the destination topic; empty or recreate it first to keep only "
                    + "the new ones).");
        }
        log.warn("{}. Its records are written after the old topic's, from its first record on "
                + "(topic.recreation.policy=continue; counted in topic-recreations-total)", what);
        long heldBefore = state.sequencer.heldBytes();
        state.sequencer.clear();
        heldBytes -= heldBefore;
        PartitionState next = new PartitionState(new PartitionSequencer<>(-1L, this::onGap),
                current.replacedBy(batch.topicId()));
        partitions.put(tp, next);
        return next;
    }

    /**
     * WARN (at most one per 10 s) that a partition whose records were written without a topic id
     * (progress stored by a build before ids were carried) takes the first id that arrives as theirs.
     * Nothing tells whether the topic was deleted and recreated in between (docs/guarantees.md,
     * "adopted topic id").
     */
    private void warnAdopted(TopicPartition tp, long lastWritten, RecordBatch batch) {
        long notLogged = adoptionWarnings.admit();
        if (notLogged != WarningThrottle.QUIET) {
            log.warn("Partition {} was written up to origin offset {} without a topic id (stored by an older build); "
                    + "its records are taken for those of topic id {}, the first id that arrived. Had source topic {} "
                    + "been deleted and recreated since that offset was written, the new topic's records up to it would "
                    + "be taken for duplicates: see docs/guarantees.md for the check{}", tp, lastWritten,
                    batch.topicId(), tp.topic(), notLogged == 0 ? "" : " (" + notLogged + " more partitions since the "
                    + "last such warning)");
        }
    }

    /**
     * A gap the source could not vouch for, before the batch that reveals it is applied: counted and
     * logged always; with {@link GapPolicy#FAIL} the batch is refused by failing the task (it is
     * not acknowledged, so the source sends it again to the next task instance).
     */
    private void onGap(String topic, int partition, long from, long to) {
        long offsets = to - from + 1;
        metrics.gap(new TopicPartition(topic, partition), offsets);
        String what = "Origin offsets " + from + ".." + to + " of " + topic + "-" + partition + " (" + offsets
                + " offsets) were never written here and the source cannot vouch that they held no records: they "
                + "were deleted at the source before they were replicated (retention, deleteRecords), or the "
                + "source connector's consumer offsets were reset past them";
        if (settings.gapPolicy() == GapPolicy.ACCEPT) {
            log.warn("{}. Continuing after them, as offset.gap.policy=accept asks (counted in offset-gaps-total)",
                    what);
            return;
        }
        log.error("{}. Failing the task (offset.gap.policy=fail)", what);
        throw new OffsetGapException(what + ". Nothing after them is written until the gap is accepted: set "
                + "offset.gap.policy=accept on the destination-site connector to continue.");
    }

    private void applyMetadata(Upstream from, TopicMetadataFrame metadata) {
        if (closed) {
            return;
        }
        try {
            if (isAllowed(metadata.topic())) {
                translator.accept(metadata);
                topics.apply(withoutSchemas(metadata));
            }
            send(from, AckFrame.ok(metadata));
        } catch (DestinationTopics.PartitionLimitException e) {
            metrics.refused();
            log.error("Metadata of topic {} refused: {}", metadata.topic(), e.getMessage());
            send(from, AckFrame.nack(metadata, AckReason.NOT_AUTHORIZED, e.getMessage()));
        } catch (DestinationTopics.StaleMetadataException e) {
            // Superseded: the destination holds a newer description, which is what the source wants.
            // Too old (a replay, or clocks apart): refused retriably, the source describes the topic afresh.
            metrics.staleMetadata();
            log.debug("Topic metadata from {}: {}", from.name(), e.getMessage());
            boolean superseded = e.staleness() == MetadataGenerations.Staleness.SUPERSEDED;
            send(from, superseded ? AckFrame.ok(metadata) : AckFrame.nack(metadata, AckReason.TIMEOUT, e.getMessage()));
        } catch (DestinationTopics.CreationLimitException e) {
            metrics.topicCreationRefused();
            long notLogged = creationWarnings.admit();
            if (notLogged != WarningThrottle.QUIET) {
                log.error("Metadata of topic {} refused: {} ({} more refused since the last such message)",
                        metadata.topic(), e.getMessage(), notLogged);
            }
            send(from, AckFrame.nack(metadata, AckReason.NOT_AUTHORIZED, e.getMessage()));
        } catch (Exception e) {
            log.warn("Cannot apply metadata of topic {}: {}", metadata.topic(), e.toString());
            send(from, AckFrame.nack(metadata, AckReason.WRITE_FAILED, e.toString()));
        }
    }

    /** The metadata without the schemas shipped in its configs: what applies to the topic. */
    private static TopicMetadataFrame withoutSchemas(TopicMetadataFrame metadata) {
        if (metadata.configs().keySet().stream().noneMatch(ShippedSchema::isSchemaKey)) {
            return metadata;
        }
        return metadata.withConfigs(ShippedSchema.topicConfigs(metadata.configs()));
    }

    /**
     * Connect reports a record written, with the topic id its stored progress names (null when
     * unknown). With exactly-once this follows the transaction commit, so the record is durable; with
     * at-least-once it is only the producer's acknowledgement, and durability waits for
     * {@link #onOffsetsFlushed}. A record of an incarnation the partition has left is ignored.
     */
    public void onWritten(String originTopic, int partition, long offset, Object topicId) {
        if (settings.durability() == Durability.ON_RECORD_COMMIT) {
            makeDurable(new TopicPartition(originTopic, partition), offset, topicId);
        }
    }

    /**
     * Connect finished an offset flush (at-least-once): reads the stored progress of every partition
     * with acknowledgements waiting and releases those it covers. Blocks for one read of the offset
     * store; a failed read leaves the acknowledgements waiting for the next flush.
     */
    public void onOffsetsFlushed() {
        if (settings.durability() == Durability.ON_RECORD_COMMIT || closed) {
            return;
        }
        List<TopicPartition> waiting = new ArrayList<>();
        synchronized (lock) {
            partitions.forEach((tp, state) -> {
                if (state.sequencer.pendingAcks() > 0) {
                    waiting.add(tp);
                }
            });
        }
        if (waiting.isEmpty()) {
            return;
        }
        Map<TopicPartition, Progress> stored;
        try {
            stored = progress.progress(waiting);
        } catch (RuntimeException e) {
            log.warn("Cannot read the stored progress after an offset flush; acknowledgements wait for the next: {}",
                    e.toString());
            return;
        }
        stored.forEach((tp, p) -> makeDurable(tp, p.lastWritten(),
                Uuid.ZERO_UUID.equals(p.topicId()) ? null : p.topicId().toString()));
    }

    private void makeDurable(TopicPartition tp, long offset, Object topicId) {
        List<AckTarget> due;
        synchronized (lock) {
            PartitionState state = partitions.get(tp);
            if (state == null || !state.incarnation.matches(topicId)) {
                return;
            }
            due = state.sequencer.onDurable(offset);
        }
        due.forEach(target -> send(target.upstream(), target.ack()));
    }

    private long heldBytes() {
        synchronized (lock) {
            return heldBytes;
        }
    }

    public long bufferedBytes() {
        return queuedBytes.get() + heldBytes();
    }

    @Override
    public void close() {
        closed = true;
        Inbound in;
        while ((in = inbound.poll()) != null) {
            ReferenceCountUtil.release(in.frame());
        }
        synchronized (lock) {
            partitions.values().forEach(state -> state.sequencer.clear());
            partitions.clear();
            heldBytes = 0;
        }
        decoder.close(); // a poll still decoding fails with IllegalStateException, never a corrupt-batch answer
    }
}
