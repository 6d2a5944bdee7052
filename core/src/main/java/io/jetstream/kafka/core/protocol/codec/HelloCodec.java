package io.jetstream.kafka.core.protocol.codec;

import io.jetstream.kafka.core.protocol.HelloFrame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.ProtocolVersion;
import io.jetstream.kafka.core.wire.ProtocolException;
import io.netty.buffer.ByteBuf;

/**
 * HELLO (type 1), the first frame of every connection.
 *
 * <pre>
 * +--------+------+---------+--------+-------+--------+----------+--------+-----------+
 * | length | type | version | role   | flags | nodeId | streamId | authToken          |
 * | int32  | 0x01 | uint16  | uint8  | uint16| string | string   | string             |
 * +--------+------+---------+--------+-------+--------+----------+--------------------+
 * string = uint16 length + UTF-8 bytes
 * </pre>
 * The version comes first and is checked before any other field: an unsupported version raises
 * {@code UNSUPPORTED_VERSION} whatever follows, because later versions may lay out the rest
 * differently.
 */
final class HelloCodec implements BodyCodec<HelloFrame> {

    static final HelloCodec INSTANCE = new HelloCodec();

    @Override
    public void encode(HelloFrame frame, ByteBuf out) {
        out.writeShort(frame.version());
        out.writeByte(frame.role().code());
        out.writeShort(frame.flags());
        BodyWriter.writeString(out, frame.nodeId());
        BodyWriter.writeString(out, frame.streamId());
        BodyWriter.writeString(out, frame.authToken());
    }

    @Override
    public HelloFrame decode(BodyReader in) {
        int version = in.readUnsignedShort("version");
        checkVersion(version, "HELLO");
        PeerRole role = PeerRole.forCode(in.readUnsignedByte("role"));
        int flags = in.readUnsignedShort("flags");
        return new HelloFrame(version, role, flags, in.readString("nodeId"), in.readString("streamId"),
                in.readString("authToken"));
    }

    static void checkVersion(int version, String frame) {
        if (!ProtocolVersion.isSupported(version)) {
            throw new ProtocolException(ProtocolException.Kind.UNSUPPORTED_VERSION, frame + " version " + version
                    + " is not supported (supported: " + ProtocolVersion.supportedRange() + ")");
        }
    }
}
