package io.jetstream.kafka.relay.datapath;

import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.wire.ProtocolException;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.config.StreamSpec;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.NackReason;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.server.DrainStartedEvent;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection that sends this relay batches: a source-site task (SENDER, this relay is its
 * ingress) or an upstream relay (RELAY). ACKs and NACKs for its frames are written back here.
 *
 * <h2>Backpressure</h2>
 * {@code AUTO_READ} is off. Each frame first reserves its bytes in the connection's budget
 * ({@code buffer.max.bytes.per.connection}) and the relay's ({@code buffer.max.bytes}) through its
 * {@link BufferBudgets.Account}; the reservation goes with the frame (see {@link PendingEntry}), or
 * is released here when the frame is answered at once or dropped with the connection. A frame that finds no room,
 * or whose next hop is still connecting, is parked (in order) and the connection is not read again
 * until it is taken; this handler then waits to be {@linkplain #wake() woken} by a completion, a
 * downstream turning writable or a next hop connecting. The next read is issued only when both
 * budgets have room and the downstream fed last is writable. So the bytes a relay holds stay within
 * its budgets, plus at most the frames of one read request (256 KiB) and one partly received frame
 * per connection: a slow destination slows the sender, it cannot exhaust the relay's memory. A
 * frame much smaller than the buffer it was read into is copied out of it before it is charged
 * ({@link Frames#detached}), so what a held frame keeps alive is at most twice its charge.
 *
 * <h2>Checks</h2>
 * Frames must belong to the stream the peer authenticated for ({@code ERROR(NOT_AUTHORIZED)} and
 * close otherwise). A batch this relay is the ingress of has its payload CRC32C verified first
 * (mismatch: {@code NACK MALFORMED_BATCH}, counted {@code malformed_batch}, connection kept). A
 * peer may not send frames its role does not send ({@code ERROR(UNEXPECTED_FRAME)} and close).
 *
 * <p>Per-connection state lives on the channel's event loop; {@link #wake}, {@link #sendReceipt}
 * and {@link #sendAck} may be called from any thread.
 */
final class UpstreamHandler extends ChannelInboundHandlerAdapter implements Waiter {

    private static final Logger log = LoggerFactory.getLogger(UpstreamHandler.class);

    /** A frame read but not yet taken. */
    private static final class Parked {
        final Frame frame;
        final long bytes;
        /** Null until the budgets had room for the frame. */
        BufferBudgets.Reservation reservation;
        boolean stallCounted;

        Parked(Frame frame, long bytes) {
            this.frame = frame;
            this.bytes = bytes;
        }
    }

    private final Session session;
    private final StreamSpec stream;
    private final RelayConfig config;
    private final RelayMetrics metrics;
    private final Drain drain;
    private final Router router;
    private final BufferBudgets.Account budget;
    private final ArrayDeque<Parked> parked = new ArrayDeque<>();
    private final AtomicBoolean wakeScheduled = new AtomicBoolean();
    private ChannelHandlerContext ctx;
    /** The downstream the last frame went to: reading resumes only once it stops holding back. */
    private Downstream feeding;
    /** Whether reading is held back on purpose (so the idle timeout does not apply). */
    private boolean holding;
    private boolean rejected;

    /**
     * @param drain   whether new frames are still taken
     * @param router  where each frame taken goes
     * @param budgets where this connection's budget is opened
     */
    UpstreamHandler(Session session, StreamSpec stream, RelayConfig config, RelayMetrics metrics, Drain drain,
                    Router router, BufferBudgets budgets) {
        this.session = session;
        this.stream = stream;
        this.config = config;
        this.metrics = metrics;
        this.drain = drain;
        this.router = router;
        this.budget = budgets.open(this, config.bufferMaxBytesPerConnection());
    }

    Session session() {
        return session;
    }

    StreamSpec stream() {
        return stream;
    }

    EventLoop eventLoop() {
        return ctx.channel().eventLoop();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        this.ctx = context;
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object msg) {
        if (rejected) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof Frame frame && Frames.isRouted(frame)) {
            onRoutedFrame(frame);
        } else if (msg instanceof AckFrame && session.role() == PeerRole.RELAY) {
            // No frame of ours travels towards an upstream relay, so no ACK can match.
            metrics.errors(ErrorKind.UNKNOWN_ACK).inc();
        } else if (msg instanceof ErrorFrame error) {
            log.info("{} sent ERROR {}: {}; closing", session, error.code(), error.message());
            context.close();
        } else {
            String what = msg instanceof Frame f ? f.type().toString() : msg.getClass().getSimpleName();
            ReferenceCountUtil.release(msg);
            reject(ErrorKind.UNEXPECTED_FRAME, ErrorCode.UNEXPECTED_FRAME,
                    what + " frames are not accepted from a " + session.role());
        }
    }

    private void onRoutedFrame(Frame frame) {
        RoutingHeader routing = Frames.routing(frame);
        if (!routing.streamId().equals(session.streamId())) {
            ReferenceCountUtil.release(frame);
            reject(ErrorKind.NOT_AUTHORIZED, ErrorCode.NOT_AUTHORIZED, "frame of stream '" + routing.streamId()
                    + "' on a connection authenticated for stream '" + session.streamId() + "'");
            return;
        }
        if (frame instanceof BatchFrame || frame instanceof BatchesFrame) {
            if (!routing.isRouted()) {
                try {
                    // This relay is the ingress: corrupt senders are refused before anything is spent on
                    // them (a BATCHES frame: every section's CRC).
                    if (frame instanceof BatchFrame batch) {
                        batch.verifyChecksum();
                    } else {
                        ((BatchesFrame) frame).verifyChecksums();
                    }
                } catch (ProtocolException e) {
                    metrics.errors(ErrorKind.MALFORMED_BATCH).inc();
                    router.answer(frame, this, AckReason.MALFORMED_BATCH, NackReason.INVALID_BATCH, e.getMessage());
                    return;
                }
            }
            session.metrics().batchesIn().inc();
        }
        // A frame held costs its bytes plus its pending-table bookkeeping: charging both keeps a
        // flood of tiny frames within the budget too. Detached first, so that it keeps alive no more
        // than twice that of the buffer it was read into.
        Frame held = Frames.detached(frame, ctx.alloc());
        long bytes = Math.min(Frames.wireBytes(held) + Frames.BOOKKEEPING_BYTES, budget.maxBytes());
        Parked next = new Parked(held, bytes);
        if (parked.isEmpty() && admit(next)) {
            return;
        }
        parked.add(next);
    }

    /** Tries to take a frame; false when it must wait (it keeps its reservation, if any). */
    private boolean admit(Parked p) {
        if (drain.draining()) {
            if (p.reservation != null) {
                p.reservation.releaseByOwner();
            }
            router.answer(p.frame, this, AckReason.OVERLOADED, NackReason.DRAINING,
                    "relay " + config.relayId() + " is draining; send to another relay");
            return true;
        }
        if (p.reservation == null) {
            p.reservation = budget.tryReserve(p.bytes);
            if (p.reservation == null) {
                if (!p.stallCounted) {
                    p.stallCounted = true;
                    metrics.errors(ErrorKind.BUFFER_FULL).inc();
                }
                return false;
            }
        }
        switch (router.route(p.frame, p.reservation, this)) {
            case FORWARDED:
                return true;
            case ANSWERED:
                p.reservation.releaseByOwner();
                return true;
            case WAIT:
            default:
                return false;
        }
    }

    private void drainParked() {
        while (!parked.isEmpty() && admit(parked.peek())) {
            parked.poll();
        }
    }

    /** Reads more only when both budgets have room and the last downstream is writable. */
    private void maybeRead() {
        holding = true;
        if (rejected || !ctx.channel().isActive() || !parked.isEmpty()) {
            return;
        }
        if (!budget.hasRoom()) {
            return;
        }
        Downstream downstream = feeding;
        if (downstream != null && downstream.holdsBack()) {
            downstream.awaitWritable(this);
            if (downstream.holdsBack()) {
                return;
            }
        }
        holding = false;
        ctx.read();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext context) {
        maybeRead();
        context.fireChannelReadComplete();
    }

    /** Something this connection may be waiting for changed; re-checks on the event loop. Any thread. */
    @Override
    public void wake() {
        if (!wakeScheduled.compareAndSet(false, true)) {
            return;
        }
        try {
            ctx.executor().execute(() -> {
                wakeScheduled.set(false);
                if (ctx.channel().isActive()) {
                    drainParked();
                    maybeRead();
                }
            });
        } catch (RejectedExecutionException e) {
            wakeScheduled.set(false); // shutting down
        }
    }

    /** The frame went to {@code downstream}: reading waits for it whenever it is not writable. */
    void feeding(Downstream downstream) {
        this.feeding = downstream;
    }

    /**
     * Writes a receipt back to this peer if it is still connected; unlike an answer, a receipt
     * that cannot be delivered is no loss (the answer follows or the sender re-sends). Any thread.
     */
    void sendReceipt(AckFrame receipt) {
        ControlWrites.advisory(ctx.channel(), receipt, metrics);
    }

    /**
     * Writes an ACK or NACK back to this peer; a peer that has stopped reading is disconnected
     * rather than queued for ({@link ControlWrites#owed}). Any thread.
     */
    void sendAck(AckFrame ack) {
        Channel channel = ctx.channel();
        if (!channel.isActive()) {
            metrics.errors(ErrorKind.ACK_UNDELIVERABLE).inc();
            return;
        }
        ControlWrites.owed(channel, ack, metrics);
    }

    private void reject(ErrorKind kind, ErrorCode code, String message) {
        rejected = true;
        Rejections.reject(ctx, metrics, kind, code, message);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext context, Object evt) throws Exception {
        if (Rejections.isReaderIdle(evt)) {
            if (!holding && !rejected) {
                rejected = true;
                Rejections.idle(ctx, metrics, config.idleTimeout());
            }
            return; // while holding back reads on purpose, silence is expected, not a dead peer
        }
        if (evt instanceof DrainStartedEvent) {
            drain.start();
            drainParked(); // parked frames are nacked OVERLOADED now, not at the deadline
            maybeRead();
        }
        super.userEventTriggered(context, evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) throws Exception {
        for (Parked p : parked) {
            if (p.reservation != null) {
                p.reservation.releaseByOwner();
            }
            ReferenceCountUtil.release(p.frame);
        }
        parked.clear();
        budget.close();
        super.channelInactive(context);
    }

    @Override
    public String toString() {
        return "upstream " + session;
    }
}
