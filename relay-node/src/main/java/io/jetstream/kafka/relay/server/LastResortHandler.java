package io.jetstream.kafka.relay.server;

import java.io.IOException;

import javax.net.ssl.SSLException;

import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Last handler of every data pipeline: whatever the data-path handlers did not handle ends here,
 * is counted and never leaks.
 *
 * <ul>
 *   <li>an inbound message: released, counted as {@code internal}, connection closed (a message
 *       nobody consumes is a bug, and holding the connection open would hide it);</li>
 *   <li>an exception: counted by kind ({@code tls_handshake}, {@code io}, {@code malformed_frame}
 *       for decoder failures, else {@code internal}), logged with the peer, connection closed;</li>
 *   <li>{@code READER_IDLE}: nothing read for {@code idle.timeout.ms}; counted as
 *       {@code idle_timeout} and closed. Other idle events (heartbeats) are the data path's job.</li>
 *   <li>a failed TLS handshake: counted as {@code tls_handshake} (the SslHandler closes).</li>
 * </ul>
 */
@ChannelHandler.Sharable
final class LastResortHandler extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(LastResortHandler.class);

    private final RelayMetrics metrics;

    LastResortHandler(RelayMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        String type = msg.getClass().getName();
        ReferenceCountUtil.release(msg);
        metrics.errors(ErrorKind.INTERNAL).inc();
        log.warn("Closing {}: no data-path handler consumed an inbound {}", ctx.channel(), type);
        ctx.close();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent idle && idle.state() == IdleState.READER_IDLE) {
            metrics.errors(ErrorKind.IDLE_TIMEOUT).inc();
            log.info("Closing {}: nothing received within idle.timeout.ms", ctx.channel());
            ctx.close();
        } else if (evt instanceof SslHandshakeCompletionEvent handshake && !handshake.isSuccess()) {
            metrics.errors(ErrorKind.TLS_HANDSHAKE).inc();
            log.info("TLS handshake with {} failed: {}", ctx.channel().remoteAddress(), handshake.cause().toString());
        }
        ReferenceCountUtil.release(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ErrorKind kind = classify(cause);
        // A failed handshake also fires SslHandshakeCompletionEvent, counted in userEventTriggered.
        boolean countedAsHandshake = kind == ErrorKind.TLS_HANDSHAKE && !handshakeDone(ctx);
        if (!countedAsHandshake) {
            metrics.errors(kind).inc();
        }
        if (kind == ErrorKind.INTERNAL) {
            log.error("Closing {} after an unexpected error", ctx.channel(), cause);
        } else {
            log.debug("Closing {} after {}", ctx.channel(), kind.label(), cause);
        }
        // Flush what is queued (e.g. an error frame) before closing, like Netty's closeOnFlush.
        if (ctx.channel().isActive()) {
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private static boolean handshakeDone(ChannelHandlerContext ctx) {
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        return ssl != null && ssl.handshakeFuture().isSuccess();
    }

    static ErrorKind classify(Throwable cause) {
        if (cause instanceof DecoderException decoder && decoder.getCause() instanceof SSLException) {
            return ErrorKind.TLS_HANDSHAKE;
        }
        if (cause instanceof SSLException) {
            return ErrorKind.TLS_HANDSHAKE;
        }
        if (cause instanceof TooLongFrameException) {
            return ErrorKind.FRAME_TOO_LARGE;
        }
        if (cause instanceof DecoderException) {
            return ErrorKind.MALFORMED_FRAME;
        }
        if (cause instanceof IOException) {
            return ErrorKind.IO;
        }
        return ErrorKind.INTERNAL;
    }
}
