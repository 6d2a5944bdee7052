package io.jetstream.kafka.core.protocol.codec;

import io.jetstream.kafka.core.protocol.HelloOkFrame;
import io.netty.buffer.ByteBuf;

/**
 * HELLO_OK (type 2), accepting a HELLO.
 *
 * <pre>
 * +--------+------+---------+--------+---------------+--------+
 * | length | type | version | flags  | maxFrameBytes | nodeId |
 * | int32  | 0x02 | uint16  | uint16 | int32         | string |
 * +--------+------+---------+--------+---------------+--------+
 * </pre>
 */
final class HelloOkCodec implements BodyCodec<HelloOkFrame> {

    static final HelloOkCodec INSTANCE = new HelloOkCodec();

    @Override
    public void encode(HelloOkFrame frame, ByteBuf out) {
        out.writeShort(frame.version());
        out.writeShort(frame.flags());
        out.writeInt(frame.maxFrameBytes());
        BodyWriter.writeString(out, frame.nodeId());
    }

    @Override
    public HelloOkFrame decode(BodyReader in) {
        int version = in.readUnsignedShort("version");
        HelloCodec.checkVersion(version, "HELLO_OK");
        int flags = in.readUnsignedShort("flags");
        int maxFrameBytes = in.readInt("maxFrameBytes");
        return new HelloOkFrame(version, flags, in.readString("nodeId"), maxFrameBytes);
    }
}
