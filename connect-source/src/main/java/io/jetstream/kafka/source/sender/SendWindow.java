package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.core.delivery.InFlightWindow;
import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.BatchPolicy;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * The sender's batches from sealing to acknowledgement: the {@link InFlightWindow} that keeps each
 * partition's commit position behind its oldest unacknowledged batch, what of it is on the wire
 * (the batching policy's window counts those), and the sending and re-sending of each batch.
 *
 * <p>Frames: the window, its order, its retries and timeouts are per batch; what is per frame is only
 * the act of sending. A sending pass (the tick's {@link #sendDue}, the batches sealed by one
 * {@code put} or tick, a skip marker) hands each batch it sends to a relay and counts it on the wire
 * at once, but the batches leave only when the caller ends the pass ({@link #sendCollected}): those
 * of one relay then go as BATCHES frames of several partitions ({@link SendingPass}), a group of one
 * as its own BATCH frame. An answer to a BATCHES frame applies to each batch whose last send it was
 * ({@link FramesInFlight}); a batch re-sent since in another frame or alone ignores it. A batch's
 * deadline, retries and accounting stay its own, so a frame's batches may part ways: a timeout,
 * a NACK or a lost relay re-sends each, possibly in a new frame with other batches.
 *
 * <p>Order: a batch waits while an older batch of its partition waits for a retry (the destination
 * holds every successor until its predecessor arrives); the oldest unacknowledged batch of a
 * partition passes even a full window. Retries: after the retry backoff for a route problem, after
 * a backoff that doubles with the attempts for anything else, at once after a lost relay.
 *
 * <p>Cost: a sealed batch the window does not admit waits in a queue of its own, in the order batches
 * were sealed, apart from the deadlines of re-sends and acknowledgement timeouts. While the window
 * is closed, a tick looks only at the partitions whose oldest batch waits there (the ones a closed
 * window lets through), never at every waiting batch: at many partitions and a full link thousands
 * wait, and walking them every 5 ms took 85% of the source worker (docs/experiments.md).
 *
 * <p>Not thread-safe: used under the sender's lock.
 */
final class SendWindow {

    /** What became of an attempt to send ({@code SENT}: on the wire, leaving with the pass's frames). */
    enum Sent { SENT, WINDOW_CLOSED, NO_RELAY }

    /** A deadline no refused batch reaches: it is never sent again. */
    private static final long NEVER_NANOS = Long.MAX_VALUE / 4;

    private final InFlightWindow<PendingBatch> window =
            new InFlightWindow<>(p -> ReferenceCountUtil.release(p.frame));
    private final RelayChoice relays;
    private final SignedFrames frames;
    private final SendingPass pass;
    private final FramesInFlight framesInFlight = new FramesInFlight();
    private final String streamId;
    private final BatchPolicy policy;
    private final SenderEvents events;
    private final long retryBackoffNanos;
    private final long ackTimeoutNanos;
    private int onWireBatches;
    private long onWireBytes;
    private long onWireRecords;
    /** Whether a sealed batch found the window closed since the last tick's sending pass began. */
    private boolean full;
    /** Sealed batches never sent yet ({@link PendingBatch#queued}), oldest first. */
    private final Set<InFlightWindow.Entry<PendingBatch>> queued = new LinkedHashSet<>();
    /**
     * Partitions whose oldest unacknowledged batch may be in {@link #queued}: the batches a closed
     * window still lets through. Checked when read (the head may have left meanwhile).
     */
    private final Set<TopicPartition> queuedHeads = new LinkedHashSet<>();

    SendWindow(SenderSettings settings, RelayChoice relays, SignedFrames frames, BatchPolicy policy,
               SenderEvents events) {
        this.relays = relays;
        this.frames = frames;
        this.pass = new SendingPass(settings.frameMaxPartitions());
        this.streamId = settings.streamId();
        this.policy = policy;
        this.events = events;
        this.retryBackoffNanos = settings.retryBackoff().toNanos();
        this.ackTimeoutNanos = settings.ackTimeout().toNanos();
    }

    /**
     * Adds a sealed batch and sends it in this pass, unless batches sealed before it wait for the
     * window or an older batch of its partition waits (its oldest unacknowledged batch always tries at
     * once).
     */
    void add(long id, TopicPartition partition, long lastOffset, PendingBatch pending, long now) {
        offer(window.add(id, partition, lastOffset, pending.records, pending.wireBytes, pending, now,
                now + NEVER_NANOS), now);
    }

    /** Puts {@code pending} (a skip marker) in the place of {@code entry} and sends it like {@link #add}. */
    void replace(InFlightWindow.Entry<PendingBatch> entry, long id, long lastOffset, PendingBatch pending, long now) {
        framesInFlight.detach(entry.payload());
        offer(window.replace(entry, id, lastOffset, pending.records, pending.wireBytes, pending, now,
                now + NEVER_NANOS), now);
    }

    /**
     * A new entry (not due by its deadline: it is sent here or queued) tries at once when nothing
     * sealed before it waits, or when it is its partition's oldest (which passes even a closed
     * window); otherwise, or when the window turns it away, it waits in the queue. It is never its
     * partition's oldest there: a queued batch becomes so only when an acknowledgement takes its
     * predecessors away ({@link #ack}, which lists it in {@link #queuedHeads}).
     */
    private void offer(InFlightWindow.Entry<PendingBatch> entry, long now) {
        if (window.isOldestUnacked(entry) || queued.isEmpty() && !waitsForPredecessor(entry)) {
            if (trySend(entry, now, policy.decision(now)) != Sent.WINDOW_CLOSED) {
                return; // on the wire, or due for a retry when no relay took it
            }
        }
        entry.payload().queued = true;
        queued.add(entry);
    }

    /** A queued entry leaves the queue: it was sent, handed to the retries, answered or refused. */
    private void dequeue(InFlightWindow.Entry<PendingBatch> entry) {
        entry.payload().queued = false;
        queued.remove(entry);
    }

    /**
     * The tick's sending pass. First what is due again (a re-send after a backoff or a lost relay;
     * a batch unanswered within the ack timeout is taken for lost), then the queue in the order
     * batches were sealed, while the window admits them. A closed window still lets through each
     * partition's oldest batch (what the destination waits for). The pass stops at the first batch
     * no relay takes, to keep the order. What it sends leaves at {@link #sendCollected}.
     */
    void sendDue(long now, BatchDecision caps) {
        full = false;
        if (!sendRetries(now, caps)) {
            return;
        }
        for (Iterator<InFlightWindow.Entry<PendingBatch>> it = queued.iterator(); it.hasNext(); ) {
            InFlightWindow.Entry<PendingBatch> entry = it.next();
            if (waitsForPredecessor(entry)) {
                continue; // an older batch of the partition waits: it goes first
            }
            Sent sent = trySend(entry, now, caps);
            if (sent == Sent.WINDOW_CLOSED) {
                break;
            }
            it.remove(); // what dequeue does, through the iterator
            entry.payload().queued = false;
            if (sent == Sent.NO_RELAY) {
                return; // due for a retry; keep the order, try again next tick
            }
        }
        if (full) {
            sendQueuedHeads(now, caps);
        }
    }

    /** The queued batches a closed window lets through: each partition's oldest. */
    private void sendQueuedHeads(long now, BatchDecision caps) {
        for (Iterator<TopicPartition> it = queuedHeads.iterator(); it.hasNext(); ) {
            InFlightWindow.Entry<PendingBatch> head = window.oldestUnacked(it.next());
            it.remove();
            if (head == null || !head.payload().queued) {
                continue; // sent, answered or revoked meanwhile
            }
            dequeue(head);
            if (trySend(head, now, caps) == Sent.NO_RELAY) {
                return; // the other heads stay listed for the next tick
            }
        }
    }

    /** Re-sends what is due again; false when no relay took one (the pass stops there). */
    private boolean sendRetries(long now, BatchDecision caps) {
        for (InFlightWindow.Entry<PendingBatch> entry : window.due(now)) {
            PendingBatch pending = entry.payload();
            if (pending.refusal != null) {
                continue; // refused for good: waits to be skipped, never sent again
            }
            if (pending.onWire) {
                // no acknowledgement within the timeout: the batch may be lost with a relay
                events.timeout();
                policy.onBatchFailed(entry.records(), pending.wireBytes, entry.sentAtNanos(), now);
                leaveWire(pending);
            }
            if (full && !window.isOldestUnacked(entry)) {
                continue; // the window is closed: only a partition's oldest batch passes (cheap check first)
            }
            if (waitsForPredecessor(entry)) {
                continue; // an older batch of the partition waits for its retry: it goes first
            }
            if (trySend(entry, now, caps) == Sent.NO_RELAY) {
                return false; // keep the order, try again next tick
            }
        }
        return true;
    }

    /** Whether a sealed batch found the window closed since the last sending pass began. */
    boolean full() {
        return full;
    }

    /**
     * Whether an older batch of the same partition is neither acknowledged nor on the wire (it waits
     * for a retry). Such a batch must be sent first: the destination holds every successor until its
     * predecessor arrives, so successors sent ahead only fill its re-order buffer.
     */
    private boolean waitsForPredecessor(InFlightWindow.Entry<PendingBatch> entry) {
        return window.hasOlderUnacked(entry, older -> !older.onWire);
    }

    /**
     * Sends an entry in this pass if the policy's window admits it and a relay is ready: it counts as
     * on the wire from now on (for the window's admission and its partition's order), and leaves with
     * the pass's frames to that relay ({@link #sendCollected}). The oldest unacknowledged batch of its
     * partition passes even a full window: the destination holds every successor until it arrives,
     * so a window full of successors waiting for a re-sent predecessor would otherwise stall the
     * partition until their acknowledgement timeout. Its memory is already counted, and there is at
     * most one such batch per partition.
     */
    private Sent trySend(InFlightWindow.Entry<PendingBatch> entry, long now, BatchDecision caps) {
        PendingBatch pending = entry.payload();
        if (!caps.admits(onWireBatches, onWireBytes, pending.wireBytes) && !window.isOldestUnacked(entry)) {
            full = true;
            return Sent.WINDOW_CLOSED;
        }
        Relay relay = relays.pick(pending.via);
        if (relay == null) {
            window.retryAt(entry, now + retryBackoffNanos);
            return Sent.NO_RELAY;
        }
        pending.onWire = true;
        onWireBatches++;
        onWireBytes += pending.wireBytes;
        onWireRecords += pending.records;
        pass.collect(relay, entry);
        return Sent.SENT;
    }

    /**
     * Ends a sending pass: what it sent leaves now, a BATCHES frame per relay and share owner of up to
     * {@code frame.max.partitions} partitions ({@link SendingPass}). Every path that sends ends its pass
     * here, so nothing stays collected between two calls into the sender.
     */
    void sendCollected(long now) {
        for (SendingPass.Outgoing frame : pass.drain()) {
            send(frame.relay(), frame.batches(), now);
        }
    }

    /**
     * One frame: a batch alone as its own BATCH frame, several as a BATCHES frame. A relay that no
     * longer takes it (not ready since the pass picked it) leaves its batches due again after the
     * retry backoff, as when no relay was ready.
     */
    private void send(Relay relay, List<InFlightWindow.Entry<PendingBatch>> batches, long now) {
        boolean sent;
        long frameId = 0;
        if (batches.size() == 1) {
            PendingBatch alone = batches.get(0).payload();
            alone.frame = frames.signed(alone.frame);
            sent = relay.send(alone.frame.retainedDuplicate());
        } else {
            List<BatchFrame> sections = new ArrayList<>(batches.size());
            for (InFlightWindow.Entry<PendingBatch> entry : batches) {
                sections.add(entry.payload().frame);
            }
            BatchesFrame frame = frames.batches(sections);
            frameId = frame.frameId();
            sent = relay.send(frame);
        }
        if (!sent) {
            for (InFlightWindow.Entry<PendingBatch> entry : batches) {
                leaveWire(entry.payload());
                window.retryAt(entry, now + retryBackoffNanos);
            }
            return;
        }
        if (frameId == 0) {
            framesInFlight.detach(batches.get(0).payload());
        } else {
            framesInFlight.sent(frameId, streamId, batches);
        }
        for (InFlightWindow.Entry<PendingBatch> entry : batches) {
            PendingBatch pending = entry.payload();
            if (pending.via != null) {
                events.resent(entry.records());
            }
            pending.via = relay;
            window.resent(entry, now, now + ackTimeoutNanos);
        }
    }

    private void leaveWire(PendingBatch pending) {
        if (pending.onWire) {
            pending.onWire = false;
            onWireBatches--;
            onWireBytes -= pending.wireBytes;
            onWireRecords -= pending.records;
        }
    }

    InFlightWindow.Entry<PendingBatch> get(long batchId) {
        return window.get(batchId);
    }

    /** The BATCHES frame sent under {@code frameId} while any of its batches belongs to it, else null. */
    FramesInFlight.SentFrame frame(long frameId) {
        return framesInFlight.get(frameId);
    }

    /** The frame's batches whose last send it was (an answer to it is theirs), in section order. */
    List<InFlightWindow.Entry<PendingBatch>> members(FramesInFlight.SentFrame frame) {
        return framesInFlight.members(frame);
    }

    /**
     * The egress relay's subscribers split the stream into {@code count} shares
     * (1..{@link io.jetstream.kafka.core.protocol.Shares#MAX_SHARE_COUNT}): from the next pass on,
     * every frame carries partitions of one of them.
     */
    void shareCount(int count) {
        pass.shareCount(count);
    }

    int shareCount() {
        return pass.shareCount();
    }

    /** The destination acknowledged the batch: true when it was still in the window. */
    boolean ack(long batchId, PendingBatch pending) {
        InFlightWindow.Entry<PendingBatch> entry = window.ack(batchId);
        if (entry == null) {
            return false;
        }
        if (pending.queued) {
            dequeue(entry); // never sent: only an unsigned answer can say so, but it is the answer
        }
        framesInFlight.detach(pending);
        leaveWire(pending);
        InFlightWindow.Entry<PendingBatch> head = window.oldestUnacked(entry.partition());
        if (head != null && head.payload().queued) {
            queuedHeads.add(head.partition()); // what the partition waits for now passes a closed window
        }
        return true;
    }

    /**
     * The batch's attempt failed in a way re-sending can help with: it goes again after the retry
     * backoff ({@code soon}) or a backoff that doubles with its attempts.
     */
    void retryLater(InFlightWindow.Entry<PendingBatch> entry, boolean soon, long now) {
        PendingBatch pending = entry.payload();
        if (pending.queued) {
            return; // never sent: an answer to it answers nothing; it leaves with the queue
        }
        if (pending.onWire) {
            leaveWire(pending);
            policy.onBatchFailed(entry.records(), pending.wireBytes, entry.sentAtNanos(), now);
        }
        window.retryAt(entry, now + (soon ? retryBackoffNanos : backoffNanos(entry.attempts())));
    }

    /** Retry backoff doubling with each attempt of a batch, up to 32 times the configured one. */
    private long backoffNanos(int attempts) {
        int doublings = Math.min(5, Math.max(0, attempts - 2)); // attempts counts the first send too
        return retryBackoffNanos << doublings;
    }

    /** The batch was refused for good: it waits in its place, never sent again, until it is skipped. */
    void hold(InFlightWindow.Entry<PendingBatch> entry, long now) {
        if (entry.payload().queued) {
            dequeue(entry);
        }
        framesInFlight.detach(entry.payload());
        leaveWire(entry.payload());
        window.retryAt(entry, now + NEVER_NANOS);
    }

    /** A relay connection was lost: what went through it goes again at once, on another relay. */
    void relayLost(Relay relay, long now) {
        for (InFlightWindow.Entry<PendingBatch> entry : window.entries()) {
            PendingBatch pending = entry.payload();
            if (pending.onWire && pending.via == relay) {
                leaveWire(pending);
                policy.onBatchFailed(entry.records(), pending.wireBytes, entry.sentAtNanos(), now);
                window.retryAt(entry, now);
            }
        }
    }

    /** Forgets revoked partitions' batches, counting what leaves the wire so the policy's window stays right. */
    void revoke(Collection<TopicPartition> partitions) {
        for (TopicPartition partition : partitions) {
            for (InFlightWindow.Entry<PendingBatch> entry : window.entries(partition)) {
                framesInFlight.detach(entry.payload());
                leaveWire(entry.payload());
            }
        }
        Set<TopicPartition> revoked = Set.copyOf(partitions);
        queued.removeIf(e -> revoked.contains(e.partition()));
        queuedHeads.removeAll(revoked);
        window.revoke(partitions);
    }

    /** Records of the partition's batches not acknowledged yet. */
    long unackedRecords(TopicPartition partition) {
        return window.entries(partition).stream().filter(e -> !e.acked())
                .mapToLong(InFlightWindow.Entry::records).sum();
    }

    /** Records of sealed batches that wait for the window (not on the wire, not acknowledged). */
    long queuedRecords() {
        return window.unackedRecords() - onWireRecords;
    }

    /** Bytes of sealed batches that wait for the window. */
    long queuedBytes() {
        return window.unackedBytes() - onWireBytes;
    }

    boolean hasUnacked(TopicPartition partition) {
        return window.hasUnacked(partition);
    }

    OptionalLong committableOffset(TopicPartition partition) {
        return window.committableOffset(partition);
    }

    long bytes() {
        return window.bytes();
    }

    long unackedBytes() {
        return window.unackedBytes();
    }

    long unackedBytes(TopicPartition partition) {
        return window.unackedBytes(partition);
    }

    int size() {
        return window.size();
    }

    /** Releases every batch's frame; nothing collected leaves any more. */
    void clear() {
        pass.clear();
        framesInFlight.clear();
        queued.clear();
        queuedHeads.clear();
        window.clear();
    }
}
