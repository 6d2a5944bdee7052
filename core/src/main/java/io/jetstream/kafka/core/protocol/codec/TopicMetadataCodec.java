package io.jetstream.kafka.core.protocol.codec;

import static io.jetstream.kafka.core.wire.ProtocolException.Kind.MALFORMED;

import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.core.wire.ProtocolException;
import io.netty.buffer.ByteBuf;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.Uuid;

/**
 * TOPIC_METADATA (type 9): an origin topic's description, routed like a batch.
 *
 * <pre>
 * +--------+------+---------------------------------------------------------------+
 * | length | type | routing block (see RoutingCodec): hop, id (= metadata id),    |
 * | int32  | 0x09 | streamId, originNodeId, destination, path                     |
 * +--------+------+---------------------------------------------------------------+
 * +----------------+--------+---------------------+------------+-------------+----------------------------+
 * | partitionCount | topic  | topicId             | generation | configCount | configCount x (key, value) |
 * | int32          | string | int64 msb, int64 lsb| int64 >= 0 | uint16      | string, string             |
 * +----------------+--------+---------------------+------------+-------------+----------------------------+
 *
 * with FLAG_MACS agreed in the handshake, a mac field after the configs:
 * +----------------------------+-----------+-----------+
 * | configCount x (key, value) | macLength | mac       |
 * | string, string             | uint8     | 0 or 32 B |
 * +----------------------------+-----------+-----------+
 * </pre>
 * Config keys are unique (a repeated key is {@code MALFORMED}); encoders write them sorted. The
 * {@code topicId} (all zero when unknown) and {@code generation} are new in protocol version 2: a
 * version 1 peer is refused at HELLO ({@code UNSUPPORTED_VERSION}), never read with this layout. A
 * negative generation is {@code MALFORMED}.
 */
final class TopicMetadataCodec implements BodyCodec<TopicMetadataFrame> {

    static final TopicMetadataCodec INSTANCE = new TopicMetadataCodec();

    @Override
    public void encode(TopicMetadataFrame frame, ByteBuf out) {
        encode(frame, out, false);
    }

    @Override
    public void encode(TopicMetadataFrame frame, ByteBuf out, boolean macs) {
        RoutingCodec.encode(frame.routing(), out);
        out.writeInt(frame.partitionCount());
        BodyWriter.writeString(out, frame.topic());
        out.writeLong(frame.topicId().getMostSignificantBits());
        out.writeLong(frame.topicId().getLeastSignificantBits());
        out.writeLong(frame.generation());
        out.writeShort(frame.configs().size());
        for (Map.Entry<String, String> config : frame.configs().entrySet()) {
            BodyWriter.writeString(out, config.getKey());
            BodyWriter.writeString(out, config.getValue());
        }
        if (macs) {
            BodyWriter.writeMac(out, frame.mac());
        }
    }

    @Override
    public TopicMetadataFrame decode(BodyReader in) {
        RoutingHeader routing = RoutingCodec.decode(in);
        int partitionCount = in.readInt("partitionCount");
        String topic = in.readString("topic");
        Uuid topicId = new Uuid(in.readLong("topicId"), in.readLong("topicId"));
        long generation = in.readLong("generation");
        if (generation < 0) {
            throw new ProtocolException(MALFORMED, "TOPIC_METADATA generation " + generation + " is negative");
        }
        int count = in.readUnsignedShort("configCount");
        in.need("configs", 4 * count); // each entry has two length prefixes at least
        Map<String, String> configs = new HashMap<>(count * 2);
        for (int i = 0; i < count; i++) {
            String key = in.readString("configKey");
            if (configs.put(key, in.readString("configValue")) != null) {
                throw new ProtocolException(MALFORMED, "TOPIC_METADATA repeats config key '" + key + "'");
            }
        }
        return new TopicMetadataFrame(routing, topic, partitionCount, configs, topicId, generation, in.readMac());
    }
}
