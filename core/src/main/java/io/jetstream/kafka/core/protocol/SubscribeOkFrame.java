package io.jetstream.kafka.core.protocol;

/** Confirms a {@link SubscribeFrame}; echoes the share it registered. */
public record SubscribeOkFrame(String streamId, int shareIndex, int shareCount) implements Frame {

    public SubscribeOkFrame {
        WireStrings.checkNotEmpty(streamId, "streamId");
        Shares.checkShare(shareIndex, shareCount);
    }

    public static SubscribeOkFrame of(SubscribeFrame subscribe) {
        return new SubscribeOkFrame(subscribe.streamId(), subscribe.shareIndex(), subscribe.shareCount());
    }

    @Override
    public FrameType type() {
        return FrameType.SUBSCRIBE_OK;
    }
}
