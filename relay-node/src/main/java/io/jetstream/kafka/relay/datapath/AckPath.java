package io.jetstream.kafka.relay.datapath;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.NackReason;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.routing.RouteChooser;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The way back: the frames this relay handed downstream ({@link PendingTable}), their ack timeouts,
 * and their completion.
 *
 * <h2>Completion of a pending frame</h2>
 * Exactly once ({@link PendingEntry#markDone()}), by whichever comes first: the downstream's ACK
 * or NACK (relayed upstream as received), the ack timeout ({@code NACK TIMEOUT}), the loss of the
 * downstream connection ({@code NACK NEXT_HOP_UNREACHABLE}), or shutdown. Completion counts the
 * answer, tells the route chooser, sends the answer upstream and then releases the frame's
 * {@linkplain BufferBudgets.Reservation reservation} (which wakes the upstreams waiting for room).
 * Nothing in flight is ever dropped silently. The frame's wire bytes return earlier, once it is
 * written downstream ({@link PendingEntry#copyWritten}).
 *
 * <p>Thread-safe; methods are called from every event loop and from the timer thread.
 */
final class AckPath {

    private static final Logger log = LoggerFactory.getLogger(AckPath.class);
    private static final long TIMER_TICK_MS = 10;

    private final String relayId;
    private final Duration ackTimeout;
    private final RelayMetrics metrics;
    private final RouteChooser chooser;
    private final Waiters roomWaiters;
    private final Clock clock;
    private final PendingTable pending = new PendingTable();
    private final HashedWheelTimer timer;

    /**
     * @param roomWaiters upstreams waiting for room, woken when a receipt takes a batch's bytes off
     *                    its route's in-flight count
     * @param clock       times each frame from its registration to its answer
     */
    AckPath(String relayId, Duration ackTimeout, RelayMetrics metrics, RouteChooser chooser, Waiters roomWaiters,
            Clock clock) {
        this.relayId = relayId;
        this.ackTimeout = ackTimeout;
        this.metrics = metrics;
        this.chooser = chooser;
        this.roomWaiters = roomWaiters;
        this.clock = clock;
        this.timer = new HashedWheelTimer(new DefaultThreadFactory("relay-acks-" + relayId, true),
                TIMER_TICK_MS, TimeUnit.MILLISECONDS);
    }

    /** Tracks a frame just handed to its downstream(s), and arms its ack timeout. */
    void register(PendingEntry entry) {
        pending.add(entry);
        try {
            entry.timeout = timer.newTimeout(t -> expire(entry), ackTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (IllegalStateException stopped) {
            // Shutdown stopped the timer between the draining check and here.
            abandon(entry);
        }
    }

    /** An ACK or NACK from a downstream: relayed upstream if it answers a pending frame. */
    void onAck(AckFrame ack, Downstream from) {
        if (ack.isReceipt()) {
            onReceipt(ack, from);
            return;
        }
        PendingEntry entry = pendingFor(ack, from);
        if (entry == null) {
            metrics.errors(ErrorKind.UNKNOWN_ACK).inc();
            log.debug("Dropped an ACK from {} for no pending frame: {}/{}", from.peerId(), ack.originNodeId(),
                    ack.batchId());
            return;
        }
        int unanswered = entry.answerCopy();
        boolean relayed = complete(entry, ack, null);
        if (!relayed && !entry.metadata) {
            // A second answer for one batch copy: nothing to relay.
            metrics.errors(ErrorKind.UNKNOWN_ACK).inc();
        }
        if (unanswered <= 0 || !entry.metadata) {
            forget(entry);
        }
    }

    /**
     * A receipt from a downstream (the egress relay has the batch): the ingress tells its route
     * chooser, every relay passes it on to an upstream that asked for receipts. The frame stays
     * pending until its answer. A receipt for nothing pending (answered or timed out meanwhile) is
     * dropped without a count: it can legitimately arrive after a timeout.
     */
    private void onReceipt(AckFrame receipt, Downstream from) {
        PendingEntry entry = pendingFor(receipt, from);
        if (entry == null || entry.isDone() || !entry.markReceived()) {
            return;
        }
        if (entry.route != null) {
            chooser.onReceived(entry.route, entry.bytes, Duration.ofNanos(clock.nanoTime() - entry.sentAtNanos));
            // the batch left its route's bytes in flight: an ingress batch waiting for room may go
            roomWaiters.wakeAll();
        }
        if (entry.upstream.session().receipts()) {
            entry.upstream.sendReceipt(receipt);
        }
    }

    /** The pending frame an ACK or receipt from {@code from} is about; null if none (or another stream's). */
    private PendingEntry pendingFor(AckFrame ack, Downstream from) {
        return from.streamId().equals(ack.streamId()) ? pending.find(ack.originNodeId(), ack.batchId(), from) : null;
    }

    /** A downstream connection was lost: every frame sent through it (up to {@code epoch}) is nacked. */
    void failThrough(Downstream downstream, long epoch, String why) {
        List<PendingEntry> lost = pending.select(e -> e.epoch <= epoch && e.wentTo(downstream));
        for (PendingEntry entry : lost) {
            copyLost(entry, why);
        }
        if (!lost.isEmpty()) {
            log.info("{} frames in flight through {} nacked NEXT_HOP_UNREACHABLE: {}", lost.size(),
                    downstream.peerId(), why);
        }
    }

    /** One copy of a pending frame will never be answered (its downstream is gone). */
    void copyLost(PendingEntry entry, String why) {
        int unanswered = entry.answerCopy();
        complete(entry, entry.nack(AckReason.NEXT_HOP_UNREACHABLE, why), NackReason.CONNECTION_LOST);
        if (unanswered <= 0 || !entry.metadata) {
            forget(entry);
        }
    }

    private void expire(PendingEntry entry) {
        if (complete(entry, entry.nack(AckReason.TIMEOUT, "no acknowledgement from downstream within "
                + ackTimeout.toMillis() + " ms at relay " + relayId), NackReason.ACK_TIMEOUT)) {
            metrics.errors(ErrorKind.ACK_TIMEOUT).inc();
        }
        forget(entry);
    }

    /** Nacks a frame because this relay is shutting down (its sender re-sends it at once elsewhere). */
    private void abandon(PendingEntry entry) {
        complete(entry, entry.nack(AckReason.NEXT_HOP_UNREACHABLE, "relay " + relayId + " is shutting down"),
                NackReason.DRAINING);
        forget(entry);
    }

    /**
     * Completes an entry if nobody did yet: counts {@code ack}, informs the route chooser, relays
     * {@code ack} upstream and releases the entry's budget.
     *
     * @param ownReason the label of a NACK this relay makes; null for an answer relayed as received
     * @return whether this call completed the entry
     */
    private boolean complete(PendingEntry entry, AckFrame ack, NackReason ownReason) {
        if (!entry.markDone()) {
            return false;
        }
        // Count before answering, so that whoever sees the answer also sees it counted.
        if (ack.isOk()) {
            metrics.acks().inc();
            if (entry.routeMetrics != null) {
                entry.routeMetrics.ackLatencySeconds().observe((clock.nanoTime() - entry.sentAtNanos) / 1e9);
            }
        } else {
            metrics.nacks(ownReason != null ? ownReason : NackReason.relayed(ack.reason())).inc();
        }
        if (entry.route != null && entry.wasReceived()) {
            chooser.onSettled(entry.route, entry.bytes, ack.isOk());
        } else if (entry.route != null) {
            if (ack.isOk()) {
                chooser.onAck(entry.route, entry.bytes, Duration.ofNanos(clock.nanoTime() - entry.sentAtNanos));
            } else {
                chooser.onNack(entry.route, entry.bytes, ack.reason());
            }
        }
        // The answer is queued on the upstream connection before the relay's buffer says the entry
        // is gone: a draining relay closes its connections once the buffer is empty, and a close
        // queued ahead of the answer would lose it.
        entry.upstream.sendAck(ack);
        entry.reservation.release();
        return true;
    }

    private void forget(PendingEntry entry) {
        pending.remove(entry);
        Timeout timeout = entry.timeout;
        if (timeout != null) {
            timeout.cancel();
        }
    }

    /**
     * Nacks every frame still pending upstream (its sender re-sends it on another route at once
     * instead of waiting for a timeout); returns how many.
     */
    int abandonAll() {
        List<PendingEntry> abandoned = pending.select(e -> !e.isDone());
        abandoned.forEach(this::abandon);
        return abandoned.size();
    }

    /** Stops the ack timer: frames registered from now on are abandoned at once. */
    void stop() {
        timer.stop();
    }
}
