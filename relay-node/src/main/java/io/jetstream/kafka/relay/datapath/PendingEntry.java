package io.jetstream.kafka.relay.datapath;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.AckStatus;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.relay.config.RouteSpec;
import io.jetstream.kafka.relay.metrics.RouteMetrics;
import io.netty.util.Timeout;

/**
 * One frame this relay forwarded (or delivered) and holds no ACK for yet: where the ACK must go
 * (the upstream connection), where the frame went (one downstream, or every subscriber for topic
 * metadata), which route the ingress chose, how many budget bytes it holds and when it left.
 *
 * <p>It completes exactly once ({@link #markDone()} is a compare-and-set): with the downstream's
 * ACK, or with a NACK this relay makes (timeout, downstream lost, shutdown).
 *
 * <h2>Budget</h2>
 * The entry holds the frame's {@link #reservation} of {@link #bytes} in the relay and connection
 * budgets: the frame's wire size plus its bookkeeping. The wire part returns as soon as every copy
 * of the frame has been written to its downstream ({@link #copyWritten()}): the frame no longer
 * occupies this relay's memory, and holding its bytes until the end-to-end answer would tie the
 * relay's intake to the destination's commit latency instead of to what it actually buffers. The
 * bookkeeping part stays until completion releases the reservation, so a flood of unanswered
 * frames is still bounded. Topic metadata sent to several subscribers completes with the first ACK;
 * the entry then stays until every copy is answered or it expires, so that later ACKs are dropped
 * silently instead of being counted as unknown.
 */
final class PendingEntry {

    final PendingKey key;
    final UpstreamHandler upstream;
    final List<Downstream> sentTo;
    final long epoch;
    final RouteSpec route;
    final RouteMetrics routeMetrics;
    final BufferBudgets.Reservation reservation;
    final long bytes;
    final long sentAtNanos;
    final String streamId;
    final String topic;
    final int partition;
    final long lastOffset;
    final boolean metadata;

    private final AtomicBoolean done = new AtomicBoolean();
    /** Set once by the first receipt (RECEIVED) from downstream: the route has carried the frame. */
    private final AtomicBoolean received = new AtomicBoolean();
    private final AtomicInteger unansweredCopies;
    private final AtomicInteger unwrittenCopies;
    private final long bookkeepingBytes;
    volatile Timeout timeout;

    PendingEntry(Frame frame, UpstreamHandler upstream, List<Downstream> sentTo, long epoch, RouteSpec route,
                 RouteMetrics routeMetrics, BufferBudgets.Reservation reservation, long bookkeepingBytes,
                 long sentAtNanos) {
        RoutingHeader routing = Frames.routing(frame);
        this.key = new PendingKey(routing.originNodeId(), routing.id());
        this.upstream = upstream;
        this.sentTo = List.copyOf(sentTo);
        this.epoch = epoch;
        this.route = route;
        this.routeMetrics = routeMetrics;
        this.reservation = reservation;
        this.bytes = reservation.bytes();
        this.sentAtNanos = sentAtNanos;
        this.streamId = routing.streamId();
        if (frame instanceof BatchFrame batch) {
            BatchHeader header = batch.header();
            this.topic = header.topic();
            this.partition = header.partition();
            this.lastOffset = header.lastOffset();
            this.metadata = false;
        } else if (frame instanceof BatchesFrame batches) {
            // A frame of several partitions: named by its first section in logs; no single partition.
            this.topic = batches.sections().get(0).topic();
            this.partition = -1;
            this.lastOffset = -1;
            this.metadata = false;
        } else {
            this.topic = ((TopicMetadataFrame) frame).topic();
            this.partition = -1;
            this.lastOffset = -1;
            this.metadata = true;
        }
        this.unansweredCopies = new AtomicInteger(this.sentTo.size());
        this.unwrittenCopies = new AtomicInteger(this.sentTo.size());
        this.bookkeepingBytes = Math.min(bytes, bookkeepingBytes);
    }

    /**
     * One copy of the frame was written (or its write failed, or was never made). Once the last copy
     * is out, the wire part of the reservation returns, unless the entry completed meanwhile. Any thread.
     */
    void copyWritten() {
        if (unwrittenCopies.decrementAndGet() == 0) {
            reservation.keepOnly(bookkeepingBytes);
        }
    }

    boolean wentTo(Downstream downstream) {
        for (Downstream d : sentTo) {
            if (d == downstream) {
                return true;
            }
        }
        return false;
    }

    /** True for the one caller that completes the entry. */
    boolean markDone() {
        return done.compareAndSet(false, true);
    }

    boolean isDone() {
        return done.get();
    }

    /** True for the one caller that records the first receipt. */
    boolean markReceived() {
        return received.compareAndSet(false, true);
    }

    /** Whether a receipt came back for the frame. */
    boolean wasReceived() {
        return received.get();
    }

    /** Counts one copy answered (ACK, or its downstream lost); returns how many remain. */
    int answerCopy() {
        return unansweredCopies.decrementAndGet();
    }

    /** A NACK from this relay for the frame, in the ACK frame's format. */
    AckFrame nack(AckReason reason, String message) {
        return new AckFrame(streamId, key.originNodeId(), key.id(), AckStatus.NACK, reason, topic, partition,
                lastOffset, Frames.truncate(message));
    }

    @Override
    public String toString() {
        return (metadata ? "metadata " : "batch ") + key.originNodeId() + "/" + key.id() + " (" + topic + "-" + partition
                + ") to " + sentTo.stream().map(Downstream::peerId).toList();
    }
}
