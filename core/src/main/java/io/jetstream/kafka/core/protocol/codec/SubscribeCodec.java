package io.jetstream.kafka.core.protocol.codec;

import io.jetstream.kafka.core.protocol.SubscribeFrame;
import io.netty.buffer.ByteBuf;

/**
 * SUBSCRIBE (type 5), from a destination-site task to an egress relay.
 *
 * <pre>
 * +--------+------+------------+------------+-------+----------+--------------+
 * | length | type | shareIndex | shareCount | epoch | streamId | subscriberId |
 * | int32  | 0x05 | uint16     | uint16     | int64 | string   | string       |
 * +--------+------+------------+------------+-------+----------+--------------+
 * </pre>
 */
final class SubscribeCodec implements BodyCodec<SubscribeFrame> {

    static final SubscribeCodec INSTANCE = new SubscribeCodec();

    @Override
    public void encode(SubscribeFrame frame, ByteBuf out) {
        out.writeShort(frame.shareIndex());
        out.writeShort(frame.shareCount());
        out.writeLong(frame.epoch());
        BodyWriter.writeString(out, frame.streamId());
        BodyWriter.writeString(out, frame.subscriberId());
    }

    @Override
    public SubscribeFrame decode(BodyReader in) {
        int shareIndex = in.readUnsignedShort("shareIndex");
        int shareCount = in.readUnsignedShort("shareCount");
        long epoch = in.readLong("epoch"); // negative: the record constructor's rule, reported as MALFORMED
        return new SubscribeFrame(in.readString("streamId"), in.readString("subscriberId"), shareIndex, shareCount,
                epoch);
    }
}
