package io.jetstream.kafka.relay.datapath;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.relay.admin.RelayHealth;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.config.RouteSpec;
import io.jetstream.kafka.relay.config.StreamSpec;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.NackReason;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.server.BufferBudget;
import io.jetstream.kafka.relay.server.DataPipelineContext;
import io.netty.channel.EventLoopGroup;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state one relay's data path shares across all its connections: the pending table and the
 * ACK path, the next-hop links, the subscriptions, the route chooser, the buffer budget and its
 * waiters, the ack-timeout timer, and the draining flag.
 *
 * <h2>Completion of a pending frame</h2>
 * Exactly once ({@link PendingEntry#markDone()}), by whichever comes first: the downstream's ACK
 * or NACK (relayed upstream as received), the ack timeout ({@code NACK TIMEOUT}), the loss of the
 * downstream connection ({@code NACK NEXT_HOP_UNREACHABLE}), or shutdown. Completion sends the ACK
 * upstream, returns what the entry still holds of the relay and connection budgets, wakes the
 * upstreams waiting for room and tells the route chooser. Nothing in flight is ever dropped
 * silently. The frame's wire bytes return earlier, once it is written downstream
 * ({@link #written}); see {@link PendingEntry}.
 *
 * <p>Thread-safe; methods are called from every event loop and from the timer thread.
 */
final class DataPath {

    private static final Logger log = LoggerFactory.getLogger(DataPath.class);
    /** A route whose first hop failed is avoided this long while others are usable. */
    static final Duration ROUTE_FAILURE_PENALTY = Duration.ofSeconds(1);
    private static final long TIMER_TICK_MS = 10;

    private final RelayConfig config;
    private final RelayMetrics metrics;
    private final BufferBudget relayBuffer;
    private final EventLoopGroup eventLoops;
    private final RelayHealth health;
    private final RouteChooser chooser;
    private final PendingTable pending = new PendingTable();
    private final Subscribers subscribers = new Subscribers();
    private final NextHops nextHops;
    private final Waiters budgetWaiters = new Waiters();
    private final RouteLabels routeLabels;
    private final Router router;
    private final HashedWheelTimer timer;
    private final long ackTimeoutNanos;
    private volatile boolean draining;
    private final AtomicBoolean closed = new AtomicBoolean();
    private ScheduledFuture<?> reporter;

    DataPath(DataPipelineContext context, RouteChooser chooser) {
        this.config = context.config();
        this.metrics = context.metrics();
        this.relayBuffer = context.relayBuffer();
        this.eventLoops = context.eventLoops().orElse(null);
        this.health = context.health();
        this.chooser = chooser;
        this.nextHops = new NextHops(context.peerConnector(), this);
        this.routeLabels = new RouteLabels(metrics);
        this.router = new Router(this);
        this.ackTimeoutNanos = config.ackTimeout().toNanos();
        this.timer = new HashedWheelTimer(new DefaultThreadFactory("relay-acks-" + config.relayId(), true),
                TIMER_TICK_MS, TimeUnit.MILLISECONDS);
    }

    /** Opens the connections to every configured route's first hop, and the periodic metrics report. */
    void start() {
        if (eventLoops == null) {
            return;
        }
        for (StreamSpec stream : config.streams().values()) {
            for (String destination : config.destinations()) {
                for (RouteSpec route : config.routes(destination)) {
                    route.nextHop().ifPresent(hop -> nextHops.link(hop, stream, eventLoops));
                }
            }
        }
        long intervalNs = config.heartbeatInterval().toNanos();
        reporter = eventLoops.next().scheduleAtFixedRate(
                () -> nextHops.all().forEach(NextHopLink::reportTraffic), intervalNs, intervalNs, TimeUnit.NANOSECONDS);
    }

    RelayConfig config() {
        return config;
    }

    RelayMetrics metrics() {
        return metrics;
    }

    BufferBudget relayBuffer() {
        return relayBuffer;
    }

    RouteChooser chooser() {
        return chooser;
    }

    Subscribers subscribers() {
        return subscribers;
    }

    NextHops nextHops() {
        return nextHops;
    }

    Router router() {
        return router;
    }

    RouteLabels routeLabels() {
        return routeLabels;
    }

    PendingTable pending() {
        return pending;
    }

    /**
     * Whether new frames are refused: from the moment the server reports DRAINING (before the
     * {@code DrainStartedEvent} reaches every connection) until it stops.
     */
    boolean draining() {
        if (draining) {
            return true;
        }
        RelayHealth.Status status = health.status();
        if (status == RelayHealth.Status.DRAINING || status == RelayHealth.Status.DOWN) {
            startDrain();
            return true;
        }
        return false;
    }

    /** Registers an upstream to be woken when budget bytes are released. */
    void awaitBudget(UpstreamHandler upstream) {
        budgetWaiters.add(upstream);
    }

    void forgetWaiter(UpstreamHandler upstream) {
        budgetWaiters.remove(upstream);
    }

    /** Bytes were returned to the relay budget outside a completion (a closed connection's parked frames). */
    void budgetReleased() {
        budgetWaiters.wakeAll();
    }

    /** Takes no new frames from now on (they are nacked OVERLOADED); pending ones complete as usual. */
    void startDrain() {
        if (!draining) {
            draining = true;
            log.info("Relay {} draining: new batches are nacked OVERLOADED, {} still in flight", config.relayId(),
                    relayBuffer);
        }
    }

    /** Tracks a frame just handed to its downstream(s), and arms its ack timeout. */
    void register(PendingEntry entry) {
        pending.add(entry);
        try {
            entry.timeout = timer.newTimeout(t -> expire(entry), ackTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (IllegalStateException stopped) {
            // Shutdown stopped the timer between the draining check and here.
            complete(entry, entry.nack(AckReason.NEXT_HOP_UNREACHABLE, "relay " + config.relayId()
                    + " is shutting down"), NackReason.DRAINING);
            forget(entry);
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
        passReceipt(entry, receipt);
    }

    /** The pending frame an ACK or receipt from {@code from} is about; null if none (or another stream's). */
    private PendingEntry pendingFor(AckFrame ack, Downstream from) {
        return from.streamId().equals(ack.streamId()) ? pending.find(ack.originNodeId(), ack.batchId(), from) : null;
    }

    /** Records that the route carried the entry's frame, and tells the upstream if it asked. */
    private void passReceipt(PendingEntry entry, AckFrame receipt) {
        if (entry.route != null) {
            chooser.onReceived(entry.route, entry.bytes, Duration.ofNanos(System.nanoTime() - entry.sentAtNanos));
            // the batch left its route's bytes in flight: an ingress batch waiting for room may go
            budgetWaiters.wakeAll();
        }
        if (entry.upstream.session().receipts()) {
            entry.upstream.sendReceipt(receipt);
        }
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
                + config.ackTimeout().toMillis() + " ms at relay " + config.relayId()), NackReason.ACK_TIMEOUT)) {
            metrics.errors(ErrorKind.ACK_TIMEOUT).inc();
        }
        forget(entry);
    }

    /**
     * Completes an entry if nobody did yet: returns its budget, relays {@code ack} upstream,
     * counts it and informs the route chooser.
     *
     * @param ownReason the label of a NACK this relay makes; null for an answer relayed as received
     * @return whether this call completed the entry
     */
    boolean complete(PendingEntry entry, AckFrame ack, NackReason ownReason) {
        if (!entry.markDone()) {
            return false;
        }
        // Count before answering, so that whoever sees the answer also sees it counted.
        if (ack.isOk()) {
            metrics.acks().inc();
            if (entry.routeMetrics != null) {
                entry.routeMetrics.ackLatencySeconds().observe((System.nanoTime() - entry.sentAtNanos) / 1e9);
            }
        } else {
            metrics.nacks(ownReason != null ? ownReason : NackReasons.relayed(ack.reason())).inc();
        }
        if (entry.route != null && entry.wasReceived()) {
            chooser.onSettled(entry.route, entry.bytes, ack.isOk());
        } else if (entry.route != null) {
            if (ack.isOk()) {
                chooser.onAck(entry.route, entry.bytes, Duration.ofNanos(System.nanoTime() - entry.sentAtNanos));
            } else {
                chooser.onNack(entry.route, entry.bytes, ack.reason());
            }
        }
        // The answer is queued on the upstream connection before the relay's buffer says the entry
        // is gone: a draining relay closes its connections once the buffer is empty, and a close
        // queued ahead of the answer would lose it.
        entry.upstream.sendAck(ack);
        long rest = entry.takeRemainingBytes();
        entry.upstream.entryDone(rest);
        relayBuffer.release(rest);
        budgetWaiters.wakeAll();
        return true;
    }

    /** A copy of the entry's frame left this relay: its wire bytes return to the budgets. Any thread. */
    void written(PendingEntry entry) {
        long wire = entry.takeWrittenBytes();
        if (wire > 0) {
            entry.upstream.entryWritten(wire);
            relayBuffer.releasePart(wire);
            budgetWaiters.wakeAll();
        }
    }

    private void forget(PendingEntry entry) {
        pending.remove(entry);
        Timeout timeout = entry.timeout;
        if (timeout != null) {
            timeout.cancel();
        }
    }

    /**
     * Stops the data path: every frame still pending is nacked upstream (its sender re-sends it on
     * another route at once instead of waiting for a timeout), next-hop connections close, timers stop.
     */
    void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        long startNs = System.nanoTime();
        draining = true;
        List<PendingEntry> abandoned = pending.select(e -> !e.isDone());
        for (PendingEntry entry : abandoned) {
            complete(entry, entry.nack(AckReason.NEXT_HOP_UNREACHABLE, "relay " + config.relayId() + " is shutting down"),
                    NackReason.DRAINING);
            forget(entry);
        }
        if (reporter != null) {
            reporter.cancel(false);
        }
        nextHops.close();
        timer.stop();
        log.info("Relay {} data path closed in {} ms ({} frames still in flight were nacked)", config.relayId(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs), abandoned.size());
    }
}
