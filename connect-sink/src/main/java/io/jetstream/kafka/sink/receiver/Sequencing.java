package io.jetstream.kafka.sink.receiver;

import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.delivery.PartitionSequencer;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.integrity.WarningThrottle;
import io.jetstream.kafka.sink.metrics.SinkSiteMetrics;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver.Delivery;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver.GapPolicy;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver.Incarnation;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver.Progress;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver.ProgressStore;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver.RecreationPolicy;
import io.jetstream.kafka.sink.receiver.ReplicationReceiver.Upstream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiver's last stage: one {@link PartitionSequencer} per origin partition, made from the
 * partition's stored progress, with the incarnation (origin topic id) it orders. Applies admitted
 * batches in order, drops what was written already, holds batches that arrived ahead of their
 * predecessor (bounded by {@code bufferMaxBytes} in decoded bytes; past it a batch that cannot apply
 * now is refused OVERLOADED, one that applies now never is, so a full hold area always drains), and
 * sends each batch's acknowledgement once its records are durable ({@link #onDurable},
 * {@link #onProgressStored}). Gaps the source cannot vouch for and recreated origin topics follow
 * {@code offset.gap.policy} and {@code topic.recreation.policy}.
 *
 * <p>Threads: the task thread offers; durability is reported on other threads; all state is guarded
 * by one lock.
 */
final class Sequencing implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReplicationReceiver.class);

    /** An origin partition's sequencer and the incarnation of its topic that the sequencer orders. */
    private static final class PartitionState {
        final PartitionSequencer<AckTarget> sequencer;
        final Incarnation incarnation;

        PartitionState(PartitionSequencer<AckTarget> sequencer, Incarnation incarnation) {
            this.sequencer = sequencer;
            this.incarnation = incarnation;
        }
    }

    /**
     * Where and what to acknowledge. Equal when it answers the same batch (origin node and batch id) on
     * the same way back, so that a batch re-sent while its first copy waits is acknowledged once. Ways
     * back are equal by their own {@code equals}: a relay connection only to itself, a section of a
     * BATCHES frame to the same section of a copy of that frame on the same connection
     * ({@link FrameAnswer.Section}).
     */
    private record AckTarget(Upstream upstream, AckFrame ack) {

        @Override
        public boolean equals(Object o) {
            return o instanceof AckTarget other && upstream.equals(other.upstream)
                    && ack.batchId() == other.ack.batchId() && ack.originNodeId().equals(other.ack.originNodeId());
        }

        @Override
        public int hashCode() {
            return Objects.hash(upstream, ack.batchId(), ack.originNodeId());
        }
    }

    private final long bufferMaxBytes;
    private final GapPolicy gapPolicy;
    private final RecreationPolicy recreationPolicy;
    private final ProgressStore progress;
    private final SinkSiteMetrics metrics;
    private final Answers answers;
    private final Object lock = new Object();
    private final Map<TopicPartition, PartitionState> partitions = new HashMap<>();
    private final WarningThrottle incarnationWarnings = WarningThrottle.every(Duration.ofSeconds(10));
    private final WarningThrottle adoptionWarnings = WarningThrottle.every(Duration.ofSeconds(10));
    private long heldBytes;
    private volatile boolean closed;

    Sequencing(long bufferMaxBytes, GapPolicy gapPolicy, RecreationPolicy recreationPolicy, ProgressStore progress,
               SinkSiteMetrics metrics, Answers answers) {
        this.bufferMaxBytes = bufferMaxBytes;
        this.gapPolicy = gapPolicy;
        this.recreationPolicy = recreationPolicy;
        this.progress = progress;
        this.metrics = metrics;
        this.answers = answers;
    }

    /** Whether the batch would be applied now (its predecessor written), not held for re-ordering. */
    boolean appliesNow(RecordBatch batch) {
        synchronized (lock) {
            PartitionState state = partitions.get(new TopicPartition(batch.topic(), batch.partition()));
            return state == null || state.sequencer.isApplicable(batch);
        }
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
                answers.send(from, AckFrame.nack(header, AckReason.WRITE_FAILED, "progress unavailable: " + e));
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
    boolean refusedWithoutTopicId(Upstream from, BatchHeader header, RecordBatch batch) {
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
        answers.send(from, AckFrame.nack(header, AckReason.WRITE_FAILED, "no topic id: " + why));
        return true;
    }

    /**
     * Offers an admitted batch to its partition's sequencer, charged {@code bytes} while held; adds
     * the records now in order to {@code out} and sends the acknowledgements now due.
     */
    void offer(Upstream from, BatchHeader header, RecordBatch batch, long bytes, List<Delivery> out) {
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
            if (!sequencer.isApplicable(batch) && heldBytes + bytes > bufferMaxBytes) {
                metrics.overloaded();
                answers.send(from, AckFrame.nack(header, AckReason.OVERLOADED, "destination re-order buffer full"));
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
                    answers.warnSkipped(batch, "the records after them follow");
                }
            }
            for (ReplicatedRecord record : result.records()) {
                out.add(new Delivery(batch.topic(), batch.partition(), record, state.incarnation));
            }
            due = result.dueAcks();
        }
        due.forEach(target -> answers.send(target.upstream(), target.ack()));
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
                answers.acceptUnsequenced(from, header, batch, "it belongs to topic id " + batch.topicId()
                        + ", deleted and recreated (now " + current.topicId + ")");
                return null;
            }
            metrics.incarnationRefused();
            String since = batch.topicId().equals(current.previousTopicId) ? " as " + current.topicId
                    : ", and recreated again since (topic id now " + current.topicId + ")";
            answers.send(from, AckFrame.nack(header, AckReason.OBSOLETE_INCARNATION, "topic " + tp.topic() + " id "
                    + batch.topicId() + " was deleted and recreated" + since));
            return null;
        }
        metrics.recreation(tp);
        String what = "Source topic " + tp.topic() + " was deleted and recreated (topic id " + current.topicId
                + " -> " + batch.topicId() + "): records of the new topic arrive for partition " + tp.partition()
                + ", whose last record written here was offset " + state.sequencer.lastWritten() + " of the old one";
        if (recreationPolicy == RecreationPolicy.FAIL) {
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
        if (gapPolicy == GapPolicy.ACCEPT) {
            log.warn("{}. Continuing after them, as offset.gap.policy=accept asks (counted in offset-gaps-total)",
                    what);
            return;
        }
        log.error("{}. Failing the task (offset.gap.policy=fail)", what);
        throw new OffsetGapException(what + ". Nothing after them is written until the gap is accepted: set "
                + "offset.gap.policy=accept on the destination-site connector to continue.");
    }

    /**
     * The records of {@code tp} up to {@code offset} are durable, written with the topic id
     * {@code topicId} names (null when unknown): the batches they complete are acknowledged. Ignored
     * for an incarnation the partition has left.
     */
    void onDurable(TopicPartition tp, long offset, Object topicId) {
        List<AckTarget> due;
        synchronized (lock) {
            PartitionState state = partitions.get(tp);
            if (state == null || !state.incarnation.matches(topicId)) {
                return;
            }
            due = state.sequencer.onDurable(offset);
        }
        due.forEach(target -> answers.send(target.upstream(), target.ack()));
    }

    /**
     * Reads the stored progress of every partition with acknowledgements waiting and releases those
     * it covers. Blocks for one read of the offset store; a failed read leaves the acknowledgements
     * waiting for the next call.
     */
    void onProgressStored() {
        if (closed) {
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
        stored.forEach((tp, p) -> onDurable(tp, p.lastWritten(),
                Uuid.ZERO_UUID.equals(p.topicId()) ? null : p.topicId().toString()));
    }

    /** Bytes of batches held for re-ordering, charged their decoded size. */
    long heldBytes() {
        synchronized (lock) {
            return heldBytes;
        }
    }

    @Override
    public void close() {
        closed = true;
        synchronized (lock) {
            partitions.values().forEach(state -> state.sequencer.clear());
            partitions.clear();
            heldBytes = 0;
        }
    }
}
