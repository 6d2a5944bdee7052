package io.jetstream.kafka.relay.datapath;

import java.time.Duration;

import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Refusing a peer: count the error by kind, answer ERROR, close once it is flushed. */
final class Rejections {

    private static final Logger log = LoggerFactory.getLogger(Rejections.class);

    private Rejections() {
    }

    /** Whether {@code evt} is the reader-idle event of {@code idle.timeout.ms}. */
    static boolean isReaderIdle(Object evt) {
        return evt instanceof IdleStateEvent idle && idle.state() == IdleState.READER_IDLE;
    }

    /** Closes a connection that sent nothing for {@code idle.timeout.ms}, telling the peer why. */
    static void idle(ChannelHandlerContext ctx, RelayMetrics metrics, Duration timeout) {
        reject(ctx, metrics, ErrorKind.IDLE_TIMEOUT, ErrorCode.IDLE_TIMEOUT,
                "nothing received for " + timeout.toMillis() + " ms (idle.timeout.ms)");
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
