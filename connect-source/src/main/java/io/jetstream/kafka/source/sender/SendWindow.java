package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.core.delivery.InFlightWindow;
import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.BatchPolicy;
import io.netty.util.ReferenceCountUtil;
import java.util.Collection;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;

/**
 * The sender's batches from sealing to acknowledgement: the {@link InFlightWindow} that keeps each
 * partition's commit position behind its oldest unacknowledged batch, what of it is on the wire
 * (the batching policy's window counts those), and the sending and re-sending of each batch.
 *
 * <p>Order: a batch waits while an older batch of its partition waits for a retry (the destination
 * holds every successor until its predecessor arrives); the oldest unacknowledged batch of a
 * partition passes even a full window. Retries: after the retry backoff for a route problem, after
 * a backoff that doubles with the attempts for anything else, at once after a lost relay.
 *
 * <p>Not thread-safe: used under the sender's lock.
 */
final class SendWindow {

    /** What became of an attempt to send. */
    enum Sent { SENT, WINDOW_CLOSED, NO_RELAY }

    /** A deadline no refused batch reaches: it is never sent again. */
    private static final long NEVER_NANOS = Long.MAX_VALUE / 4;

    private final InFlightWindow<PendingBatch> window =
            new InFlightWindow<>(p -> ReferenceCountUtil.release(p.frame));
    private final RelayChoice relays;
    private final BatchPolicy policy;
    private final SenderEvents events;
    private final long retryBackoffNanos;
    private final long ackTimeoutNanos;
    private int onWireBatches;
    private long onWireBytes;
    private long onWireRecords;
    /** Whether a sealed batch found the window closed since the last tick's sending pass began. */
    private boolean full;

    SendWindow(SenderSettings settings, RelayChoice relays, BatchPolicy policy, SenderEvents events) {
        this.relays = relays;
        this.policy = policy;
        this.events = events;
        this.retryBackoffNanos = settings.retryBackoff().toNanos();
        this.ackTimeoutNanos = settings.ackTimeout().toNanos();
    }

    /** Adds a sealed batch and sends it now, unless an older batch of its partition waits for its retry. */
    void add(long id, TopicPartition partition, long lastOffset, PendingBatch pending, long now) {
        sendUnlessWaiting(window.add(id, partition, lastOffset, pending.records, pending.wireBytes, pending, now, now),
                now);
    }

    /** Puts {@code pending} (a skip marker) in the place of {@code entry} and sends it like {@link #add}. */
    void replace(InFlightWindow.Entry<PendingBatch> entry, long id, long lastOffset, PendingBatch pending, long now) {
        sendUnlessWaiting(window.replace(entry, id, lastOffset, pending.records, pending.wireBytes, pending, now, now),
                now);
    }

    private void sendUnlessWaiting(InFlightWindow.Entry<PendingBatch> entry, long now) {
        if (!waitsForPredecessor(entry)) {
            trySend(entry, now, policy.decision(now));
        } // else it is due now and leaves with the next tick, after its predecessor
    }

    /**
     * The tick's sending pass: what waits goes first (a batch unanswered within the ack timeout is
     * taken for lost); a closed window still lets through what a partition waits for, and the pass
     * stops at the first batch no relay takes, to keep the order.
     */
    void sendDue(long now, BatchDecision caps) {
        full = false;
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
                break; // keep the order, try again next tick
            }
        }
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
     * Sends an entry now if the policy's window admits it and a relay is ready. The oldest
     * unacknowledged batch of its partition passes even a full window: the destination holds every
     * successor until it arrives, so a window full of successors waiting for a re-sent predecessor
     * would otherwise stall the partition until their acknowledgement timeout. Its memory is
     * already counted, and there is at most one such batch per partition.
     */
    private Sent trySend(InFlightWindow.Entry<PendingBatch> entry, long now, BatchDecision caps) {
        PendingBatch pending = entry.payload();
        if (!caps.admits(onWireBatches, onWireBytes, pending.wireBytes) && !window.isOldestUnacked(entry)) {
            full = true;
            return Sent.WINDOW_CLOSED;
        }
        Relay relay = relays.pick(pending.via);
        if (relay == null || !relay.send(pending.frame.retainedDuplicate())) {
            window.retryAt(entry, now + retryBackoffNanos);
            return Sent.NO_RELAY;
        }
        if (pending.via != null) {
            events.resent(entry.records());
        }
        pending.via = relay;
        pending.onWire = true;
        onWireBatches++;
        onWireBytes += pending.wireBytes;
        onWireRecords += pending.records;
        window.resent(entry, now, now + ackTimeoutNanos);
        return Sent.SENT;
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

    /** The destination acknowledged the batch: true when it was still in the window. */
    boolean ack(long batchId, PendingBatch pending) {
        if (window.ack(batchId) == null) {
            return false;
        }
        leaveWire(pending);
        return true;
    }

    /**
     * The batch's attempt failed in a way re-sending can help with: it goes again after the retry
     * backoff ({@code soon}) or a backoff that doubles with its attempts.
     */
    void retryLater(InFlightWindow.Entry<PendingBatch> entry, boolean soon, long now) {
        PendingBatch pending = entry.payload();
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
            window.entries(partition).stream()
                    .filter(e -> e.payload().onWire)
                    .forEach(e -> leaveWire(e.payload()));
        }
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

    /** Releases every batch's frame. */
    void clear() {
        window.clear();
    }
}
