package io.jetstream.kafka.core.protocol.codec;

import io.jetstream.kafka.core.protocol.Frame;
import io.netty.buffer.ByteBuf;

/**
 * Encodes and decodes the body of one frame type (everything after the type byte). Implementations
 * are stateless singletons. A decoder may throw {@link IllegalArgumentException} from a frame
 * constructor; {@link FrameCodec} reports it as {@code MALFORMED}.
 */
interface BodyCodec<F extends Frame> {

    void encode(F frame, ByteBuf out);

    F decode(BodyReader in);
}
