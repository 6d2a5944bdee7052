package io.jetstream.kafka.core.protocol.codec;

import io.jetstream.kafka.core.protocol.SubscribeOkFrame;
import io.netty.buffer.ByteBuf;

/**
 * SUBSCRIBE_OK (type 6), confirming a SUBSCRIBE.
 *
 * <pre>
 * +--------+------+------------+------------+----------+
 * | length | type | shareIndex | shareCount | streamId |
 * | int32  | 0x06 | uint16     | uint16     | string   |
 * +--------+------+------------+------------+----------+
 * </pre>
 */
final class SubscribeOkCodec implements BodyCodec<SubscribeOkFrame> {

    static final SubscribeOkCodec INSTANCE = new SubscribeOkCodec();

    @Override
    public void encode(SubscribeOkFrame frame, ByteBuf out) {
        out.writeShort(frame.shareIndex());
        out.writeShort(frame.shareCount());
        BodyWriter.writeString(out, frame.streamId());
    }

    @Override
    public SubscribeOkFrame decode(BodyReader in) {
        int shareIndex = in.readUnsignedShort("shareIndex");
        int shareCount = in.readUnsignedShort("shareCount");
        return new SubscribeOkFrame(in.readString("streamId"), shareIndex, shareCount);
    }
}
