package io.jetstream.kafka.core.protocol.codec;

import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.netty.buffer.ByteBuf;

/**
 * The routing block that opens the body of every routed frame (BATCH, TOPIC_METADATA).
 *
 * <pre>
 * frame offset
 *   0 +--------+
 *     | length | int32
 *   4 +--------+
 *     | type   | uint8
 *   5 +--------+
 *     | hop    | uint8   hopIndex: fixed offset {@value #HOP_INDEX_OFFSET}
 *   6 +--------+
 *     | id     | int64   batch id or metadata id
 *  14 +--------+--------------+-------------+-----------+--------------------------+
 *     | streamId | originNodeId | destination | pathCount | pathCount x hop "host:port"|
 *     | string   | string       | string      | uint8     | string                    |
 *     +----------+--------------+-------------+-----------+---------------------------+
 * </pre>
 * The hop index sits at a fixed offset so that a relay holding the raw frame can advance it in
 * place ({@link FrameCodec#advanceHopInPlace}); relays that work on decoded frames re-encode this
 * small header and reuse the payload slice instead.
 */
final class RoutingCodec {

    /** Offset of the {@code uint8} hop index from the start of the frame (length prefix included). */
    static final int HOP_INDEX_OFFSET = 5;

    private RoutingCodec() {
    }

    static void encode(RoutingHeader routing, ByteBuf out) {
        out.writeByte(routing.hopIndex());
        out.writeLong(routing.id());
        BodyWriter.writeString(out, routing.streamId());
        BodyWriter.writeString(out, routing.originNodeId());
        BodyWriter.writeString(out, routing.destination());
        BodyWriter.writeStringList(out, routing.path());
    }

    static RoutingHeader decode(BodyReader in) {
        int hopIndex = in.readUnsignedByte("hopIndex");
        long id = in.readLong("id");
        String streamId = in.readString("streamId");
        String originNodeId = in.readString("originNodeId");
        String destination = in.readString("destination");
        return new RoutingHeader(streamId, id, originNodeId, destination,
                in.readStringList("path", RoutingHeader.MAX_HOPS), hopIndex);
    }
}
