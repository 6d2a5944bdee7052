package io.jetstream.kafka.transport;

import java.util.List;

import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.codec.FrameCodec;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;

/**
 * Writes {@link Frame}s as bytes with {@link FrameCodec#encode(Frame, io.netty.buffer.ByteBufAllocator)}.
 *
 * <p>A {@link BatchFrame} becomes a composite buffer of a freshly encoded header (typically
 * 100-250 bytes) and a retained slice of its payload: the payload is never copied, so a relay
 * forwards the bytes it received and a socket writes them with one gathering write. The frame
 * written is released once encoded (it is the written message; the composite holds its own
 * reference to the payload). Anything that is not a {@code Frame} (e.g. a {@code ByteBuf}) passes
 * through untouched.
 *
 * <p>A frame above the codec's maximum fails the write with an {@code EncoderException} and is
 * released. Stateless and {@link ChannelHandler.Sharable}.
 */
@ChannelHandler.Sharable
public final class FrameEncoderHandler extends MessageToMessageEncoder<Frame> {

    private final FrameCodec codec;

    /** @param maxFrameBytes largest {@code length} this side writes (at least 1024) */
    public FrameEncoderHandler(int maxFrameBytes) {
        super(Frame.class);
        this.codec = new FrameCodec(maxFrameBytes);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Frame frame, List<Object> out) {
        out.add(codec.encode(frame, ctx.alloc()));
    }
}
