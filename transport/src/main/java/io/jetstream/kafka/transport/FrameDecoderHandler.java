package io.jetstream.kafka.transport;

import java.util.List;
import java.util.Objects;

import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.codec.FrameCodec;
import io.jetstream.kafka.core.wire.FrameLength;
import io.jetstream.kafka.core.wire.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits the byte stream of a connection into {@link Frame}s with
 * {@link FrameCodec#tryDecode(ByteBuf)}.
 *
 * <pre>
 * +----------------+--------------+------------------------------------------+
 * | length (int32) | type (uint8) | body (length - 1 bytes), layout per type |
 * +----------------+--------------+------------------------------------------+
 *   checked against maxFrameBytes as soon as these 4 bytes are readable,
 *   before the body is waited for or anything is allocated for it
 * </pre>
 *
 * <h2>Limits</h2>
 * The limit may be raised once the peer is trusted ({@link #maxFrameBytes(int)}): a server starts
 * a connection with a small, HELLO-sized limit and opens it to its full {@code frame.max.bytes}
 * only after the handshake succeeded, so that a stranger cannot make it hold more than a HELLO.
 * Memory follows the bytes that arrived, never the length a peer declares: see
 * {@link #FRAME_SIZED_CUMULATOR}.
 * *
 * <h2>Bad input</h2>
 * A {@link ProtocolException} leaves the stream unsynchronised, so the handler
 * <ol>
 *   <li>tells the {@link TransportErrorListener} (which counts it by kind);</li>
 *   <li>discards every byte it holds or will receive on this connection;</li>
 *   <li>optionally writes an {@code ERROR} frame naming the problem ({@link ErrorFrame#of(ProtocolException)},
 *       encoded here, so the pipeline order of the encoder does not matter), and closes the
 *       connection once it is flushed.</li>
 * </ol>
 * A connection that ends in the middle of a frame is reported as {@code TRUNCATED}.
 *
 * <h2>Buffers</h2>
 * A decoded {@code BatchFrame} holds a retained slice of the received bytes (no copy): whoever
 * consumes it releases it. The cumulation buffer is released by {@link ByteToMessageDecoder}. Nothing
 * is retained on any error path.
 *
 * <p>Not sharable: one instance per channel (it holds the cumulation).
 */
public final class FrameDecoderHandler extends ByteToMessageDecoder {

    private static final Logger log = LoggerFactory.getLogger(FrameDecoderHandler.class);

    private FrameCodec codec;
    private final TransportErrorListener errors;
    private final boolean answerWithError;
    private boolean failed;

    /**
     * @param maxFrameBytes   largest {@code length} accepted (at least 1024)
     * @param errors          told about each rejected input
     * @param answerWithError whether to send an ERROR frame before closing
     */
    public FrameDecoderHandler(int maxFrameBytes, TransportErrorListener errors, boolean answerWithError) {
        this.codec = new FrameCodec(maxFrameBytes);
        this.errors = Objects.requireNonNull(errors, "errors");
        this.answerWithError = answerWithError;
        setCumulator(FRAME_SIZED_CUMULATOR);
    }

    /**
     * Like Netty's merge cumulator, but when the buffer must grow for a frame that spans socket
     * reads, it grows towards the whole frame (its length prefix is known by then) by at most twice
     * the bytes it will hold: never more than double what the peer actually sent, so a length prefix
     * alone reserves nothing (100 strangers declaring 16 MiB each and sending 20 KB hold about
     * 4 MB, not 1.6 GB), while a large batch still needs only a few re-allocations (one per
     * doubling) instead of one per socket read. Writes into a buffer that decoded frames still share
     * only in its unused capacity (as Netty's does), never moving memory they refer to.
     */
    static final Cumulator FRAME_SIZED_CUMULATOR = (alloc, cumulation, in) -> {
        if (cumulation == in) {
            in.release();
            return cumulation;
        }
        if (!cumulation.isReadable() && in.isContiguous()) {
            cumulation.release();
            return in;
        }
        try {
            int incoming = in.readableBytes();
            if (incoming <= cumulation.maxFastWritableBytes() && !cumulation.isReadOnly()) {
                cumulation.writeBytes(in, in.readerIndex(), incoming);
                in.readerIndex(in.writerIndex());
                return cumulation;
            }
            int held = cumulation.readableBytes();
            long target = (long) held + incoming;
            if (held >= FrameLength.PREFIX_BYTES) {
                // The decoder has validated this prefix against the maximum frame size already.
                long frame = FrameLength.PREFIX_BYTES + (long) cumulation.getInt(cumulation.readerIndex());
                target = Math.max(target, Math.min(frame, 2 * target));
            }
            ByteBuf grown = alloc.buffer((int) Math.min(Integer.MAX_VALUE, target));
            grown.writeBytes(cumulation, cumulation.readerIndex(), held);
            grown.writeBytes(in, in.readerIndex(), incoming);
            in.readerIndex(in.writerIndex());
            cumulation.release();
            return grown;
        } finally {
            in.release();
        }
    };

    /** The largest {@code length} accepted now. */
    public int maxFrameBytes() {
        return codec.maxFrameBytes();
    }

    /**
     * Changes the largest {@code length} accepted from the next frame on, e.g. from a HELLO-sized
     * limit to {@code frame.max.bytes} once the handshake has succeeded. Call on the channel's event
     * loop, after the frame that justifies it was decoded (frames are passed on one by one, so the
     * next prefix is checked against the new limit).
     *
     * @param maxFrameBytes at least 1024
     */
    public void maxFrameBytes(int maxFrameBytes) {
        if (maxFrameBytes != codec.maxFrameBytes()) {
            codec = new FrameCodec(maxFrameBytes, codec.macs());
        }
    }

    /** Whether BATCH, TOPIC_METADATA and ACK are decoded with their {@code mac} field. */
    public boolean macs() {
        return codec.macs();
    }

    /**
     * Decodes BATCH, TOPIC_METADATA and ACK with (or without) their {@code mac} field from the next
     * frame on, once the handshake agreed on it ({@code HelloFrame.FLAG_MACS}). Call on the channel's
     * event loop, as for {@link #maxFrameBytes(int)}.
     */
    public void macs(boolean macs) {
        codec = codec.withMacs(macs);
    }

    /** Whether the connection has been failed for bad input (every later byte is discarded). */
    public boolean failed() {
        return failed;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        try {
            Frame frame = codec.tryDecode(in);
            if (frame != null) {
                out.add(frame);
            }
        } catch (ProtocolException e) {
            fail(ctx, in, e, answerWithError);
        }
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        decode(ctx, in, out);
        if (!failed && in.isReadable()) {
            // The peer closed in the middle of a frame: count it, there is nobody left to answer.
            fail(ctx, in, new ProtocolException(ProtocolException.Kind.TRUNCATED, "connection closed after "
                    + in.readableBytes() + " bytes of an incomplete frame"), false);
        }
    }

    private void fail(ChannelHandlerContext ctx, ByteBuf in, ProtocolException e, boolean answer) {
        failed = true;
        in.skipBytes(in.readableBytes());
        log.debug("Closing {}: {}", ctx.channel(), e.getMessage());
        errors.onProtocolError(ctx.channel(), e);
        if (answer && ctx.channel().isActive()) {
            ctx.writeAndFlush(codec.encode(ErrorFrame.of(e), ctx.alloc())).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.close();
        }
    }
}
