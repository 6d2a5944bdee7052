package io.jetstream.kafka.source;

import io.jetstream.kafka.core.batch.BatchDecoder;
import io.jetstream.kafka.core.batch.BatchEncoder;
import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.EncodedBatch;
import io.jetstream.kafka.core.batch.RecordBatch;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import io.jetstream.kafka.core.delivery.BatchAccumulator;
import io.jetstream.kafka.core.delivery.InFlightWindow;
import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.BatchPolicy;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.BatchIdSequence;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.core.protocol.integrity.WarningThrottle;
import io.jetstream.kafka.schema.SchemaTranslator;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine of a source-site task, free of Kafka Connect types: batches records per partition,
 * sends each batch to a relay, re-sends what is not acknowledged, and tells which consumer offsets
 * may be committed.
 *
 * <p>Guarantees: a partition's committable offset never passes a record the destination has not
 * acknowledged as durably written ({@link InFlightWindow}); every unacknowledged batch is re-sent
 * after a NACK (after {@code retryBackoff}), a lost relay connection (at once, on another relay) or
 * the ack timeout; memory held (open and unacknowledged batches) is bounded by
 * {@code maxBufferedBytes} through {@link #shouldPause()}, which the task turns into paused
 * partitions.
 *
 * <p>Refused batches: a batch the destination refuses for good (a NACK re-sending cannot help)
 * stops the task ({@link #fatalError()}), unless {@link Settings#skipRefused()} (the connector's
 * {@code errors.tolerance=all}). Then the batch waits in its place in the window, not sent again,
 * until the task has taken it ({@link #nextRefused()}, decoded from the frame kept for re-sends:
 * no record is kept twice) and reported its records; {@link #skip} then puts a skip marker in its
 * place ({@link RecordBatch#skipMarker}): same predecessor and offsets, no records, so the batches
 * after it chain on as before and the destination moves past the skipped offsets. The partition
 * commits past them once the marker is acknowledged. A marker the destination refuses too stops
 * the task: nothing is skipped twice, and nothing loops.
 *
 * <p>Integrity ({@link SenderIntegrity}, {@code integrity.key}): every batch and topic metadata is
 * signed; an answer that would commit a batch or stop the task counts only with the destination's
 * valid MAC, and any other such answer is taken for a retriable NACK (the batch is sent again; it is
 * never committed or dropped on its word), counted ({@code unverified-acks-total}) and logged.
 *
 * <p>Thread-safety: every method locks the sender; relay callbacks arrive on Netty threads, records
 * on the Connect task thread.
 */
final class ReplicationSender implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReplicationSender.class);
    private static final int MAX_METADATA_IN_FLIGHT = 10_000;
    /** A partition counts as a stream filling batches while records arrived on it this recently. */
    static final long ACTIVE_STREAM_NANOS = 1_000_000_000L;

    /** A relay the sender can hand frames to. */
    interface Relay {
        String name();

        boolean isReady();

        /** Sends the frame, taking ownership; false (frame released) when the relay is not ready. */
        boolean send(Frame frame);

        /**
         * The largest batch payload the relay takes, or 0 while it is not known (the relay announces
         * its frame limit in its handshake).
         */
        int maxBatchPayloadBytes();

        /**
         * Whether the relay is in the preferred tier (e.g. on this worker's host, {@code relays.prefer.local}):
         * the others get batches only while no preferred relay is ready.
         */
        default boolean preferred() {
            return true;
        }
    }

    /** Told whether the destination applied a topic's metadata (ACK) or not (NACK). */
    interface MetadataListener {
        void onMetadataAcknowledged(String topic, int partitionCount, long schemaGeneration, boolean applied);
    }

    /**
     * Told that the destination refused a batch of {@code topic} for a schema it has not received
     * (a destination task that restarted since they were shipped): the topic's schemas go again.
     */
    interface SchemasMissingListener {
        void onSchemasMissing(String topic);
    }

    /** A metadata frame handed to a relay and not yet answered. */
    private record MetadataInFlight(String topic, int partitionCount, long schemaGeneration) {
    }

    /**
     * What the sender needs besides its collaborators. {@code skipRefused}: whether a batch the
     * destination refuses for good is skipped (Connect's {@code errors.tolerance=all}) rather than
     * stopping the task.
     */
    record Settings(String streamId, String nodeId, String destination, CompressionCodec codec,
                    Duration ackTimeout, Duration retryBackoff, long maxBufferedBytes, SenderIntegrity integrity,
                    Duration heartbeatInterval, boolean skipRefused) {
        Settings {
            Objects.requireNonNull(streamId, "streamId");
            Objects.requireNonNull(nodeId, "nodeId");
            Objects.requireNonNull(destination, "destination");
            Objects.requireNonNull(codec, "codec");
            Objects.requireNonNull(integrity, "integrity");
            Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
        }

        /** A refused batch stops the task. */
        Settings(String streamId, String nodeId, String destination, CompressionCodec codec, Duration ackTimeout,
                 Duration retryBackoff, long maxBufferedBytes, SenderIntegrity integrity, Duration heartbeatInterval) {
            this(streamId, nodeId, destination, codec, ackTimeout, retryBackoff, maxBufferedBytes, integrity,
                    heartbeatInterval, false);
        }

        /** The same settings, skipping refused batches or not. */
        Settings skippingRefused(boolean skip) {
            return new Settings(streamId, nodeId, destination, codec, ackTimeout, retryBackoff, maxBufferedBytes,
                    integrity, heartbeatInterval, skip);
        }

        /** Without end-to-end heartbeats. */
        Settings(String streamId, String nodeId, String destination, CompressionCodec codec, Duration ackTimeout,
                 Duration retryBackoff, long maxBufferedBytes, SenderIntegrity integrity) {
            this(streamId, nodeId, destination, codec, ackTimeout, retryBackoff, maxBufferedBytes, integrity,
                    Duration.ZERO);
        }

        /** Without end-to-end integrity. */
        Settings(String streamId, String nodeId, String destination, CompressionCodec codec, Duration ackTimeout,
                 Duration retryBackoff, long maxBufferedBytes) {
            this(streamId, nodeId, destination, codec, ackTimeout, retryBackoff, maxBufferedBytes,
                    SenderIntegrity.OFF);
        }
    }

    /**
     * A batch the destination refused for good, taken by the task to report its records
     * ({@link #nextRefused()}) before it is skipped ({@link #skip}).
     *
     * @param batch the refused batch, decoded from the frame the sender kept
     * @param reason the destination's reason
     * @param message the destination's message
     */
    record Refused(long batchId, RecordBatch batch, AckReason reason, String message) {
        TopicPartition partition() {
            return new TopicPartition(batch.topic(), batch.partition());
        }
    }

    /** A batch in the window: its frame plus what the policy and the re-send logic need. */
    private static final class Pending {
        final BatchFrame frame;
        final long oldestArrivalNanos;
        final long wireBytes;
        final int records;
        Relay via;
        boolean onWire;
        /** The destination's final refusal, while the batch waits to be skipped; else null. */
        AckFrame refusal;
        /** For a skip marker: what the skipped batch was and why it was refused; else null. */
        String skips;

        Pending(BatchFrame frame, long oldestArrivalNanos, long wireBytes, int records) {
            this.frame = frame;
            this.oldestArrivalNanos = oldestArrivalNanos;
            this.wireBytes = wireBytes;
            this.records = records;
        }
    }

    private final Settings settings;
    private final List<Relay> relays;
    private final BatchPolicy policy;
    private final LongSupplier nanoTime;
    private final ByteBufAllocator alloc;
    private final SourceSiteMetrics metrics;
    private final BatchAccumulator accumulator = new BatchAccumulator();
    private final BatchEncoder encoder = new BatchEncoder();
    /** Reads back a refused batch's records from its frame (task thread, under the lock). */
    private final BatchDecoder decoder = new BatchDecoder();
    /** Ids of refused batches the task has not taken yet; each is an entry of the window. */
    private final ArrayDeque<Long> refused = new ArrayDeque<>();
    private final BatchIdSequence ids = BatchIdSequence.withRandomEpoch();
    private final InFlightWindow<Pending> window = new InFlightWindow<>(p -> ReferenceCountUtil.release(p.frame));
    private final Map<TopicPartition, Long> oldestArrival = new HashMap<>();
    /** When records last arrived on each partition, for the policy's count of streams. */
    private final Map<TopicPartition, Long> lastArrival = new HashMap<>();
    private final AtomicReference<RuntimeException> fatal = new AtomicReference<>();
    private final Map<Long, MetadataInFlight> metadataInFlight = new HashMap<>();
    private final WarningThrottle unverifiedWarnings = WarningThrottle.every(Duration.ofSeconds(10));
    private final HeartbeatSchedule heartbeats;
    private MetadataListener metadataListener = (topic, partitions, generation, applied) -> { };
    private SchemasMissingListener schemasMissing = topic -> { };
    private int nextRelay;
    private int onWireBatches;
    private long onWireBytes;
    private long onWireRecords;
    /** Whether a sealed batch found the window closed since the last tick's sending pass began. */
    private boolean windowFull;
    private boolean closed;

    ReplicationSender(Settings settings, List<Relay> relays, BatchPolicy policy, LongSupplier nanoTime,
                      ByteBufAllocator alloc, SourceSiteMetrics metrics) {
        this.settings = settings;
        this.relays = List.copyOf(relays);
        this.policy = policy;
        this.nanoTime = nanoTime;
        this.alloc = alloc;
        this.metrics = metrics;
        this.heartbeats = new HeartbeatSchedule(settings.heartbeatInterval(), settings.ackTimeout());
        if (this.relays.isEmpty()) {
            throw new IllegalArgumentException("at least one relay is needed");
        }
    }

    synchronized void assign(Collection<TopicPartition> partitions) {
        accumulator.assign(partitions);
        partitions.forEach(oldestArrival::remove);
        partitions.forEach(heartbeats::forget);
    }

    /**
     * The origin topic id (incarnation) of the partition's records from now on. When the partition
     * had another id, the topic was deleted and recreated: the old incarnation's open and unacknowledged
     * batches are dropped (its records are gone from the source, and offsets of the new incarnation
     * start again, so neither its chain nor its commit position may carry over) and the partition
     * starts a new chain. Returns the records dropped so, or 0.
     */
    synchronized long incarnation(TopicPartition partition, Uuid topicId) {
        Uuid current = accumulator.topicId(partition);
        long dropped = 0;
        if (current != null && !current.equals(topicId)) {
            dropped = window.entries(partition).stream().filter(e -> !e.acked())
                    .mapToLong(InFlightWindow.Entry::records).sum();
            revoke(List.of(partition));
            assign(List.of(partition));
        }
        accumulator.topicId(partition, topicId);
        return dropped;
    }

    /** The topic id the partition's batches carry now, or null when none was given since its assignment. */
    synchronized Uuid incarnation(TopicPartition partition) {
        return accumulator.topicId(partition);
    }

    /** Forgets revoked partitions: open batches are dropped, in-flight ones released (they will be re-read). */
    synchronized void revoke(Collection<TopicPartition> partitions) {
        accumulator.revoke(partitions);
        partitions.forEach(oldestArrival::remove);
        partitions.forEach(lastArrival::remove);
        partitions.forEach(heartbeats::forget);
        for (TopicPartition partition : partitions) {
            // count what leaves the wire so the policy's window stays right
            window.entries(partition).stream()
                    .filter(e -> e.payload().onWire)
                    .forEach(e -> leaveWire(e.payload()));
        }
        window.revoke(partitions);
    }

    /**
     * The most key, value and header bytes one record may carry: a batch of that record alone must
     * fit the smallest payload any relay takes, with {@link #RECORD_ENCODING_ALLOWANCE} for the
     * record's framing (offset, timestamp, lengths, header keys in UTF-8) and no help from compression.
     * Relays whose limit is not known yet are left out (nothing is sent to them before their
     * handshake); {@link #RECORD_LIMIT_UNKNOWN} while no relay's limit is known.
     */
    long maxRecordBytes() {
        int smallest = Integer.MAX_VALUE;
        for (Relay relay : relays) {
            int limit = relay.maxBatchPayloadBytes();
            if (limit > 0) {
                smallest = Math.min(smallest, limit);
            }
        }
        if (smallest == Integer.MAX_VALUE) {
            return RECORD_LIMIT_UNKNOWN;
        }
        return Math.max(0, smallest - RECORD_ENCODING_ALLOWANCE);
    }

    /** {@link #maxRecordBytes()} before any relay has completed its handshake. */
    static final long RECORD_LIMIT_UNKNOWN = -1;

    /** Room left in a batch payload for one record's framing: see {@link #maxRecordBytes()}. */
    static final int RECORD_ENCODING_ALLOWANCE = 64 * 1024;

    /** Adds one record; sends the batch it closes, if any. */
    synchronized void append(TopicPartition partition, ReplicatedRecord record) {
        appendAll(List.of(new Incoming(partition, record)));
    }

    /**
     * A record handed over by the task, with its partition. A {@code coveredFrom} of 0 or more makes
     * the record start a batch that vouches for origin offsets from there only
     * ({@link BatchAccumulator#restartCoverage}); {@link #CONTIGUOUS} (the default) continues the
     * partition's batch. {@code dataBytes} is the record's {@link ReplicatedRecord#dataBytes()},
     * computed once by whoever made it (the task sizes each record for the oversize check) and used
     * for every cap and counter here.
     */
    record Incoming(TopicPartition partition, ReplicatedRecord record, long coveredFrom, int dataBytes) {
        static final long CONTIGUOUS = -1;

        Incoming(TopicPartition partition, ReplicatedRecord record, long coveredFrom) {
            this(partition, record, coveredFrom, record.dataBytes());
        }

        Incoming(TopicPartition partition, ReplicatedRecord record) {
            this(partition, record, CONTIGUOUS);
        }
    }

    /**
     * Adds the records of one {@code put} to their partitions' open batches, sealing and sending a
     * batch that reaches its caps. The policy and the metrics hear of the records once per call (they
     * all arrived at the same moment), not once per record: per-record bookkeeping was a visible share
     * of the task's CPU. Records of one call arrived together, so they may fill batches up to the
     * policy's caps for records arriving together ({@link BatchDecision#maxRecordsFor}): a burst or a
     * backlog leaves in batches sized for it even while the caps in force were chosen for a trickle.
     */
    synchronized void appendAll(List<Incoming> records) {
        checkOpen();
        if (records.isEmpty()) {
            return;
        }
        long now = nanoTime.getAsLong();
        long bytes = 0;
        TopicPartition previous = null;
        for (int i = 0, n = records.size(); i < n; i++) {
            Incoming in = records.get(i);
            bytes += in.dataBytes();
            if (!in.partition().equals(previous)) { // a put's records come in runs of one partition
                previous = in.partition();
                lastArrival.put(previous, now);
            }
        }
        policy.onActiveStreams(activeStreams(now), now);
        policy.onRecordsArrived(records.size(), bytes, now);
        metrics.recordsIn(records.size(), bytes);
        BatchDecision caps = policy.decision(now);
        boolean gathering = gathersBehindWindow(caps);
        // records of one put arrived together: they may share batches beyond the caps of a trickle;
        // while sealed batches wait for the window, so may the records of every put
        int maxRecords = gathering ? caps.togetherMaxRecords() : caps.maxRecordsFor(records.size());
        int maxBytes = gathering ? caps.togetherMaxBytes() : caps.maxBytesFor(bytes);
        for (int i = 0, n = records.size(); i < n; i++) {
            Incoming in = records.get(i);
            if (in.coveredFrom() != Incoming.CONTIGUOUS) {
                RecordBatch before = accumulator.restartCoverage(in.partition(), in.coveredFrom());
                if (before != null) {
                    enqueue(before, oldestArrival.remove(in.partition()), now);
                }
            }
            RecordBatch full = accumulator.closeIfNoRoom(in.partition(), in.dataBytes(), maxBytes);
            if (full != null) {
                enqueue(full, oldestArrival.remove(in.partition()), now);
            }
            oldestArrival.putIfAbsent(in.partition(), now);
            RecordBatch closed = accumulator.append(in.partition(), in.record(), in.dataBytes(), now, maxRecords,
                    maxBytes);
            if (closed != null) {
                enqueue(closed, oldestArrival.remove(in.partition()), now);
            }
        }
        if (!gathering && (maxRecords > caps.maxRecords() || maxBytes > caps.maxBytes())) {
            // what the put filled beyond the trickle's caps leaves now, not after its linger
            for (RecordBatch batch : accumulator.closeFull(caps.maxRecords(), caps.maxBytes())) {
                enqueue(batch, oldestArrival.remove(new TopicPartition(batch.topic(), batch.partition())), now);
            }
        }
    }

    /** Partitions records arrived on within {@link #ACTIVE_STREAM_NANOS}; forgets the others. */
    private int activeStreams(long now) {
        lastArrival.values().removeIf(at -> now - at > ACTIVE_STREAM_NANOS);
        return Math.max(1, lastArrival.size());
    }

    /**
     * Periodic work: closes batches that waited their linger, (re-)sends what is due, reports the
     * backlog. Called by the task's timer and after each {@code put}.
     */
    synchronized void tick() {
        if (closed) {
            return;
        }
        long now = nanoTime.getAsLong();
        BatchDecision caps = policy.decision(now);
        // what waits goes first; then, unless it still waits for the window, what lingered long enough
        windowFull = false;
        for (InFlightWindow.Entry<Pending> entry : window.due(now)) {
            Pending pending = entry.payload();
            if (pending.refusal != null) {
                continue; // refused for good: waits to be skipped, never sent again
            }
            if (pending.onWire) {
                // no acknowledgement within the timeout: the batch may be lost with a relay
                metrics.timeout();
                policy.onBatchFailed(entry.records(), pending.wireBytes, entry.sentAtNanos(), now);
                leaveWire(pending);
            }
            if (windowFull && !window.isOldestUnacked(entry)) {
                continue; // the window is closed: only a partition's oldest batch passes (cheap check first)
            }
            if (waitsForPredecessor(entry)) {
                continue; // an older batch of the partition waits for its retry: it goes first
            }
            // a closed window still lets through what a partition waits for: keep scanning
            if (trySend(entry, now, caps) == Sent.NO_RELAY) {
                break; // keep the order, try again next tick
            }
        }
        if (!gathersBehindWindow(caps)) {
            for (RecordBatch batch : accumulator.drainExpired(now, caps.linger().toNanos())) {
                TopicPartition tp = new TopicPartition(batch.topic(), batch.partition());
                enqueue(batch, oldestArrival.remove(tp), now);
            }
        }
        reportBacklog(now);
        if (heartbeats.lookNow(now)) {
            sendHeartbeats(now);
        }
    }

    /**
     * End-to-end heartbeats ({@code replication.heartbeat.interval.ms}): an empty batch
     * ({@link BatchAccumulator#heartbeat}) on every partition that made no batch for an interval and
     * has nothing open or unacknowledged, so that the destination hears from the source through the
     * relays, with the source's clock ({@code createdAtMillis}), signed like any batch, even while
     * the topics are idle, at most {@value HeartbeatSchedule#MAX_PER_SECOND} a second per task (the
     * partitions quiet the longest first). A heartbeat is not kept in the window and not told to the batching policy;
     * its answer only allows the partition's next one (or, unanswered, the ack timeout does).
     */
    private void sendHeartbeats(long now) {
        for (TopicPartition tp : heartbeats.pick(accumulator.chainedPartitions(), now, tp -> !hasUnacked(tp))) {
            RecordBatch batch = accumulator.heartbeat(tp);
            Relay relay = batch == null ? null : pickRelay(null);
            if (relay == null) {
                continue;
            }
            long id = ids.next();
            RoutingHeader routing = RoutingHeader.unrouted(settings.streamId(), id, settings.nodeId(),
                    settings.destination());
            EncodedBatch encoded = encoder.encode(batch, CompressionCodec.NONE);
            BatchFrame frame = settings.integrity().sign(BatchFrame.copyOf(routing, encoded, System.currentTimeMillis(),
                    alloc));
            if (relay.send(frame)) {
                heartbeats.sent(tp, id, now);
                metrics.heartbeatSent();
            }
        }
    }

    private boolean hasUnacked(TopicPartition tp) {
        return window.hasUnacked(tp);
    }

    /**
     * Tells the policy what waits at the sender: records in open batches plus sealed batches the
     * window does not admit yet. A saturated path shows up here (the arrival rate the policy
     * measures is then the drain rate: Connect hands over records only as fast as they leave), so
     * this is what grows batches when the load exceeds what the current size carries.
     */
    private void reportBacklog(long now) {
        long queuedRecords = window.unackedRecords() - onWireRecords;
        long queuedBytes = window.unackedBytes() - onWireBytes;
        policy.onBacklog(accumulator.bufferedRecords() + queuedRecords, accumulator.bufferedBytes() + queuedBytes,
                now);
    }

    private void enqueue(RecordBatch batch, Long oldestArrivalNanos, long now) {
        long encodeStart = nanoTime.getAsLong();
        EncodedBatch encoded = encoder.encode(batch, settings.codec());
        long encodeNanos = nanoTime.getAsLong() - encodeStart;
        long id = ids.next();
        RoutingHeader routing = RoutingHeader.unrouted(settings.streamId(), id, settings.nodeId(), settings.destination());
        BatchFrame unsigned = BatchFrame.copyOf(routing, encoded, System.currentTimeMillis(), alloc);
        long signStart = nanoTime.getAsLong();
        BatchFrame frame = settings.integrity().sign(unsigned);
        encodeNanos += nanoTime.getAsLong() - signStart; // the MAC is part of a batch's CPU cost
        long wireBytes = encoded.payloadSize() + 128L;
        long uncompressed = batch.records().stream().mapToLong(ReplicatedRecord::dataBytes).sum();
        policy.onBatchSent(batch.size(), uncompressed, wireBytes, encodeNanos, now);
        metrics.batchEncoded(batch.size(), uncompressed, wireBytes, encodeNanos);
        Pending pending = new Pending(frame, oldestArrivalNanos == null ? now : oldestArrivalNanos, wireBytes,
                batch.size());
        TopicPartition tp = new TopicPartition(batch.topic(), batch.partition());
        heartbeats.batchMade(tp, now);
        InFlightWindow.Entry<Pending> entry = window.add(id, tp, batch.lastOffset(), batch.size(), wireBytes, pending,
                now, now);
        if (!waitsForPredecessor(entry)) {
            trySend(entry, now, policy.decision(now));
        } // else it is due now and leaves with the next tick, after its predecessor
    }

    /**
     * Whether an older batch of the same partition is neither acknowledged nor on the wire (it waits
     * for a retry). Such a batch must be sent first: the destination holds every successor until its
     * predecessor arrives, so successors sent ahead only fill its re-order buffer.
     */
    private boolean waitsForPredecessor(InFlightWindow.Entry<Pending> entry) {
        return window.hasOlderUnacked(entry, older -> !older.onWire);
    }

    /** What became of an attempt to send. */
    private enum Sent { SENT, WINDOW_CLOSED, NO_RELAY }

    /**
     * Whether open batches keep gathering records past their linger and up to the caps for records
     * arriving together, because sealed batches already wait for the in-flight window: a batch sealed
     * now would only queue behind them, so sealing it gains its records nothing, while a larger batch
     * costs the path less per record (fewer frames, better compression) and so drains the queue
     * sooner. Only for a policy whose caps for records arriving together exceed its caps (the
     * adaptive one); fixed caps mean what they say. As soon as the window admits what waits
     * (acknowledgements arrive, the next tick sends), open batches close by their linger again.
     */
    private boolean gathersBehindWindow(BatchDecision caps) {
        return windowFull && caps.gathers();
    }

    /**
     * Sends an entry now if the policy's window admits it and a relay is ready. The oldest
     * unacknowledged batch of its partition passes even a full window: the destination holds every
     * successor until it arrives, so a window full of successors waiting for a re-sent predecessor
     * would otherwise stall the partition until their acknowledgement timeout. Its memory is
     * already counted, and there is at most one such batch per partition.
     */
    private Sent trySend(InFlightWindow.Entry<Pending> entry, long now, BatchDecision caps) {
        Pending pending = entry.payload();
        if (!caps.admits(onWireBatches, onWireBytes, pending.wireBytes) && !window.isOldestUnacked(entry)) {
            windowFull = true;
            return Sent.WINDOW_CLOSED;
        }
        Relay relay = pickRelay(pending.via);
        if (relay == null) {
            window.retryAt(entry, now + settings.retryBackoff().toNanos());
            return Sent.NO_RELAY;
        }
        if (!relay.send(pending.frame.retainedDuplicate())) {
            window.retryAt(entry, now + settings.retryBackoff().toNanos());
            return Sent.NO_RELAY;
        }
        boolean firstAttempt = pending.via == null;
        if (!firstAttempt) {
            metrics.resent(entry.records());
        }
        pending.via = relay;
        pending.onWire = true;
        onWireBatches++;
        onWireBytes += pending.wireBytes;
        onWireRecords += pending.records;
        window.resent(entry, now, now + settings.ackTimeout().toNanos());
        return Sent.SENT;
    }

    /**
     * A ready relay, round robin, avoiding {@code avoid} (the one that just failed) when another is
     * ready: a preferred relay ({@link Relay#preferred()}) while any is ready, else one of the others.
     */
    private Relay pickRelay(Relay avoid) {
        Relay relay = pickReady(true, avoid);
        if (relay == null) {
            relay = pickReady(false, avoid);
        }
        if (relay == null && avoid != null && avoid.isReady()) {
            relay = avoid;
        }
        return relay;
    }

    /** The next ready relay of one tier after the last one picked, other than {@code avoid}; null if none. */
    private Relay pickReady(boolean preferredTier, Relay avoid) {
        for (int i = 0; i < relays.size(); i++) {
            int index = (nextRelay + i) % relays.size();
            Relay relay = relays.get(index);
            if (relay.preferred() == preferredTier && relay != avoid && relay.isReady()) {
                nextRelay = (index + 1) % relays.size();
                return relay;
            }
        }
        return null;
    }

    private void leaveWire(Pending pending) {
        if (pending.onWire) {
            pending.onWire = false;
            onWireBatches--;
            onWireBytes -= pending.wireBytes;
            onWireRecords -= pending.records;
        }
    }

    /** Handles a frame from a relay (acknowledgements); releases it. */
    void onFrame(Relay from, Frame frame) {
        try {
            if (frame instanceof AckFrame ack) {
                onAck(from, ack);
            } else {
                log.debug("Ignoring {} from relay {}", frame.type(), from.name());
            }
        } finally {
            ReferenceCountUtil.release(frame);
        }
    }

    private void onAck(Relay from, AckFrame ack) {
        MetadataInFlight answered;
        boolean applied;
        synchronized (this) {
            if (!ack.originNodeId().equals(settings.nodeId())) {
                return;
            }
            if (!ack.isReceipt() && heartbeats.answered(ack.batchId())) {
                return; // a heartbeat's answer changes nothing else
            }
            if (ack.isReceipt()) {
                onBatchReceipt(ack);
                return;
            }
            answered = metadataInFlight.get(ack.batchId());
            if (answered == null) {
                onBatchAck(from, ack);
                return;
            }
            String distrust = settings.integrity().distrust(ack);
            if (distrust != null) {
                // Not applied as far as this sender knows (published again); the real answer still counts.
                unverified(from, ack, "topic metadata of " + answered.topic(), distrust, "it is published again");
                applied = false;
            } else {
                metadataInFlight.remove(ack.batchId());
                applied = ack.isOk();
            }
        }
        // outside the lock: the listener is the metadata publisher, which may call back in
        if (!applied) {
            log.debug("Metadata of topic {} not applied yet: {} {}", answered.topic(), ack.reason(), ack.message());
        }
        metadataListener.onMetadataAcknowledged(answered.topic(), answered.partitionCount(),
                answered.schemaGeneration(), applied);
    }

    /** The batch reached the egress relay; its answer is still to come. */
    private void onBatchReceipt(AckFrame receipt) {
        InFlightWindow.Entry<Pending> entry = window.get(receipt.batchId());
        if (entry == null || !entry.payload().onWire) {
            return; // answered meanwhile, or a receipt of an earlier attempt
        }
        Pending pending = entry.payload();
        policy.onBatchReceived(entry.records(), pending.wireBytes, entry.sentAtNanos(), nanoTime.getAsLong());
    }

    private void onBatchAck(Relay from, AckFrame ack) {
        long now = nanoTime.getAsLong();
        InFlightWindow.Entry<Pending> entry = window.get(ack.batchId());
        if (entry == null) {
            return; // late duplicate, or a revoked partition's batch
        }
        Pending pending = entry.payload();
        String distrust = settings.integrity().distrust(ack, pending.frame.header());
        if (distrust != null) {
            BatchHeader sent = pending.frame.header();
            unverified(from, ack, "batch " + ack.batchId() + " of " + sent.topic() + "-" + sent.partition() + " offsets "
                    + sent.firstOffset() + ".." + sent.lastOffset(), distrust, "the batch is sent again");
            retryLater(entry, false, now);
            return;
        }
        if (ack.isOk()) {
            if (window.ack(ack.batchId()) != null) {
                leaveWire(pending);
                if (pending.skips == null) { // a skip marker tells the policy and the metrics nothing
                    policy.onBatchAcked(entry.records(), pending.wireBytes, entry.sentAtNanos(), now,
                            pending.oldestArrivalNanos);
                    metrics.batchAcked(entry.records(), pending.wireBytes, now - pending.oldestArrivalNanos);
                }
            }
            return;
        }
        metrics.nack(ack.reason().name());
        if (!ack.reason().retriable()) {
            onRefused(entry, ack);
            return;
        }
        // A route or hop that failed: the ingress avoids it now, so try again soon on another one.
        // Anything else (no subscriber, destination overloaded or failing) backs off exponentially.
        boolean routeProblem = ack.reason() == AckReason.NEXT_HOP_UNREACHABLE || ack.reason() == AckReason.TIMEOUT;
        retryLater(entry, routeProblem, now);
        if (ack.reason() == AckReason.WRITE_FAILED && ack.message().startsWith(SchemaTranslator.MISSING_PREFIX)) {
            schemasMissing.onSchemasMissing(pending.frame.header().topic());
        }
    }

    /**
     * The destination refused a batch for good. A skip marker refused too, or any batch when refused
     * batches are not skipped, stops the task with a message naming the batch and the reason; else
     * the batch waits, never sent again, for the task to take it ({@link #nextRefused()}).
     */
    private void onRefused(InFlightWindow.Entry<Pending> entry, AckFrame ack) {
        Pending pending = entry.payload();
        if (pending.refusal != null) {
            return; // an answer to an earlier attempt: it was refused already
        }
        BatchHeader header = pending.frame.header();
        String partition = header.topic() + "-" + header.partition();
        if (pending.skips != null) {
            fatal.compareAndSet(null, new IllegalStateException("The destination refused for good " + pending.skips
                    + ", and then also the skip marker sent in its place (batch " + ack.batchId() + "): "
                    + ack.reason() + " " + ack.message() + ". The skipped records were reported to the dead letter "
                    + "queue, if the connector has one; nothing of " + partition + " from source offset "
                    + header.firstOffset() + " on was committed at the source. The task stops here (a destination "
                    + "that predates skip markers refuses them as malformed: upgrade the destination-site connector)"));
            return;
        }
        String what = "batch " + ack.batchId() + " of " + partition + " (source offsets " + header.firstOffset() + ".."
                + header.lastOffset() + ", " + entry.records() + " records): " + ack.reason() + " " + ack.message();
        if (!settings.skipRefused()) {
            fatal.compareAndSet(null, new IllegalStateException("The destination refused for good " + what
                    + ". Nothing of it or after it in that partition was committed at the source; the task stops here "
                    + "and stops again after a restart until the cause (see the destination-site task's log) is "
                    + "removed, or until errors.tolerance=all (with errors.deadletterqueue.topic.name) on this "
                    + "connector skips such batches"));
            return;
        }
        leaveWire(pending);
        pending.refusal = ack;
        window.retryAt(entry, nanoTime.getAsLong() + NEVER_NANOS);
        refused.addLast(entry.batchId());
    }

    /** A deadline no refused batch reaches: it is never sent again. */
    private static final long NEVER_NANOS = Long.MAX_VALUE / 4;

    /**
     * The next batch refused for good and not taken yet (only with {@link Settings#skipRefused()}),
     * decoded from the frame the sender kept for re-sends, or null. A batch since revoked, or
     * acknowledged after all (an answer to another copy), is passed over. One at a time, so that at
     * most one refused batch is held decoded; call {@link #skip} for it once its records are
     * reported. Task thread.
     */
    synchronized Refused nextRefused() {
        Long id;
        while ((id = refused.pollFirst()) != null) {
            InFlightWindow.Entry<Pending> entry = window.get(id);
            if (entry == null || entry.acked() || entry.payload().refusal == null) {
                continue;
            }
            Pending pending = entry.payload();
            RecordBatch batch = decoder.decode(pending.frame.encodedBatch());
            return new Refused(id, batch, pending.refusal.reason(), pending.refusal.message());
        }
        return null;
    }

    /**
     * Puts a skip marker in the refused batch's place and sends it (after any older batch of the
     * partition that waits for its retry, like any batch). Nothing happens when the batch left the
     * window meanwhile (its partition was revoked). Task thread, after the records were reported:
     * the partition commits past them only once the marker is acknowledged.
     */
    synchronized void skip(Refused refusal) {
        InFlightWindow.Entry<Pending> entry = window.get(refusal.batchId());
        if (closed || entry == null || entry.acked() || entry.payload().refusal == null) {
            return;
        }
        Pending refusedBatch = entry.payload();
        BatchHeader header = refusedBatch.frame.header();
        RecordBatch marker = RecordBatch.skipMarker(refusal.batch());
        long now = nanoTime.getAsLong();
        long id = ids.next();
        RoutingHeader routing = RoutingHeader.unrouted(settings.streamId(), id, settings.nodeId(), settings.destination());
        EncodedBatch encoded = encoder.encode(marker, CompressionCodec.NONE);
        BatchFrame frame = settings.integrity().sign(BatchFrame.copyOf(routing, encoded, System.currentTimeMillis(),
                alloc));
        Pending pending = new Pending(frame, refusedBatch.oldestArrivalNanos, encoded.payloadSize() + 128L, 0);
        pending.skips = "batch " + refusal.batchId() + " of " + header.topic() + "-" + header.partition()
                + " (source offsets " + header.firstOffset() + ".." + header.lastOffset() + ", " + entry.records()
                + " records: " + refusal.reason() + " " + refusal.message() + ")";
        metrics.refusedBatchSkipped(entry.records());
        InFlightWindow.Entry<Pending> replaced = window.replace(entry, id, marker.lastOffset(), 0, pending.wireBytes,
                pending, now, now);
        if (!waitsForPredecessor(replaced)) {
            trySend(replaced, now, policy.decision(now));
        } // else it is due now and leaves with the next tick, after its predecessor
    }

    /**
     * The batch's attempt failed in a way re-sending can help with: it goes again after the retry
     * backoff ({@code soon}) or a backoff that doubles with its attempts.
     */
    private void retryLater(InFlightWindow.Entry<Pending> entry, boolean soon, long now) {
        Pending pending = entry.payload();
        if (pending.onWire) {
            leaveWire(pending);
            policy.onBatchFailed(entry.records(), pending.wireBytes, entry.sentAtNanos(), now);
        }
        long delay = soon ? settings.retryBackoff().toNanos() : backoffNanos(entry.attempts());
        window.retryAt(entry, now + delay);
    }

    /** An answer that would commit or stop, without the destination's valid MAC: counted, logged (throttled). */
    private void unverified(Relay from, AckFrame ack, String what, String why, String consequence) {
        metrics.unverifiedAck();
        long notLogged = unverifiedWarnings.admit();
        if (notLogged != WarningThrottle.QUIET) {
            log.warn("Ignored the answer {} {} for {} received from relay {}: {}. Taken for a retriable NACK: {} "
                    + "(counted in unverified-acks-total{})", ack.status(), ack.reason(), what, from.name(), why,
                    consequence, notLogged == 0 ? "" : "; " + notLogged + " more since the last such warning");
        }
    }

    /** Retry backoff doubling with each attempt of a batch, up to 32 times the configured one. */
    private long backoffNanos(int attempts) {
        int doublings = Math.min(5, Math.max(0, attempts - 2)); // attempts counts the first send too
        return settings.retryBackoff().toNanos() << doublings;
    }

    /** A heartbeat round trip to a relay, for the batching model. */
    synchronized void onRttSample(long rttNanos) {
        policy.onRttSample(rttNanos, nanoTime.getAsLong());
    }

    /** A relay connection was lost: what went through it is re-sent at once on another relay. */
    synchronized void onRelayLost(Relay relay) {
        long now = nanoTime.getAsLong();
        for (InFlightWindow.Entry<Pending> entry : window.entries()) {
            Pending pending = entry.payload();
            if (pending.onWire && pending.via == relay) {
                leaveWire(pending);
                policy.onBatchFailed(entry.records(), pending.wireBytes, entry.sentAtNanos(), now);
                window.retryAt(entry, now);
            }
        }
    }

    /** Who ships a topic's schemas again when the destination lacks one. */
    synchronized void schemasMissingListener(SchemasMissingListener listener) {
        this.schemasMissing = Objects.requireNonNull(listener, "listener");
    }

    /** Where answers to metadata frames go (the metadata publisher re-sends what was not applied). */
    synchronized void metadataListener(MetadataListener listener) {
        this.metadataListener = Objects.requireNonNull(listener, "listener");
    }

    /**
     * Sends topic metadata to a ready relay; false when none is ready. The destination's answer
     * goes to the {@link MetadataListener}; a frame lost without an answer is covered by the
     * publisher's periodic re-send.
     */
    synchronized boolean sendMetadata(String topic, int partitionCount, Map<String, String> configs) {
        return sendMetadata(topic, partitionCount, configs, 0, Uuid.ZERO_UUID, System.currentTimeMillis());
    }

    /**
     * The same, with the generation of the topic's schemas among the configs (reported with the
     * answer), the topic's id and the description's generation (see {@link TopicMetadataFrame#generation}).
     */
    synchronized boolean sendMetadata(String topic, int partitionCount, Map<String, String> configs,
                                      long schemaGeneration, Uuid topicId, long generation) {
        Relay relay = pickRelay(null);
        if (relay == null) {
            return false;
        }
        long id = ids.next();
        RoutingHeader routing = RoutingHeader.unrouted(settings.streamId(), id, settings.nodeId(),
                settings.destination());
        if (metadataInFlight.size() >= MAX_METADATA_IN_FLIGHT) {
            metadataInFlight.clear(); // answers lost with a relay; the publisher re-sends anyway
        }
        metadataInFlight.put(id, new MetadataInFlight(topic, partitionCount, schemaGeneration));
        if (!relay.send(settings.integrity().sign(new TopicMetadataFrame(routing, topic, partitionCount, configs,
                topicId, generation)))) {
            metadataInFlight.remove(id);
            return false;
        }
        return true;
    }

    /** The offset to commit for each partition that has acknowledged batches. */
    synchronized Map<TopicPartition, Long> committableOffsets(Collection<TopicPartition> partitions) {
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
    synchronized boolean shouldPause() {
        return window.bytes() + accumulator.bufferedBytes() >= settings.maxBufferedBytes();
    }

    /** Whether memory held fell below half the bound (resume with hysteresis). */
    synchronized boolean canResume() {
        return window.bytes() + accumulator.bufferedBytes() < settings.maxBufferedBytes() / 2;
    }

    synchronized long bufferedBytes() {
        return window.bytes() + accumulator.bufferedBytes();
    }

    /** Bytes of the partition's batches sent and not acknowledged as durable (data at risk). */
    synchronized long unackedBytes(TopicPartition partition) {
        return window.unackedBytes(partition);
    }

    /** The task's bytes not acknowledged as durable: unanswered batches plus open ones (data at risk). */
    synchronized long atRiskBytes() {
        return window.unackedBytes() + accumulator.bufferedBytes();
    }

    synchronized int inFlightBatches() {
        return window.size();
    }

    /** A failure that must stop the task (a non-retriable NACK), or null. */
    RuntimeException fatalError() {
        return fatal.get();
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("sender is closed");
        }
        RuntimeException failure = fatal.get();
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
        accumulator.drainAll();
        encoder.close();
        decoder.close();
    }
}
