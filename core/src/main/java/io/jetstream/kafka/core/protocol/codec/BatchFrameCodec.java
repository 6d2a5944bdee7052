package io.jetstream.kafka.core.protocol.codec;

import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.netty.buffer.ByteBuf;

/**
 * BATCH (type 3): a routing header readable without decompressing, then the payload.
 *
 * <pre>
 * +--------+------+---------------------------------------------------------------+
 * | length | type | routing block (see RoutingCodec): hop, id, streamId,          |
 * | int32  | 0x03 | originNodeId, destination, path                               |
 * +--------+------+---------------------------------------------------------------+
 * +-----------+------------+-------------+------------+-------------+-----------------+
 * | partition | prevOffset | firstOffset | lastOffset | recordCount | createdAtMillis |
 * | int32     | int64      | int64       | int64      | int32       | int64           |
 * +-----------+------------+-------------+------------+-------------+-----------------+
 * +-------+------------------+--------+--------+----------------------------------+
 * | codec | uncompressedSize | crc32c | topic  | payload                          |
 * | uint8 | int32            | int32  | string | (rest of the frame)              |
 * +-------+------------------+--------+--------+----------------------------------+
 *
 * with FLAG_MACS agreed in the handshake, a mac field before the payload:
 * +-------+------------------+--------+--------+-----------+-----------+-----------------------+
 * | codec | uncompressedSize | crc32c | topic  | macLength | mac       | payload               |
 * | uint8 | int32            | int32  | string | uint8     | 0 or 32 B | (rest of the frame)   |
 * +-------+------------------+--------+--------+-----------+-----------+-----------------------+
 * </pre>
 * The payload is everything after the topic up to the end of the frame; it is handed out as a
 * retained slice of the input, never copied. It is not inspected here: CRC, size and record format
 * are checked by {@link io.jetstream.kafka.core.batch.BatchDecoder} at the destination (and optionally by
 * {@link BatchFrame#verifyChecksum()} at the ingress).
 */
final class BatchFrameCodec implements BodyCodec<BatchFrame> {

    static final BatchFrameCodec INSTANCE = new BatchFrameCodec();

    @Override
    public void encode(BatchFrame frame, ByteBuf out) {
        encode(frame, out, false);
    }

    @Override
    public void encode(BatchFrame frame, ByteBuf out, boolean macs) {
        encodeHeader(frame.header(), out, macs);
        out.writeBytes(frame.payload(), frame.payload().readerIndex(), frame.payload().readableBytes());
    }

    /** Writes everything but the payload; the MAC only with {@code macs} (else it is dropped). */
    void encodeHeader(BatchHeader header, ByteBuf out, boolean macs) {
        RoutingCodec.encode(header.routing(), out);
        out.writeInt(header.partition());
        out.writeLong(header.prevOffset());
        out.writeLong(header.firstOffset());
        out.writeLong(header.lastOffset());
        out.writeInt(header.recordCount());
        out.writeLong(header.createdAtMillis());
        out.writeByte(header.codec().id());
        out.writeInt(header.uncompressedSize());
        out.writeInt(header.crc32c());
        BodyWriter.writeString(out, header.topic());
        if (macs) {
            BodyWriter.writeMac(out, header.mac());
        }
    }

    @Override
    public BatchFrame decode(BodyReader in) {
        RoutingHeader routing = RoutingCodec.decode(in);
        int partition = in.readInt("partition");
        long prevOffset = in.readLong("prevOffset");
        long firstOffset = in.readLong("firstOffset");
        long lastOffset = in.readLong("lastOffset");
        int recordCount = in.readInt("recordCount");
        long createdAtMillis = in.readLong("createdAtMillis");
        CompressionCodec codec = CompressionCodec.forId(in.readUnsignedByte("codec"));
        int uncompressedSize = in.readInt("uncompressedSize");
        int crc32c = in.readInt("crc32c");
        String topic = in.readString("topic");
        BatchHeader header = new BatchHeader(routing, topic, partition, prevOffset, firstOffset, lastOffset,
                recordCount, createdAtMillis, codec, uncompressedSize, crc32c, in.readMac());
        // Last step: nothing after this can fail, so the retained payload cannot leak.
        return new BatchFrame(header, in.readRetainedRest());
    }
}
