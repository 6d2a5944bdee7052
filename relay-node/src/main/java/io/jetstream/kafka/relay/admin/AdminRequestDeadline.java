package io.jetstream.kafka.relay.admin;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.util.concurrent.ScheduledFuture;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A total deadline per admin request, against slow clients (slowloris): a request must have been
 * read completely within {@code admin.request.timeout.ms} of the connection's accept, and each
 * next request on a kept-alive connection within that time of the end of the previous one. Unlike
 * a read timeout, bytes trickled in do not extend it.
 *
 * <p>Two handlers share one deadline: this one, first in the pipeline, sees the raw bytes (to
 * tell a request in progress from an idle connection) and owns the timer; {@link #requestRead()},
 * placed after the aggregator, sees each complete request and starts the next deadline. When the
 * deadline passes the connection is closed: counted (as {@code admin_request_timeout}) when a
 * request was unfinished or none had begun since the accept, not when a kept-alive connection was
 * merely idle after its last answer. One instance per connection, on its event loop.
 */
final class AdminRequestDeadline extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(AdminRequestDeadline.class);

    private final long timeoutNanos;
    private final CounterDataPoint timeouts;
    private ScheduledFuture<?> timer;
    private boolean completedARequest;
    private boolean bytesSinceLastRequest;

    /** @param timeouts counts the connections closed with a request unfinished */
    AdminRequestDeadline(Duration timeout, CounterDataPoint timeouts) {
        this.timeoutNanos = timeout.toNanos();
        this.timeouts = Objects.requireNonNull(timeouts, "timeouts");
    }

    /** The handler to place after the HTTP aggregator: each complete request starts the next deadline. */
    ChannelInboundHandlerAdapter requestRead() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof FullHttpRequest) {
                    completedARequest = true;
                    bytesSinceLastRequest = false;
                    arm(ctx);
                }
                ctx.fireChannelRead(msg);
            }
        };
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        // Added while the channel is initialised, just after its accept: the first deadline runs from here.
        arm(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf bytes && bytes.isReadable()) {
            bytesSinceLastRequest = true;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        cancel();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancel();
    }

    private void arm(ChannelHandlerContext ctx) {
        cancel();
        timer = ctx.executor().schedule(() -> expire(ctx), timeoutNanos, TimeUnit.NANOSECONDS);
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private void expire(ChannelHandlerContext ctx) {
        timer = null;
        if (!ctx.channel().isActive()) {
            return;
        }
        boolean idleAfterAnswer = completedARequest && !bytesSinceLastRequest;
        if (idleAfterAnswer) {
            log.debug("Closing idle admin connection {}", ctx.channel());
        } else {
            timeouts.inc();
            log.debug("Closing admin connection {}: no complete request within {} ms (admin.request.timeout.ms)",
                    ctx.channel(), TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
        }
        ctx.close();
    }
}
