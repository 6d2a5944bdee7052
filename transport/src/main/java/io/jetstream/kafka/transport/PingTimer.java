package io.jetstream.kafka.transport;

import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.core.protocol.PingFrame;
import io.jetstream.kafka.core.protocol.PongFrame;
import io.netty.channel.ChannelHandlerContext;
import java.util.Objects;

/**
 * Times heartbeats from the moment a PING leaves this side's outbound queue, not from when it was
 * queued. A PING written behind megabytes of batches waits its turn in the channel's outbound
 * buffer; counting that wait would report the local queue as the path's round trip (a 1.6 s
 * "round trip" on a 50 ms link was seen that way). What remains in a sample is the network, the
 * kernel's send queue, and the peer's queue in front of its PONG.
 *
 * <p>One PING is timed at a time (heartbeats are seconds apart); a PONG for any other nonce falls
 * back to the PING's own timestamp. Confined to the channel's event loop.
 */
public final class PingTimer {

    private final Clock clock;

    private long nextNonce;
    private long timedNonce = -1;
    /** How long the timed PING waited in the local outbound queue; -1 until its write completed. */
    private long queuedNanos = -1;

    /** @param clock the clock of the {@code nowNanos} values given to {@link #ping} and {@link #rttNanos} */
    public PingTimer(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Writes and flushes the next PING, and notes when it actually leaves. */
    public void ping(ChannelHandlerContext ctx, long nowNanos) {
        long nonce = nextNonce++;
        timedNonce = nonce;
        queuedNanos = -1;
        ctx.writeAndFlush(new PingFrame(nonce, nowNanos)).addListener(written -> {
            if (written.isSuccess() && timedNonce == nonce) {
                queuedNanos = Math.max(0, clock.nanoTime() - nowNanos);
            }
        });
    }

    /** The round trip a PONG shows, without the PING's wait in the local queue; 0 or less if unusable. */
    public long rttNanos(PongFrame pong, long nowNanos) {
        long total = pong.rttNanos(nowNanos);
        if (pong.nonce() == timedNonce && queuedNanos >= 0) {
            return total - queuedNanos;
        }
        return total;
    }
}
