package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.delivery.InFlightWindow;
import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.BatchPolicy;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine of a source-site task, free of Kafka Connect types: batches records per partition,
 * sends the batches to relays, re-sends what is not acknowledged, and tells which consumer offsets
 * may be committed. It makes its parts and only wires them; a batch walks through them in one
 * direction:
 *
 * <pre>
 *  appendAll ... OpenBatches (open batches per partition; the BatchPolicy's caps)
 *      sealed ─▶ SignedFrames (encoded, framed and signed once) ─▶ SendWindow (in order, within the
 *                policy's window) ─▶ RelayChoice (a ready relay, preferred tier first)
 *      end of the put ─▶ SendingPass: the batches each relay got, as BATCHES frames ─▶ Relay
 *  tick ........ SendWindow.sendDue (re-sends), lingered batches, then their frames; RttSampler, heartbeats
 *  Relay.Inbound ─▶ AnswerPath: ACK frees the window (offsets committable), NACK re-sends,
 *                   final refusal ─▶ SkipMarkers, metadata answer ─▶ MetadataInFlight's listener
 * </pre>
 *
 * <p>Frames: what one {@code put}, one tick or one skip sends to one relay leaves at its end as
 * BATCHES frames of up to {@link SenderSettings#frameMaxPartitions()} partitions (a batch alone as
 * its BATCH frame), so at many partitions the per-frame costs of the relays, the destination and
 * this task are paid per frame, not per partition ({@link SendWindow}, {@link SendingPass}).
 * Heartbeats and topic metadata go as frames of their own.
 *
 * <p>Guarantees: a partition's committable offset never passes a record the destination has not
 * acknowledged as durably written ({@link InFlightWindow}); every unacknowledged batch is re-sent
 * after a NACK (after {@code retryBackoff}), a lost relay connection (at once, on another relay) or
 * the ack timeout; memory held (open and unacknowledged batches) is bounded by
 * {@code maxBufferedBytes} through {@link #shouldPause()}, which the task turns into paused
 * partitions. Refused batches: {@link SkipMarkers}. Integrity: {@link SenderIntegrity}, {@link AnswerPath}.
 *
 * <p>Wiring: the sender opens its relays ({@link Relay.Opener}), handing them itself as their
 * {@link Relay.Inbound}; what it tells goes to {@link SenderEvents} (the metrics), which never call
 * back. Thread-safety: every method locks the sender; relay callbacks arrive on Netty threads,
 * records on the Connect task thread.
 */
public final class ReplicationSender implements AutoCloseable, Relay.Inbound {

    private static final Logger log = LoggerFactory.getLogger(ReplicationSender.class);

    private final SenderSettings settings;
    private final BatchPolicy policy;
    private final LongSupplier nanoTime;
    private final SenderEvents events;
    private final OpenBatches batches;
    private final SignedFrames frames;
    private final RelayChoice relays;
    private final SendWindow window;
    private final SkipMarkers skipMarkers;
    private final MetadataInFlight metadata = new MetadataInFlight();
    private final HeartbeatSchedule heartbeats;
    private final AnswerPath answers;
    private final RttSampler rtt;
    private boolean closed;

    /**
     * @param relays opens the relays, which hand their answers to this sender; they may not do so
     *     before it is made (their connections start later)
     */
    public ReplicationSender(SenderSettings settings, Relay.Opener relays, BatchPolicy policy, LongSupplier nanoTime,
                             ByteBufAllocator alloc, SenderEvents events) {
        this.settings = settings;
        this.policy = policy;
        this.nanoTime = nanoTime;
        this.events = events;
        this.frames = new SignedFrames(settings, alloc, nanoTime);
        this.relays = new RelayChoice(relays.open(this));
        this.window = new SendWindow(settings, this.relays, frames, policy, events);
        this.skipMarkers = new SkipMarkers(settings.skipRefused(), window, frames, events);
        this.heartbeats = new HeartbeatSchedule(settings.heartbeatInterval(), settings.ackTimeout());
        this.answers = new AnswerPath(settings, window, skipMarkers, metadata, heartbeats, policy, events);
        this.rtt = new RttSampler(this.relays.relays(), policy);
        this.batches = new OpenBatches(policy, events, this::seal);
    }

    /** With relays made already, whose answers reach {@link #onFrame} some other way (tests). */
    public ReplicationSender(SenderSettings settings, List<? extends Relay> relays, BatchPolicy policy,
                             LongSupplier nanoTime, ByteBufAllocator alloc, SenderEvents events) {
        this(settings, inbound -> relays, policy, nanoTime, alloc, events);
    }

    public synchronized void assign(Collection<TopicPartition> partitions) {
        batches.assign(partitions);
        partitions.forEach(heartbeats::forget);
    }

    /**
     * The origin topic id (incarnation) of the partition's records from now on. When the partition
     * had another id, the topic was deleted and recreated: the old incarnation's open and unacknowledged
     * batches are dropped (its records are gone from the source, and offsets of the new incarnation
     * start again, so neither its chain nor its commit position may carry over) and the partition
     * starts a new chain. Returns the records dropped so, or 0.
     */
    public synchronized long incarnation(TopicPartition partition, Uuid topicId) {
        Uuid current = batches.topicId(partition);
        long dropped = 0;
        if (current != null && !current.equals(topicId)) {
            dropped = window.unackedRecords(partition);
            revoke(List.of(partition));
            assign(List.of(partition));
        }
        batches.topicId(partition, topicId);
        return dropped;
    }

    /** The topic id the partition's batches carry now, or null when none was given since its assignment. */
    public synchronized Uuid incarnation(TopicPartition partition) {
        return batches.topicId(partition);
    }

    /** Forgets revoked partitions: open batches are dropped, in-flight ones released (they will be re-read). */
    public synchronized void revoke(Collection<TopicPartition> partitions) {
        batches.revoke(partitions);
        partitions.forEach(heartbeats::forget);
        window.revoke(partitions);
    }

    /** The most key, value and header bytes one record may carry ({@link RelayChoice#maxRecordBytes()}). */
    public long maxRecordBytes() {
        return relays.maxRecordBytes();
    }

    /** Adds one record; sends the batch it closes, if any. */
    public synchronized void append(TopicPartition partition, ReplicatedRecord record) {
        appendAll(List.of(new IncomingRecord(partition, record)));
    }

    /**
     * Adds the records of one {@code put} to their partitions' open batches ({@link OpenBatches#append}),
     * sealing the batches that reach their caps; those leave together at the end
     * ({@link SendWindow#sendCollected}).
     */
    public synchronized void appendAll(List<IncomingRecord> records) {
        checkOpen();
        if (!records.isEmpty()) {
            long now = nanoTime.getAsLong();
            try {
                batches.append(records, now);
            } finally {
                window.sendCollected(now);
            }
        }
    }

    /**
     * Periodic work: (re-)sends what is due, closes batches that waited their linger, reports the
     * backlog, samples the relays' round trips, sends heartbeats. Called by the task's timer and
     * after each {@code put}.
     */
    public synchronized void tick() {
        if (closed) {
            return;
        }
        long now = nanoTime.getAsLong();
        rtt.sample(now);
        BatchDecision caps = policy.decision(now);
        // what waits goes first; then, unless it still waits for the window, what lingered long enough;
        // all of it in the same frames
        try {
            window.sendDue(now, caps);
            sealLingered(now, caps);
        } finally {
            window.sendCollected(now);
        }
        reportBacklog(now);
        if (heartbeats.lookNow(now)) {
            sendHeartbeats(now);
        }
    }

    /**
     * End-to-end heartbeats ({@code replication.heartbeat.interval.ms}): an empty batch
     * ({@link OpenBatches#heartbeat}) on every partition that made no batch for an interval and
     * has nothing open or unacknowledged, so that the destination hears from the source through the
     * relays, with the source's clock ({@code createdAtMillis}), signed like any batch, even while
     * the topics are idle, at most {@value HeartbeatSchedule#MAX_PER_SECOND} a second per task (the
     * partitions quiet the longest first). A heartbeat is not kept in the window and not told to the
     * batching policy; its answer only allows the partition's next one (or, unanswered, the ack
     * timeout does).
     */
    private void sendHeartbeats(long now) {
        for (TopicPartition tp : heartbeats.pick(batches.chainedPartitions(), now, tp -> !window.hasUnacked(tp))) {
            RecordBatch batch = batches.heartbeat(tp);
            Relay relay = batch == null ? null : relays.pick(null);
            if (relay == null) {
                continue;
            }
            BatchFrame frame = frames.batch(batch, CompressionCodec.NONE);
            long id = frame.header().batchId();
            if (relay.send(frame)) {
                heartbeats.sent(tp, id, now);
                events.heartbeatSent();
            }
        }
    }

    /**
     * Tells the policy what waits at the sender: records in open batches plus sealed batches the
     * window does not admit yet. A saturated path shows up here (the arrival rate the policy
     * measures is then the drain rate: Connect hands over records only as fast as they leave), so
     * this is what grows batches when the load exceeds what the current size carries.
     */
    private void reportBacklog(long now) {
        policy.onBacklog(batches.bufferedRecords() + window.queuedRecords(),
                batches.bufferedBytes() + window.queuedBytes(), now);
    }

    /**
     * A sealed batch: framed once (signed only if it leaves alone), told to the policy and the
     * metrics, and into the window.
     */
    private void seal(RecordBatch batch, TopicPartition partition, long oldestArrivalNanos, long now) {
        BatchFrame frame = frames.unsignedBatch(batch, settings.codec());
        long encodeNanos = frames.lastCostNanos();
        PendingBatch pending = new PendingBatch(frame, oldestArrivalNanos, batch.size());
        List<ReplicatedRecord> records = batch.records();
        long uncompressed = 0;
        for (int i = 0, n = records.size(); i < n; i++) {
            uncompressed += records.get(i).dataBytes();
        }
        policy.onBatchSent(batch.size(), uncompressed, pending.wireBytes, encodeNanos, now);
        events.batchEncoded(batch.size(), uncompressed, pending.wireBytes, encodeNanos);
        heartbeats.batchMade(partition, now);
        window.add(frame.header().batchId(), partition, batch.lastOffset(), pending, now);
    }

    /**
     * Seals the open batches that waited their linger, unless sealed batches already wait for the
     * in-flight window: a batch sealed then would only queue behind them, so sealing it gains its
     * records nothing, while a larger batch costs the path less per record (fewer frames, better
     * compression) and so drains the queue sooner. Behind a closed window, a partition with batches
     * unacknowledged keeps filling its open batch up to the caps, while one with none seals by its
     * linger (its batch passes the closed window: what the destination waits for). Without this, at
     * many partitions and a link near its capacity, every linger sealed a frame of a record or two
     * per partition into the queue and the queue grew without bound. As soon as the window admits
     * what waits (acknowledgements arrive, the next tick sends), open batches close by their linger
     * again.
     */
    private void sealLingered(long now, BatchDecision caps) {
        if (!window.full()) {
            batches.sealLingered(now, caps);
        } else {
            batches.sealLingered(now, caps, tp -> !window.hasUnacked(tp));
        }
    }

    /** Handles a frame from a relay (acknowledgements); releases it. */
    @Override
    public void onFrame(Relay from, Frame frame) {
        try {
            if (frame instanceof AckFrame ack) {
                MetadataInFlight.Answer answer;
                synchronized (this) {
                    answer = answers.onAck(from, ack, nanoTime.getAsLong());
                }
                if (answer != null) {
                    answer.tell(); // outside the lock: the listener is the metadata publisher, which may call back in
                }
            } else {
                log.debug("Ignoring {} from relay {}", frame.type(), from.name());
            }
        } finally {
            ReferenceCountUtil.release(frame);
        }
    }

    /** A relay connection was lost: what went through it is re-sent at once on another relay. */
    @Override
    public synchronized void onRelayLost(Relay relay) {
        window.relayLost(relay, nanoTime.getAsLong());
    }

    /**
     * The next batch refused for good and not taken yet (only with {@link SenderSettings#skipRefused()}),
     * decoded from the frame the sender kept for re-sends, or null ({@link SkipMarkers#next()}). One at
     * a time, so that at most one refused batch is held decoded; call {@link #skip} for it once its
     * records are reported. Task thread.
     */
    public synchronized RefusedBatch nextRefused() {
        return skipMarkers.next();
    }

    /**
     * Puts a skip marker in the refused batch's place and sends it ({@link SkipMarkers#skip}). Task
     * thread, after the records were reported: the partition commits past them only once the marker
     * is acknowledged.
     */
    public synchronized void skip(RefusedBatch refusal) {
        if (!closed) {
            long now = nanoTime.getAsLong();
            try {
                skipMarkers.skip(refusal, now);
            } finally {
                window.sendCollected(now);
            }
        }
    }

    /**
     * Sends topic metadata to a ready relay; false when none is ready. The destination's answer goes
     * to {@code answers}, which also hears when the destination lacks the topic's schemas; a frame
     * lost without an answer is covered by the publisher's periodic re-send.
     */
    public synchronized boolean sendMetadata(String topic, int partitionCount, Map<String, String> configs,
                                             MetadataInFlight.Listener answers) {
        return sendMetadata(topic, partitionCount, configs, 0, Uuid.ZERO_UUID, System.currentTimeMillis(), answers);
    }

    /**
     * The same, with the generation of the topic's schemas among the configs (reported with the
     * answer), the topic's id and the description's generation (see {@link TopicMetadataFrame#generation}).
     */
    public synchronized boolean sendMetadata(String topic, int partitionCount, Map<String, String> configs,
                                             long schemaGeneration, Uuid topicId, long generation,
                                             MetadataInFlight.Listener answers) {
        Relay relay = relays.pick(null);
        if (relay == null) {
            return false;
        }
        TopicMetadataFrame frame = frames.metadata(topic, partitionCount, configs, topicId, generation);
        long id = frame.routing().id();
        metadata.sending(frame, schemaGeneration, answers);
        if (!relay.send(frame)) {
            metadata.lost(id);
            return false;
        }
        return true;
    }

    /** The offset to commit for each partition that has acknowledged batches. */
    public synchronized Map<TopicPartition, Long> committableOffsets(Collection<TopicPartition> partitions) {
        Map<TopicPartition, Long> out = new HashMap<>();
        for (TopicPartition partition : partitions) {
            OptionalLong offset = window.committableOffset(partition);
            if (offset.isPresent()) {
                out.put(partition, offset.getAsLong());
            }
        }
        return out;
    }

    /** Whether memory held (open plus unacknowledged batches) reached the bound. */
    public synchronized boolean shouldPause() {
        return bufferedBytes() >= settings.maxBufferedBytes();
    }

    /** Whether memory held fell below half the bound (resume with hysteresis). */
    public synchronized boolean canResume() {
        return bufferedBytes() < settings.maxBufferedBytes() / 2;
    }

    public synchronized long bufferedBytes() {
        return window.bytes() + batches.bufferedBytes();
    }

    /** Bytes of the partition's batches sent and not acknowledged as durable (data at risk). */
    public synchronized long unackedBytes(TopicPartition partition) {
        return window.unackedBytes(partition);
    }

    /** The task's bytes not acknowledged as durable: unanswered batches plus open ones (data at risk). */
    public synchronized long atRiskBytes() {
        return window.unackedBytes() + batches.bufferedBytes();
    }

    /**
     * Whether nothing waits for the timer: no open batch (no linger running) and nothing sealed and
     * unanswered (no re-send or acknowledgement timeout to come). The task's timer then ticks slowly.
     */
    public synchronized boolean quiet() {
        return window.size() == 0 && batches.bufferedBytes() == 0;
    }

    public synchronized int inFlightBatches() {
        return window.size();
    }

    /** A failure that must stop the task (a batch refused for good, {@link SkipMarkers}), or null. */
    public RuntimeException fatalError() {
        return skipMarkers.fatalError();
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("sender is closed");
        }
        RuntimeException failure = skipMarkers.fatalError();
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        window.clear();
        batches.clear();
        frames.close();
        skipMarkers.close();
    }
}
