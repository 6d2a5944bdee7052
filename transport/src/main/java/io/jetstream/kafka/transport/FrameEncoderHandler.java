package io.jetstream.kafka.transport;

import java.util.List;

import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.codec.FrameCodec;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import io.netty.util.AttributeKey;

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
 * <p>Layout: BATCH, TOPIC_METADATA and ACK are written with their {@code mac} field on a channel
 * whose handshake agreed on it ({@link #useMacs(Channel)}), without it (dropping any MAC) otherwise.
 *
 * <p>A frame above the codec's maximum fails the write with an {@code EncoderException} and is
 * released. Keeps no state of its own (the layout is the channel's) and is {@link ChannelHandler.Sharable}.
 */
@ChannelHandler.Sharable
public final class FrameEncoderHandler extends MessageToMessageEncoder<Frame> {

    /** Set on a channel whose frames have their {@code mac} fields. */
    private static final AttributeKey<Boolean> MACS = AttributeKey.valueOf(FrameEncoderHandler.class, "macs");

    private final FrameCodec codec;
    private final FrameCodec macCodec;

    /** @param maxFrameBytes largest {@code length} this side writes (at least 1024) */
    public FrameEncoderHandler(int maxFrameBytes) {
        super(Frame.class);
        this.codec = new FrameCodec(maxFrameBytes);
        this.macCodec = codec.withMacs(true);
    }

    /**
     * Writes BATCH, TOPIC_METADATA and ACK on {@code channel} with their {@code mac} field from now
     * on: the handshake agreed on {@code HelloFrame.FLAG_MACS}. Call on the channel's event loop before
     * writing the first such frame.
     */
    public static void useMacs(Channel channel) {
        channel.attr(MACS).set(Boolean.TRUE);
    }

    /** Whether {@code channel} writes the {@code mac} fields. */
    public static boolean usesMacs(Channel channel) {
        return Boolean.TRUE.equals(channel.attr(MACS).get());
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Frame frame, List<Object> out) {
        FrameCodec layout = usesMacs(ctx.channel()) ? macCodec : codec;
        out.add(layout.encode(frame, ctx.alloc()));
    }
}
