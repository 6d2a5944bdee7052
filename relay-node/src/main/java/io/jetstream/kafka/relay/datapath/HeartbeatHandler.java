package io.jetstream.kafka.relay.datapath;

import java.util.concurrent.TimeUnit;

import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.core.protocol.PingFrame;
import io.jetstream.kafka.core.protocol.PongFrame;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.transport.PingTimer;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.ScheduledFuture;

/**
 * Heartbeats of an authenticated connection: answers every PING with a PONG (while the peer reads
 * what it is sent, {@link ControlWrites#advisory}), sends a PING every
 * {@code heartbeat.interval.ms} (busy or not, so that round-trip times are measured under load and
 * the peer always hears from this relay, even while the relay has stopped reading it), and records
 * each round trip as the peer's {@code jetstream_relay_peer_rtt_ms}, timed from when the PING left
 * the outbound queue ({@link PingTimer}), so batches queued ahead of it do not count. Writer-idle events are
 * consumed here (the periodic PING covers them); a connection silent for {@code idle.timeout.ms}
 * is closed further down the pipeline.
 */
final class HeartbeatHandler extends ChannelInboundHandlerAdapter {

    private final Session session;
    private final RelayMetrics metrics;
    private final long intervalNanos;
    private final Clock clock;
    private final PingTimer pings;
    private ScheduledFuture<?> pinger;

    HeartbeatHandler(Session session, RelayMetrics metrics, long intervalNanos, Clock clock) {
        this.clock = clock;
        this.pings = new PingTimer(clock);
        this.session = session;
        this.metrics = metrics;
        this.intervalNanos = intervalNanos;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        pinger = ctx.executor().scheduleAtFixedRate(
                () -> pings.ping(ctx, clock.nanoTime()),
                intervalNanos, intervalNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        stop();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        stop();
        super.channelInactive(ctx);
    }

    private void stop() {
        if (pinger != null) {
            pinger.cancel(false);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof PingFrame ping) {
            ControlWrites.advisory(ctx.channel(), ping.pong(), metrics); // a peer that does not read gets none
        } else if (msg instanceof PongFrame pong) {
            long rttNanos = pings.rttNanos(pong, clock.nanoTime());
            if (rttNanos > 0) {
                session.metrics().rttSeconds().set(rttNanos / 1e9);
            }
        } else {
            ctx.fireChannelRead(msg);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent idle && idle.state() == IdleState.WRITER_IDLE) {
            return;
        }
        super.userEventTriggered(ctx, evt);
    }
}
