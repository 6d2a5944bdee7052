package io.jetstream.kafka.relay.datapath;

import java.time.Duration;
import java.util.List;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.SubscribeFrame;
import io.jetstream.kafka.core.protocol.SubscribeOkFrame;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.server.DrainStartedEvent;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A destination-site task subscribed at this relay (its egress): one SUBSCRIBE for the connection's
 * stream registers its share ({@code SUBSCRIBE_OK}); from then on batches of the partitions it owns
 * are written to it and its ACKs travel back upstream. The connection is always read (it carries
 * only small ACKs and heartbeats, and every ACK frees buffer space); what is written to it is
 * bounded by the relay's budgets, and upstreams stop reading while it is not writable. When it
 * closes, every batch pending on it is nacked {@code NEXT_HOP_UNREACHABLE} upstream at once.
 */
final class SubscriberHandler extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(SubscriberHandler.class);

    private final Session session;
    private final RelayMetrics metrics;
    private final Duration idleTimeout;
    private final Drain drain;
    private final Subscribers subscribers;
    private final AckPath acks;
    private final String relayId;
    private final Duration epochMaxAhead;
    private SubscriberLink link;
    private boolean rejected;

    /**
     * @param subscribers where the subscription is registered
     * @param acks        where the subscriber's ACKs go, and which fails what is pending on it when it closes
     * @param epochMaxAhead {@code subscribe.epoch.max.ahead.ms}, named in refusals (the rule is the subscribers')
     */
    SubscriberHandler(Session session, RelayMetrics metrics, Duration idleTimeout, Drain drain, Subscribers subscribers,
                      AckPath acks, String relayId, Duration epochMaxAhead) {
        this.session = session;
        this.metrics = metrics;
        this.idleTimeout = idleTimeout;
        this.drain = drain;
        this.subscribers = subscribers;
        this.acks = acks;
        this.relayId = relayId;
        this.epochMaxAhead = epochMaxAhead;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (rejected) {
            ReferenceCountUtil.release(msg);
        } else if (msg instanceof AckFrame ack) {
            if (link == null) {
                metrics.errors(ErrorKind.UNKNOWN_ACK).inc();
            } else {
                acks.onAck(ack, link);
            }
        } else if (msg instanceof SubscribeFrame subscribe) {
            subscribe(ctx, subscribe);
        } else if (msg instanceof ErrorFrame error) {
            log.info("{} sent ERROR {}: {}; closing", session, error.code(), error.message());
            ctx.close();
        } else {
            String what = msg instanceof Frame f ? f.type().toString() : msg.getClass().getSimpleName();
            ReferenceCountUtil.release(msg);
            reject(ctx, ErrorKind.UNEXPECTED_FRAME, ErrorCode.UNEXPECTED_FRAME,
                    what + " frames are not accepted from a SUBSCRIBER");
        }
    }

    private void subscribe(ChannelHandlerContext ctx, SubscribeFrame subscribe) {
        if (link != null) {
            reject(ctx, ErrorKind.UNEXPECTED_FRAME, ErrorCode.UNEXPECTED_FRAME, "this connection already subscribed");
            return;
        }
        if (!subscribe.streamId().equals(session.streamId())) {
            reject(ctx, ErrorKind.NOT_AUTHORIZED, ErrorCode.NOT_AUTHORIZED, "subscription to stream '"
                    + subscribe.streamId() + "' on a connection authenticated for '" + session.streamId() + "'");
            return;
        }
        SubscriberLink candidate = new SubscriberLink(ctx.channel(), session, subscribe);
        Subscribers.Registration registration = subscribers.register(session.streamId(), candidate);
        switch (registration.outcome()) {
            case EPOCH_AHEAD -> refuseEpochAhead(ctx, subscribe, registration.aheadMillis());
            case HELD -> refuseHeld(ctx, candidate, registration.holder());
            case REGISTERED -> registered(ctx, candidate, registration.replaced());
        }
    }

    private void refuseEpochAhead(ChannelHandlerContext ctx, SubscribeFrame subscribe, long aheadMillis) {
        String problem = "epoch " + subscribe.epoch() + " of the subscription to share " + SubscriberLink.share(subscribe)
                + " of stream " + subscribe.streamId() + " is " + aheadMillis + " ms ahead of relay "
                + relayId + "'s clock, more than subscribe.epoch.max.ahead.ms (" + epochMaxAhead.toMillis()
                + "): an epoch is when the subscribing task instance started";
        log.warn("{} refused: {}; a clock far ahead on its Connect worker, or someone with the subscriber token"
                + " trying to hold the share against restarted tasks", session, problem);
        reject(ctx, ErrorKind.EPOCH_AHEAD, ErrorCode.NOT_AUTHORIZED, problem);
    }

    private void refuseHeld(ChannelHandlerContext ctx, SubscriberLink candidate, SubscriberLink holder) {
        SubscribeFrame subscribe = candidate.subscription();
        String problem = "share " + SubscriberLink.share(subscribe) + " of stream " + subscribe.streamId()
                + " is held by " + holder.peerId() + " (share " + SubscriberLink.share(holder.subscription())
                + "), a newer task instance (epoch " + holder.subscription().epoch() + " > " + subscribe.epoch() + ")"
                + (candidate.sameSplit(holder) ? "" : ": the stream is split into "
                        + SubscriberLink.shares(holder.subscription().shareCount()) + ", not "
                        + SubscriberLink.shares(subscribe.shareCount()));
        log.warn("{} refused: {}; a left-over task instance, or someone with the subscriber token?", session, problem);
        reject(ctx, ErrorKind.SUPERSEDED, ErrorCode.SUPERSEDED, problem);
    }

    private void registered(ChannelHandlerContext ctx, SubscriberLink candidate, List<SubscriberLink> replaced) {
        link = candidate;
        SubscribeFrame subscribe = candidate.subscription();
        ctx.writeAndFlush(SubscribeOkFrame.of(subscribe));
        for (SubscriberLink old : replaced) {
            metrics.errors(ErrorKind.SUPERSEDED).inc();
            boolean sameInstance = old.subscription().subscriberId().equals(subscribe.subscriberId())
                    && old.sameShare(candidate);
            if (sameInstance) {
                log.info("{} replaces its own earlier connection ({})", session, old);
            } else {
                log.warn("{} took over {} (epoch {} >= {}){}; its task is told SUPERSEDED. Unless this is a"
                        + " restarted or rescaled destination-site task, someone else holds the subscriber token",
                        session, old, subscribe.epoch(), old.subscription().epoch(), candidate.sameSplit(old) ? ""
                                : " splitting the stream into " + SubscriberLink.shares(subscribe.shareCount())
                                        + " instead of " + SubscriberLink.shares(old.subscription().shareCount()));
            }
            old.supersede(candidate);
        }
        log.info("{} subscribed to share {}", session, SubscriberLink.share(subscribe));
    }

    private void reject(ChannelHandlerContext ctx, ErrorKind kind, ErrorCode code, String message) {
        rejected = true;
        Rejections.reject(ctx, metrics, kind, code, message);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (!rejected) {
            ctx.read();
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (link != null) {
            link.writabilityChanged();
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (Rejections.isReaderIdle(evt)) {
            if (!rejected) {
                reject(ctx, ErrorKind.IDLE_TIMEOUT, ErrorCode.IDLE_TIMEOUT, "nothing received for "
                        + idleTimeout.toMillis() + " ms (idle.timeout.ms)");
            }
            return;
        }
        if (evt instanceof DrainStartedEvent) {
            drain.start();
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (link != null) {
            link.close();
            subscribers.remove(session.streamId(), link);
            acks.failThrough(link, Long.MAX_VALUE, "subscriber " + session.peerId() + " disconnected");
        }
        super.channelInactive(ctx);
    }
}
