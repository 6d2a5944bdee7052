package io.jetstream.kafka.core.protocol.codec;

import io.jetstream.kafka.core.protocol.PingFrame;
import io.netty.buffer.ByteBuf;

/**
 * PING (type 7): heartbeat and round-trip probe. PONG (type 8, {@link PongCodec}) has the same body.
 *
 * <pre>
 * +--------+------+-------+-------------+
 * | length | type | nonce | sentAtNanos |
 * | int32  | 0x07 | int64 | int64       |
 * +--------+------+-------+-------------+
 * </pre>
 */
final class PingCodec implements BodyCodec<PingFrame> {

    static final PingCodec INSTANCE = new PingCodec();

    @Override
    public void encode(PingFrame frame, ByteBuf out) {
        out.writeLong(frame.nonce());
        out.writeLong(frame.sentAtNanos());
    }

    @Override
    public PingFrame decode(BodyReader in) {
        return new PingFrame(in.readLong("nonce"), in.readLong("sentAtNanos"));
    }
}
