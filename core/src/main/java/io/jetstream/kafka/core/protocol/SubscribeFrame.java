package io.jetstream.kafka.core.protocol;

/**
 * A sink-site task subscribes to a share of a stream's origin partitions at an egress relay: it
 * receives the batches of every partition with {@code Shares.owner(topic, partition, shareCount) ==
 * shareIndex}. Answered by {@link SubscribeOkFrame} or an {@link ErrorFrame}.
 *
 * @param streamId stream to receive
 * @param subscriberId stable id of the subscribing task (a newer subscription with the same share replaces it)
 * @param shareIndex this task's share, {@code 0 <= shareIndex < shareCount}
 * @param shareCount number of shares the stream's partitions are split into (the sink task count), 1..65535
 */
public record SubscribeFrame(String streamId, String subscriberId, int shareIndex, int shareCount) implements Frame {

    public SubscribeFrame {
        WireStrings.checkNotEmpty(streamId, "streamId");
        WireStrings.checkNotEmpty(subscriberId, "subscriberId");
        Shares.checkShare(shareIndex, shareCount);
    }

    @Override
    public FrameType type() {
        return FrameType.SUBSCRIBE;
    }
}
