package io.jetstream.kafka.relay.datapath;

import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.Shares;
import io.jetstream.kafka.core.protocol.SubscribeFrame;
import io.jetstream.kafka.relay.metrics.PeerMetrics;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.util.ReferenceCountUtil;

/**
 * A subscribed destination-site task, as a {@link Downstream} of the egress: batches of the partitions
 * its share owns are written to its connection. Lives as long as that connection.
 */
final class SubscriberLink implements Downstream {

    private final Channel channel;
    private final Session session;
    private final SubscribeFrame subscription;
    private final Waiters waiters = new Waiters();
    private volatile boolean closed;

    SubscriberLink(Channel channel, Session session, SubscribeFrame subscription) {
        this.channel = channel;
        this.session = session;
        this.subscription = subscription;
    }

    SubscribeFrame subscription() {
        return subscription;
    }

    boolean owns(String topic, int partition) {
        return Shares.owns(subscription.shareIndex(), subscription.shareCount(), topic, partition);
    }

    /** Whether both split the stream into the same number of shares. */
    boolean sameSplit(SubscriberLink other) {
        return subscription.shareCount() == other.subscription.shareCount();
    }

    /** {@code "index/count"} of a subscription, for messages. */
    static String share(SubscribeFrame subscription) {
        return subscription.shareIndex() + "/" + subscription.shareCount();
    }

    /** {@code "1 share"}, {@code "2 shares"}: a split, for messages. */
    static String shares(int count) {
        return count + (count == 1 ? " share" : " shares");
    }

    boolean sameShare(SubscriberLink other) {
        return subscription.shareIndex() == other.subscription.shareIndex()
                && subscription.shareCount() == other.subscription.shareCount();
    }

    @Override
    public String peerId() {
        return session.peerId();
    }

    @Override
    public String streamId() {
        return session.streamId();
    }

    @Override
    public PeerMetrics metrics() {
        return session.metrics();
    }

    @Override
    public long epoch() {
        return closed ? 1 : 0;
    }

    @Override
    public boolean send(Frame frame, Runnable onWritten) {
        if (closed || !channel.isActive()) {
            ReferenceCountUtil.release(frame);
            return false;
        }
        channel.writeAndFlush(frame).addListener(written -> onWritten.run());
        return true;
    }

    @Override
    public boolean holdsBack() {
        return !closed && channel.isActive() && !channel.isWritable();
    }

    @Override
    public void awaitWritable(UpstreamHandler upstream) {
        waiters.add(upstream);
    }

    void writabilityChanged() {
        if (channel.isWritable()) {
            waiters.wakeAll();
        }
    }

    /**
     * A newer subscription took this one's partitions (a newer instance of the same task, the new
     * tasks of a rescale, or someone with the subscriber token): the connection is told why and
     * closed (its in-flight batches are then failed back upstream, to be re-sent to the new holder).
     * A stale connection of the same instance (same subscriber id and share) is closed without the
     * ERROR, which would tell a live client to stop.
     */
    void supersede(SubscriberLink by) {
        closed = true;
        if (by.subscription.subscriberId().equals(subscription.subscriberId()) && sameShare(by)) {
            channel.close();
            return;
        }
        String split = sameSplit(by) ? "" : ", splitting the stream into " + shares(by.subscription.shareCount())
                + " instead of " + shares(subscription.shareCount());
        channel.writeAndFlush(ErrorFrame.of(ErrorCode.SUPERSEDED, "share " + share(subscription) + " of stream "
                        + session.streamId() + " is taken over by " + by.session.peerId() + " (share "
                        + share(by.subscription) + ", epoch " + by.subscription.epoch() + " >= "
                        + subscription.epoch() + split + ")"))
                .addListener(ChannelFutureListener.CLOSE);
    }

    /** The connection closed: nothing more is sent; waiters re-check (and find it gone). */
    void close() {
        closed = true;
        waiters.wakeAll();
    }

    @Override
    public String toString() {
        return "subscriber " + session.peerId() + " share " + share(subscription);
    }
}
