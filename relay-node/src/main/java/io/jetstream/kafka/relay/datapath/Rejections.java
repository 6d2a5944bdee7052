package io.jetstream.kafka.relay.datapath;

import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Refusing a peer: count the error by kind, answer ERROR, close once it is flushed. */
final class Rejections {

    private static final Logger log = LoggerFactory.getLogger(Rejections.class);

    private Rejections() {
    }

    static void reject(ChannelHandlerContext ctx, RelayMetrics metrics, ErrorKind kind, ErrorCode code, String message) {
        metrics.errors(kind).inc();
        log.debug("Closing {} ({}): {}", ctx.channel(), kind.label(), message);
        if (ctx.channel().isActive()) {
            ctx.writeAndFlush(ErrorFrame.of(code, message)).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.close();
        }
    }
}
