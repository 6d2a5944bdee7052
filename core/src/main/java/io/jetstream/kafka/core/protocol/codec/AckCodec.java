package io.jetstream.kafka.core.protocol.codec;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.protocol.AckStatus;
import io.netty.buffer.ByteBuf;

/**
 * ACK (type 4), travelling back from the destination-site task (or a relay that gave up) to the origin sender.
 *
 * <pre>
 * +--------+------+---------+--------+--------+-----------+------------+
 * | length | type | batchId | status | reason | partition | lastOffset |
 * | int32  | 0x04 | int64   | uint8  | uint8  | int32     | int64      |
 * +--------+------+---------+--------+--------+-----------+------------+
 * +----------+--------------+--------+---------+
 * | streamId | originNodeId | topic  | message |
 * | string   | string       | string | string  |
 * +----------+--------------+--------+---------+
 *
 * with FLAG_MACS agreed in the handshake, a mac field after the message:
 * +----------+--------------+--------+---------+-----------+-----------+
 * | streamId | originNodeId | topic  | message | macLength | mac       |
 * | string   | string       | string | string  | uint8     | 0 or 32 B |
 * +----------+--------------+--------+---------+-----------+-----------+
 * </pre>
 */
final class AckCodec implements BodyCodec<AckFrame> {

    static final AckCodec INSTANCE = new AckCodec();

    @Override
    public void encode(AckFrame frame, ByteBuf out) {
        encode(frame, out, false);
    }

    @Override
    public void encode(AckFrame frame, ByteBuf out, boolean macs) {
        out.writeLong(frame.batchId());
        out.writeByte(frame.status().code());
        out.writeByte(frame.reason().code());
        out.writeInt(frame.partition());
        out.writeLong(frame.lastOffset());
        BodyWriter.writeString(out, frame.streamId());
        BodyWriter.writeString(out, frame.originNodeId());
        BodyWriter.writeString(out, frame.topic());
        BodyWriter.writeString(out, frame.message());
        if (macs) {
            BodyWriter.writeMac(out, frame.mac());
        }
    }

    @Override
    public AckFrame decode(BodyReader in) {
        long batchId = in.readLong("batchId");
        AckStatus status = AckStatus.forCode(in.readUnsignedByte("status"));
        AckReason reason = AckReason.forCode(in.readUnsignedByte("reason"));
        int partition = in.readInt("partition");
        long lastOffset = in.readLong("lastOffset");
        String streamId = in.readString("streamId");
        String originNodeId = in.readString("originNodeId");
        String topic = in.readString("topic");
        String message = in.readString("message");
        return new AckFrame(streamId, originNodeId, batchId, status, reason, topic, partition, lastOffset, message,
                in.readMac());
    }
}
