package io.jetstream.kafka.core.protocol.codec;

import io.jetstream.kafka.core.protocol.PongFrame;
import io.netty.buffer.ByteBuf;

/**
 * PONG (type 8): answer to a PING, echoing its fields.
 *
 * <pre>
 * +--------+------+-------+-------------+
 * | length | type | nonce | sentAtNanos |
 * | int32  | 0x08 | int64 | int64       |
 * +--------+------+-------+-------------+
 * </pre>
 */
final class PongCodec implements BodyCodec<PongFrame> {

    static final PongCodec INSTANCE = new PongCodec();

    @Override
    public void encode(PongFrame frame, ByteBuf out) {
        out.writeLong(frame.nonce());
        out.writeLong(frame.sentAtNanos());
    }

    @Override
    public PongFrame decode(BodyReader in) {
        return new PongFrame(in.readLong("nonce"), in.readLong("sentAtNanos"));
    }
}
