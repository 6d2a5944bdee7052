package io.jetstream.kafka.core.protocol.codec;

import io.jetstream.kafka.core.protocol.Frame;
import io.netty.buffer.ByteBuf;

/**
 * Encodes and decodes the body of one frame type (everything after the type byte). Implementations
 * are stateless singletons. A decoder may throw {@link IllegalArgumentException} from a frame
 * constructor; {@link FrameCodec} reports it as {@code MALFORMED}.
 *
 * <p>Layouts with a {@code mac} field (BATCH, TOPIC_METADATA, ACK on a connection that agreed on
 * {@code HelloFrame.FLAG_MACS}): the encoder is told by {@code macs}, the decoder by
 * {@link BodyReader#macs()}. Frame types without such a field ignore both.
 */
interface BodyCodec<F extends Frame> {

    void encode(F frame, ByteBuf out);

    /** Encodes with or without the {@code mac} field; types that have none ignore {@code macs}. */
    default void encode(F frame, ByteBuf out, boolean macs) {
        encode(frame, out);
    }

    F decode(BodyReader in);
}
