package io.jetstream.kafka.core.protocol.codec;

import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.netty.buffer.ByteBuf;

/**
 * ERROR (type 10), sent before closing a connection.
 *
 * <pre>
 * +--------+------+--------+---------+
 * | length | type | code   | message |
 * | int32  | 0x0A | uint16 | string  |
 * +--------+------+--------+---------+
 * </pre>
 */
final class ErrorCodec implements BodyCodec<ErrorFrame> {

    static final ErrorCodec INSTANCE = new ErrorCodec();

    @Override
    public void encode(ErrorFrame frame, ByteBuf out) {
        out.writeShort(frame.code().code());
        BodyWriter.writeString(out, frame.message());
    }

    @Override
    public ErrorFrame decode(BodyReader in) {
        ErrorCode code = ErrorCode.forCode(in.readUnsignedShort("code"));
        return new ErrorFrame(code, in.readString("message"));
    }
}
