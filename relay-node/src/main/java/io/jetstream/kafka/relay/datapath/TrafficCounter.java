package io.jetstream.kafka.relay.datapath;

import io.jetstream.kafka.relay.metrics.PeerMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/**
 * Counts the bytes a connection reads and writes (frame headers included) into its peer's series.
 * Sits before the frame codec, so it sees raw bytes. The peer is known only after HELLO: bytes
 * before that are held and added when {@link #bind} names the peer. One instance per channel;
 * every call on its event loop.
 */
final class TrafficCounter extends ChannelDuplexHandler {

    private PeerMetrics peer;
    private long unboundIn;
    private long unboundOut;

    void bind(PeerMetrics metrics) {
        this.peer = metrics;
        metrics.bytesIn().inc(unboundIn);
        metrics.bytesOut().inc(unboundOut);
        unboundIn = 0;
        unboundOut = 0;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf buf) {
            if (peer != null) {
                peer.bytesIn().inc(buf.readableBytes());
            } else {
                unboundIn += buf.readableBytes();
            }
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof ByteBuf buf) {
            if (peer != null) {
                peer.bytesOut().inc(buf.readableBytes());
            } else {
                unboundOut += buf.readableBytes();
            }
        }
        ctx.write(msg, promise);
    }
}
