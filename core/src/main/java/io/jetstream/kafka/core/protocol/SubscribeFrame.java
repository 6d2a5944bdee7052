package io.jetstream.kafka.core.protocol;

/**
 * A destination-site task subscribes to a share of a stream's origin partitions at an egress relay: it
 * receives the batches of every partition with {@code Shares.owner(topic, partition, shareCount) ==
 * shareIndex}. Answered by {@link SubscribeOkFrame} or an {@link ErrorFrame}.
 *
 * @param streamId stream to receive
 * @param subscriberId stable id of the subscribing task (a newer subscription with the same share replaces it)
 * @param shareIndex this task's share, {@code 0 <= shareIndex < shareCount}
 * @param shareCount number of shares the stream's partitions are split into (the destination-site task count), 1..65535
 * @param epoch when the subscribing task instance started (epoch milliseconds, >= 0): of two
 *        subscriptions for the same share the relay keeps the one with the higher epoch and closes
 *        the other with {@code ERROR(SUPERSEDED)}, so a left-over instance (a task whose stop timed
 *        out) cannot take the share back from its successor by reconnecting
 */
public record SubscribeFrame(String streamId, String subscriberId, int shareIndex, int shareCount, long epoch)
        implements Frame {

    public SubscribeFrame {
        WireStrings.checkNotEmpty(streamId, "streamId");
        WireStrings.checkNotEmpty(subscriberId, "subscriberId");
        Shares.checkShare(shareIndex, shareCount);
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0, got " + epoch);
        }
    }

    /** A subscription with epoch 0: replaced by any later subscription of the same share. */
    public SubscribeFrame(String streamId, String subscriberId, int shareIndex, int shareCount) {
        this(streamId, subscriberId, shareIndex, shareCount, 0L);
    }

    @Override
    public FrameType type() {
        return FrameType.SUBSCRIBE;
    }
}
