package io.jetstream.kafka.sink.receiver;

import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.delivery.PartitionSequencer;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.sink.metrics.SinkSiteMetrics;
import io.jetstream.kafka.sink.naming.TopicNamingPolicy;
import io.jetstream.kafka.sink.topics.TopicProvisioner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * The engine of a destination-site task, free of Kafka Connect types: takes batches from the
 * egress relays, re-orders and de-duplicates them per origin partition, hands records over in
 * order, and acknowledges each batch once its records are durable. A batch walks three stages:
 * {@link Intake} queues it (Netty threads), {@link Admission} decides whether it may be written
 * (task thread), {@link Sequencing} puts it in order and holds its acknowledgement; every answer
 * leaves through {@link Answers}.
 *
 * <p>BATCHES frames (protocol version 3: the batches of several origin partitions under one header,
 * MAC and acknowledgement) are taken or refused whole by {@link Intake} (stream, MAC, queue bound),
 * then each section walks the stages as a batch of its own. The frame is answered once, when every
 * section is ({@link FrameAnswer}): OK when all are written or duplicates, else a NACK with the
 * reason of the first section not accepted; the sender re-sends what it must. A section that waits
 * (for its commit, or held for its predecessor) holds back the whole frame's answer.
 *
 * <p>Durability is what the task's delivery guarantee says ({@link DeliveryGuarantee}), and the
 * receiver acknowledges on either of its two signals: {@link #onDurable}, a record reported durable
 * (exactly-once: once the transaction that holds the records and their source offsets has committed
 * and its records are readable, {@code StableCommits}), or {@link #onProgressStored}, after which
 * the receiver reads the stored progress back and acknowledges up to it (at-least-once: Connect
 * decides on its own schedule which producer-acknowledged records an offset flush covers, so nothing
 * short of reading the store proves it; acknowledging earlier lets the source commit past records
 * whose progress is not stored, and a task restarted after a crash then resumes below a batch's
 * predecessor that no sender holds any more, and the partition stalls).
 *
 * <p>Memory: received batches wait in a queue, bounded by {@code bufferMaxBytes} in wire bytes, and
 * batches that arrived ahead of their predecessor wait, decoded, in the sequencers' hold areas,
 * bounded by {@code bufferMaxBytes} too in decoded bytes ({@link Admission#decodedBytes}). Once the
 * queue holds half its bound, the relay connection a batch came from is no longer read
 * ({@link Upstream#pauseReading()}) until {@link #poll} has drained the queue to a quarter: TCP then
 * holds the relay back, and the relay its upstreams, without a byte sent twice over the WAN. Only
 * what arrives while a pause takes effect can reach the bound; past it, and past the hold area's
 * bound, batches are refused with a retriable OVERLOADED acknowledgement and the sender re-sends
 * later (never unbounded buffering); a batch that applies at once is never refused for the hold
 * area, so a full hold area always drains.
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
 * anything in it is used (its topic, offsets, records), a BATCHES frame's (one for all its
 * sections) before any section is queued, topic metadata's before it is applied; a frame that fails
 * is refused with a NACK {@code NOT_AUTHORIZED}, never written, counted
 * ({@code integrity-failures-total}) and logged. Every acknowledgement this receiver sends is
 * signed; a section's answer is not sent, only its frame's.
 *
 * <p>Threads: {@link #onFrame} runs on Netty threads, {@link #poll} on the task thread,
 * {@link #onDurable} on the thread that proves durability, topic metadata on the metadata applier
 * given to the constructor; sequencer state is guarded by one lock.
 */
public final class ReplicationReceiver implements AutoCloseable {

    /**
     * Where acknowledgements go: the relay connection the batch came from (or, for a section of a
     * BATCHES frame, its frame's answer: {@link FrameAnswer.Section}).
     */
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

    /** What to do with a gap the source cannot vouch for ({@code offset.gap.policy}). */
    public enum GapPolicy { FAIL, ACCEPT }

    /** What to do when records of a recreated source topic arrive ({@code topic.recreation.policy}). */
    public enum RecreationPolicy { CONTINUE, FAIL }

    public record Settings(String streamId, Pattern topicsAllow, TopicNamingPolicy naming, String targetAlias,
                           long bufferMaxBytes, int maxRecordsPerPoll, GapPolicy gapPolicy,
                           RecreationPolicy recreationPolicy) {
        public Settings {
            Objects.requireNonNull(streamId, "streamId");
            Objects.requireNonNull(topicsAllow, "topicsAllow");
            Objects.requireNonNull(naming, "naming");
            Objects.requireNonNull(gapPolicy, "gapPolicy");
            Objects.requireNonNull(recreationPolicy, "recreationPolicy");
        }

        public Settings(String streamId, Pattern topicsAllow, TopicNamingPolicy naming, String targetAlias,
                        long bufferMaxBytes, int maxRecordsPerPoll, GapPolicy gapPolicy) {
            this(streamId, topicsAllow, naming, targetAlias, bufferMaxBytes, maxRecordsPerPoll, gapPolicy,
                    RecreationPolicy.CONTINUE);
        }

        public Settings(String streamId, Pattern topicsAllow, TopicNamingPolicy naming, String targetAlias,
                        long bufferMaxBytes, int maxRecordsPerPoll) {
            this(streamId, topicsAllow, naming, targetAlias, bufferMaxBytes, maxRecordsPerPoll, GapPolicy.FAIL);
        }
    }

    /** A record ready to be written, with its origin and the incarnation of the origin topic it belongs to. */
    public record Delivery(String originTopic, int partition, ReplicatedRecord record, Incarnation incarnation) {
    }

    private final Settings settings;
    private final SinkSiteMetrics metrics;
    private final Intake intake;
    private final Admission admission;
    private final Sequencing sequencing;

    /** For tests: topic metadata is applied on the thread that hands the frame over; integrity off. */
    public ReplicationReceiver(Settings settings, ProgressStore progress, TopicProvisioner topics,
                               SinkSiteMetrics metrics) {
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
    public ReplicationReceiver(Settings settings, ProgressStore progress, TopicProvisioner topics,
                               SinkSiteMetrics metrics, Executor metadataApplier, FrameIntegrity integrity) {
        this(settings, progress, topics, metrics, metadataApplier, integrity, Translator.NONE);
    }

    /** @param translator rewrites records for the destination site (schema ids) before they are ordered */
    public ReplicationReceiver(Settings settings, ProgressStore progress, TopicProvisioner topics,
                               SinkSiteMetrics metrics, Executor metadataApplier, FrameIntegrity integrity,
                               Translator translator) {
        Objects.requireNonNull(translator, "translator");
        Objects.requireNonNull(integrity, "integrity");
        this.settings = settings;
        this.metrics = metrics;
        Answers answers = new Answers(integrity, metrics);
        this.sequencing = new Sequencing(settings.bufferMaxBytes(), settings.gapPolicy(), settings.recreationPolicy(),
                progress, metrics, answers);
        this.admission = new Admission(settings, topics, metrics, integrity, translator, answers, sequencing);
        this.intake = new Intake(settings.streamId(), settings.bufferMaxBytes(), metrics, integrity, answers,
                metadataApplier, admission::applyMetadata);
    }

    /** Takes a frame from a relay (Netty thread); owns and eventually releases it. */
    public void onFrame(Upstream from, Frame frame) {
        intake.onFrame(from, frame);
    }

    /**
     * Returns records now in order (up to the per-poll maximum), waiting up to {@code timeout} for
     * the first batch. Empty when nothing arrived.
     */
    public List<Delivery> poll(Duration timeout) throws InterruptedException {
        String supersededBy = intake.superseded();
        if (supersededBy != null) {
            throw new TaskSupersededException("This destination-site task instance no longer receives: "
                    + supersededBy + ". A newer instance of the same task subscribed to its share. After a Connect "
                    + "restart or rebalance that instance is this task's successor; if no other instance of this "
                    + "task runs, someone else holds the subscriber token of stream " + settings.streamId()
                    + ": rotate it (streams.<id>.subscriber.token on the egress relays, stream.token here; "
                    + "docs/security.md).");
        }
        List<Delivery> out = new ArrayList<>();
        Intake.Inbound next = intake.next(timeout);
        while (next != null) {
            admission.admit(next, out);
            if (out.size() >= settings.maxRecordsPerPoll()) {
                break;
            }
            next = intake.next();
        }
        intake.resumeIfDrained();
        if (!out.isEmpty()) {
            metrics.recordsOut(out.size());
        }
        return out;
    }

    /**
     * The records of an origin partition up to {@code offset} are durable (exactly-once: their
     * transaction committed and they are readable), written with the topic id their stored progress
     * names ({@code topicId}, null when unknown): the batches they complete are acknowledged. A
     * record of an incarnation the partition has left is ignored.
     */
    public void onDurable(String originTopic, int partition, long offset, Object topicId) {
        sequencing.onDurable(new TopicPartition(originTopic, partition), offset, topicId);
    }

    /**
     * Connect stored the task's progress (at-least-once: an offset flush finished): reads the stored
     * progress of every partition with acknowledgements waiting and releases those it covers. Blocks
     * for one read of the offset store; a failed read leaves the acknowledgements waiting for the next
     * flush.
     */
    public void onProgressStored() {
        sequencing.onProgressStored();
    }

    public long bufferedBytes() {
        return intake.queuedBytes() + sequencing.heldBytes();
    }

    @Override
    public void close() {
        intake.close();
        sequencing.close();
        admission.close(); // after the queue is drained: a poll still decoding fails, never answers corrupt
    }
}
