package io.jetstream.kafka.relay.testing;

import java.util.concurrent.CompletableFuture;

import io.jetstream.kafka.relay.server.DataPipelineContext;
import io.jetstream.kafka.relay.server.DataPipelineFactory;
import io.jetstream.kafka.relay.server.DrainStartedEvent;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * TEST ONLY: a stand-in for the data path that echoes every byte back. It is not the relay's data
 * path and lives in the test sources so that no production code can register it.
 *
 * <p>It follows the contract of {@link DataPipelineFactory} the way real handlers must: with
 * AUTO_READ off it reads once when active and again only after the previous echo was written
 * (backpressure as in Netty's proxy example), and it records the {@link DrainStartedEvent} and the
 * context it was given so tests can assert on them.
 */
public final class TestOnlyEchoPipelineFactory implements DataPipelineFactory {

    /** Completes with the first drain event any channel received. */
    public final CompletableFuture<DrainStartedEvent> drainStarted = new CompletableFuture<>();
    /** Completes with the context of the first channel initialised. */
    public final CompletableFuture<DataPipelineContext> context = new CompletableFuture<>();

    @Override
    public void initChannel(Channel channel, DataPipelineContext context) {
        this.context.complete(context);
        channel.pipeline().addLast("test-echo", new ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) throws Exception {
                ctx.read();
                super.channelActive(ctx);
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ctx.writeAndFlush(msg).addListener((ChannelFutureListener) f -> {
                    if (f.isSuccess()) {
                        ctx.read();
                    } else {
                        f.channel().close();
                    }
                });
            }

            @Override
            public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
                if (evt instanceof DrainStartedEvent drain) {
                    drainStarted.complete(drain);
                }
                super.userEventTriggered(ctx, evt);
            }
        });
    }

    @Override
    public String description() {
        return "TEST ONLY echo";
    }
}
