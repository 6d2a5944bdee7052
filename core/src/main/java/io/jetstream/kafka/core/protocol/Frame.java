package io.jetstream.kafka.core.protocol;

/**
 * One protocol frame, decoded. Values are immutable records; only {@link BatchFrame} and
 * {@link BatchesFrame} hold a reference-counted buffer (a payload, the sections) and must be released by whoever holds it last (it is a
 * Netty {@code ByteBufHolder}, so {@code ReferenceCountUtil.release(frame)} works for every frame).
 * Encoding and decoding live in {@code core.protocol.codec.FrameCodec}.
 */
public sealed interface Frame
        permits HelloFrame, HelloOkFrame, BatchFrame, BatchesFrame, AckFrame, SubscribeFrame, SubscribeOkFrame, PingFrame,
        PongFrame, TopicMetadataFrame, ErrorFrame {

    FrameType type();
}
