package io.jetstream.kafka.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.core.protocol.PingFrame;
import io.jetstream.kafka.core.protocol.PongFrame;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PingTimerTest {

    private final EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    private final ChannelHandlerContext ctx = channel.pipeline().firstContext();
    private final PingTimer timer = new PingTimer(Clock.system());

    @Test
    void aPingsWaitInTheLocalQueueIsNotPartOfTheRoundTrip() {
        long queuedAt = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(800);
        timer.ping(ctx, queuedAt); // leaves "now", 800 ms after it was queued

        PingFrame ping = channel.readOutbound();
        long rtt = timer.rttNanos(ping.pong(), System.nanoTime());

        assertThat(ping.pong().rttNanos(System.nanoTime())).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(800));
        assertThat(rtt).isBetween(0L, TimeUnit.MILLISECONDS.toNanos(400));
    }

    @Test
    void aPongForAnotherPingFallsBackToItsOwnTimestamp() {
        long sentAt = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(50);
        timer.ping(ctx, System.nanoTime());
        channel.readOutbound();

        long rtt = timer.rttNanos(new PongFrame(41, sentAt), System.nanoTime());

        assertThat(rtt).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
    }
}
