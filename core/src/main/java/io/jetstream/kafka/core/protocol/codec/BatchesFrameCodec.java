package io.jetstream.kafka.core.protocol.codec;

import static io.jetstream.kafka.core.wire.ProtocolException.Kind.MALFORMED;

import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.FrameMac;
import io.jetstream.kafka.core.protocol.FrameType;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.wire.ProtocolException;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * BATCHES (type 11, since protocol version 3): one routing header, then the sections.
 *
 * <pre>
 * +--------+------+---------------------------------------------------+-----------------+--------------+
 * | length | type | routing block (see RoutingCodec): hop, id,         | createdAtMillis | sectionCount |
 * | int32  | 0x0B | streamId, originNodeId, destination, path          | int64           | uint16, >= 1 |
 * +--------+------+---------------------------------------------------+-----------------+--------------+
 * with FLAG_MACS agreed in the handshake, then: macLength uint8 (0 or 32), mac
 * then sectionCount sections, up to the end of the frame:
 * +--------+-----------+------------+-------------+------------+-------------+-------+
 * | topic  | partition | prevOffset | firstOffset | lastOffset | recordCount | codec |
 * | string | int32     | int64      | int64       | int64      | int32       | uint8 |
 * +--------+-----------+------------+-------------+------------+-------------+-------+
 * +------------------+--------+---------------+---------------------------+
 * | uncompressedSize | crc32c | payloadLength | payload                   |
 * | int32            | int32  | int32         | payloadLength bytes       |
 * +------------------+--------+---------------+---------------------------+
 * </pre>
 * Each section is what a BATCH frame carries about one partition, without the routing and creation
 * time the frame holds once. The sections are read in full and checked here (counts, ranges, the
 * body consumed exactly); their payloads are not inspected (CRC, size and record format are checked
 * by {@link io.jetstream.kafka.core.batch.BatchDecoder} at the destination, and optionally by
 * {@link BatchesFrame#verifyChecksums()} at the ingress). The decoded frame holds a retained slice of
 * the input: no copy.
 */
final class BatchesFrameCodec implements BodyCodec<BatchesFrame> {

    static final BatchesFrameCodec INSTANCE = new BatchesFrameCodec();

    @Override
    public void encode(BatchesFrame frame, ByteBuf out) {
        encode(frame, out, false);
    }

    @Override
    public void encode(BatchesFrame frame, ByteBuf out, boolean macs) {
        encodeHeader(frame, out, macs);
        out.writeBytes(frame.body(), frame.body().readerIndex(), frame.body().readableBytes());
    }

    /** Everything before the sections; the MAC only with {@code macs} (else it is dropped). */
    void encodeHeader(BatchesFrame frame, ByteBuf out, boolean macs) {
        RoutingCodec.encode(frame.routing(), out);
        out.writeLong(frame.createdAtMillis());
        out.writeShort(frame.sections().size());
        if (macs) {
            BodyWriter.writeMac(out, frame.mac());
        }
    }

    @Override
    public BatchesFrame decode(BodyReader in) {
        RoutingHeader routing = RoutingCodec.decode(in);
        long createdAtMillis = in.readLong("createdAtMillis");
        int count = in.readUnsignedShort("sectionCount");
        if (count == 0) {
            throw new ProtocolException(MALFORMED, FrameType.BATCHES + ".sectionCount is 0");
        }
        FrameMac mac = in.readMac();
        // Each section has at least its fixed fields and a topic length: checked before any list is sized.
        in.need("sections", count * (BatchesFrame.SECTION_FIXED_BYTES + 2));
        ByteBuf rest = in.restView();
        BodyReader sectionsIn = new BodyReader(rest.duplicate(), FrameType.BATCHES, false);
        List<BatchesFrame.Section> sections = new ArrayList<>(count);
        int start = rest.readerIndex();
        for (int i = 0; i < count; i++) {
            String topic = sectionsIn.readString("topic");
            int partition = sectionsIn.readInt("partition");
            long prevOffset = sectionsIn.readLong("prevOffset");
            long firstOffset = sectionsIn.readLong("firstOffset");
            long lastOffset = sectionsIn.readLong("lastOffset");
            int recordCount = sectionsIn.readInt("recordCount");
            CompressionCodec codec = CompressionCodec.forId(sectionsIn.readUnsignedByte("codec"));
            int uncompressedSize = sectionsIn.readInt("uncompressedSize");
            int crc32c = sectionsIn.readInt("crc32c");
            int payloadLength = sectionsIn.readInt("payloadLength");
            if (payloadLength < 0) {
                throw new ProtocolException(MALFORMED, FrameType.BATCHES + ".payloadLength " + payloadLength
                        + " is negative");
            }
            int payloadOffset = sectionsIn.readerIndex() - start;
            sectionsIn.skip("payload", payloadLength);
            sections.add(new BatchesFrame.Section(topic, partition, prevOffset, firstOffset, lastOffset, recordCount,
                    codec, uncompressedSize, crc32c, payloadOffset, payloadLength));
        }
        sectionsIn.expectEnd();
        ByteBuf body = in.readRetainedRest();
        try {
            return new BatchesFrame(routing, createdAtMillis, sections, body, mac);
        } catch (RuntimeException e) {
            body.release();
            throw e;
        }
    }
}
