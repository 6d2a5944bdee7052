package io.jetstream.kafka.core.protocol.codec;

import static io.jetstream.kafka.core.wire.ProtocolException.Kind.MALFORMED;
import static io.jetstream.kafka.core.wire.ProtocolException.Kind.TRUNCATED;

import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.FrameType;
import io.jetstream.kafka.core.wire.FrameLength;
import io.jetstream.kafka.core.wire.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.util.ReferenceCountUtil;

/**
 * Encodes and decodes JetStream frames on Netty {@link ByteBuf}s.
 *
 * <pre>
 * +----------------+--------------+------------------------------------------+
 * | length (int32) | type (uint8) | body: layout per type, see the XxxCodec  |
 * +----------------+--------------+------------------------------------------+
 *                   \_____________ length bytes _____________________________/
 * </pre>
 * All integers are big-endian; {@code string} is {@code uint16} length + UTF-8. Body layouts:
 * {@link HelloCodec}, {@link HelloOkCodec}, {@link BatchFrameCodec} (with {@link RoutingCodec}),
 * {@link AckCodec}, {@link SubscribeCodec}, {@link SubscribeOkCodec}, {@link PingCodec},
 * {@link PongCodec}, {@link TopicMetadataCodec}, {@link ErrorCodec}, {@link BatchesFrameCodec}.
 *
 * <h2>Decoding guarantees</h2>
 * <ul>
 *   <li>The length prefix is checked against {@link #maxFrameBytes()} as soon as its four bytes are
 *       readable, before the body arrives and before anything is allocated
 *       ({@code FRAME_TOO_LARGE}).
 *   <li>Every field is read within the frame's own bytes; every string, list and count is checked
 *       against the bytes left first; the body must be consumed exactly.
 *   <li>Bad input raises {@link ProtocolException} with a {@link ProtocolException.Kind}, never
 *       another exception, and leaves no buffer retained. The stream cannot be resynchronised after an
 *       error: answer with an ERROR frame and close.
 * </ul>
 *
 * <h2>Buffer ownership</h2>
 * <ul>
 *   <li>Decoding never releases its input; the caller keeps its reference (Netty's
 *       {@code ByteToMessageDecoder} releases its cumulation itself). A decoded {@link BatchFrame}
 *       holds its own reference to a slice of the input (no copy) and must be released by its last
 *       holder; other frames hold no buffers.
 *   <li>{@link #encode(Frame, ByteBufAllocator)} returns a new buffer the caller owns (typically
 *       passed to {@code ctx.write}, which releases it). For a BATCH it is a composite of a freshly
 *       encoded header and a retained slice of the payload: the payload is not copied, and the frame
 *       passed in is not released. The same for a BATCHES frame and its sections.
 *   <li>{@link #encode(Frame, ByteBuf)} copies the whole frame into {@code out}.
 * </ul>
 *
 * <h2>Layouts</h2>
 * BATCH, BATCHES, TOPIC_METADATA and ACK have two layouts: without and with a {@code mac} field (see
 * {@link io.jetstream.kafka.core.protocol.FrameMac}). Which one a connection uses is agreed in its
 * handshake ({@code HelloFrame.FLAG_MACS}, confirmed in HELLO_OK); a codec speaks one of them
 * ({@link #macs()}, {@link #withMacs(boolean)}). Encoding a frame that carries a MAC with a codec
 * without the field drops the MAC; encoding one without a MAC with a codec that has the field writes
 * an empty one. A raw frame ({@link #readFrame}) keeps the layout it arrived in: forward it as bytes
 * only to a connection that uses the same layout.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class FrameCodec {

    /** Offset of the hop index in a raw BATCH or TOPIC_METADATA frame (see {@link RoutingCodec}). */
    public static final int HOP_INDEX_OFFSET = RoutingCodec.HOP_INDEX_OFFSET;

    private static final int SMALL_FRAME_ESTIMATE = 128;

    private final int maxFrameBytes;
    private final boolean macs;

    /** A codec with the default 16 MiB frame limit, without {@code mac} fields. */
    public FrameCodec() {
        this(FrameLength.DEFAULT_MAX_FRAME_BYTES);
    }

    /** @param maxFrameBytes largest accepted and produced {@code length} field, at least 1024 */
    public FrameCodec(int maxFrameBytes) {
        this(maxFrameBytes, false);
    }

    /**
     * @param maxFrameBytes largest accepted and produced {@code length} field, at least 1024
     * @param macs          whether BATCH, TOPIC_METADATA and ACK have their {@code mac} field (the
     *                      connection's handshake agreed on {@code HelloFrame.FLAG_MACS})
     */
    public FrameCodec(int maxFrameBytes, boolean macs) {
        this.maxFrameBytes = FrameLength.checkMaxFrameBytes(maxFrameBytes);
        this.macs = macs;
    }

    public int maxFrameBytes() {
        return maxFrameBytes;
    }

    /** Whether BATCH, TOPIC_METADATA and ACK are read and written with their {@code mac} field. */
    public boolean macs() {
        return macs;
    }

    /** This codec with or without the {@code mac} fields. */
    public FrameCodec withMacs(boolean withMacs) {
        return withMacs == macs ? this : new FrameCodec(maxFrameBytes, withMacs);
    }

    /**
     * Splits one complete raw frame (length prefix included) off {@code in}, for callers that
     * forward frames as bytes (see {@link #setHopIndex}).
     *
     * @return a retained slice the caller must release, or null when the frame is not complete yet
     *     ({@code in} is then untouched)
     * @throws ProtocolException FRAME_TOO_LARGE or MALFORMED as soon as the length prefix is readable
     */
    public ByteBuf readFrame(ByteBuf in) {
        int length = completeFrameLength(in);
        return length < 0 ? null : in.readRetainedSlice(FrameLength.PREFIX_BYTES + length);
    }

    /**
     * Decodes the next frame if it is complete: the body of a Netty {@code ByteToMessageDecoder}.
     *
     * @return the frame, or null when more bytes are needed ({@code in} is then untouched)
     * @throws ProtocolException when the input is not a valid frame; the bad frame's bytes are
     *     consumed if its length was valid
     */
    public Frame tryDecode(ByteBuf in) {
        int length = completeFrameLength(in);
        if (length < 0) {
            return null;
        }
        int bodyStart = in.readerIndex() + FrameLength.PREFIX_BYTES;
        in.readerIndex(bodyStart + length);
        return decodeBody(in.slice(bodyStart, length));
    }

    /**
     * Decodes one frame that must be complete in {@code in}; bytes after it are left unread.
     *
     * @throws ProtocolException TRUNCATED when {@code in} ends before the frame does, or any other
     *     decoding failure
     */
    public Frame decode(ByteBuf in) {
        Frame frame = tryDecode(in);
        if (frame == null) {
            int readable = in.readableBytes();
            String declared = readable >= FrameLength.PREFIX_BYTES
                    ? "declares " + in.getInt(in.readerIndex()) + " bytes after the length prefix"
                    : "has no complete length prefix";
            throw new ProtocolException(TRUNCATED, "input of " + readable + " bytes " + declared);
        }
        return frame;
    }

    /**
     * Encodes a frame into a new buffer owned by the caller. A BATCH payload is not copied: the
     * result references it (retained slice); the frame itself is not released.
     *
     * @throws IllegalArgumentException if the encoded frame would exceed {@link #maxFrameBytes()}
     */
    public ByteBuf encode(Frame frame, ByteBufAllocator alloc) {
        ByteBuf content = content(frame);
        if (content != null) {
            return encodeAround(frame, content, alloc);
        }
        ByteBuf out = alloc.buffer(SMALL_FRAME_ESTIMATE);
        try {
            encode(frame, out);
            return out;
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
    }

    /**
     * Appends the encoded frame, payload included (copied), to {@code out}. On failure {@code out}'s
     * writer index is restored.
     *
     * @throws IllegalArgumentException if the encoded frame would exceed {@link #maxFrameBytes()}
     */
    public void encode(Frame frame, ByteBuf out) {
        int start = out.writerIndex();
        try {
            out.writeInt(0);
            out.writeByte(frame.type().code());
            ByteBuf content = content(frame);
            if (content != null) {
                encodeHeaderBefore(frame, out);
                int contentBytes = content.readableBytes();
                out.setInt(start, checkEncodedLength(frame, out.writerIndex() - start - 4 + (long) contentBytes));
                out.writeBytes(content, content.readerIndex(), contentBytes);
            } else {
                codecFor(frame).encode(frame, out, macs);
                out.setInt(start, checkEncodedLength(frame, out.writerIndex() - start - 4));
            }
        } catch (RuntimeException e) {
            out.writerIndex(start);
            throw e;
        }
    }

    /**
     * Rewrites the hop index of a raw BATCH or TOPIC_METADATA frame in place (the frame starts at
     * {@code rawFrame.readerIndex()}), so a relay can forward the received bytes unchanged apart from
     * one byte. The caller has decoded the header and knows {@code hopIndex} is on the path.
     */
    public static void setHopIndex(ByteBuf rawFrame, int hopIndex) {
        int start = rawFrame.readerIndex();
        if (rawFrame.readableBytes() <= HOP_INDEX_OFFSET) {
            throw new IllegalArgumentException(
                    "buffer of " + rawFrame.readableBytes() + " bytes is not a routed frame");
        }
        int type = rawFrame.getUnsignedByte(start + FrameLength.PREFIX_BYTES);
        if (type != FrameType.BATCH.code() && type != FrameType.BATCHES.code()
                && type != FrameType.TOPIC_METADATA.code()) {
            throw new IllegalArgumentException("frame type " + type + " carries no hop index");
        }
        if (hopIndex < 0 || hopIndex > 0xFF) {
            throw new IllegalArgumentException("hopIndex " + hopIndex + " is outside 0..255");
        }
        rawFrame.setByte(start + HOP_INDEX_OFFSET, hopIndex);
    }

    /** Length field of the complete frame at the reader index, or -1 when it is not complete. */
    private int completeFrameLength(ByteBuf in) {
        if (in.readableBytes() < FrameLength.PREFIX_BYTES) {
            return -1;
        }
        int length = FrameLength.validate(in.getInt(in.readerIndex()), maxFrameBytes);
        return in.readableBytes() - FrameLength.PREFIX_BYTES < length ? -1 : length;
    }

    private Frame decodeBody(ByteBuf body) {
        FrameType type = FrameType.forCode(body.readUnsignedByte());
        BodyReader reader = new BodyReader(body, type, macs);
        Frame frame;
        try {
            frame = codecFor(type).decode(reader);
        } catch (IllegalArgumentException e) {
            // A frame constructor rejected a decoded value (range, emptiness, consistency).
            throw new ProtocolException(MALFORMED, type + ": " + e.getMessage(), e);
        }
        if (reader.remaining() != 0) {
            ReferenceCountUtil.release(frame);
            reader.expectEnd();
        }
        return frame;
    }

    /** The buffer a BATCH (its payload) or BATCHES frame (its sections) carries after its header, else null. */
    private static ByteBuf content(Frame frame) {
        if (frame instanceof BatchFrame batch) {
            return batch.payload();
        }
        return frame instanceof BatchesFrame batches ? batches.body() : null;
    }

    /** Everything of a BATCH or BATCHES frame before its {@link #content}. */
    private void encodeHeaderBefore(Frame frame, ByteBuf out) {
        if (frame instanceof BatchFrame batch) {
            BatchFrameCodec.INSTANCE.encodeHeader(batch.header(), out, macs);
        } else {
            BatchesFrameCodec.INSTANCE.encodeHeader((BatchesFrame) frame, out, macs);
        }
    }

    /** A freshly encoded header and a retained slice of {@code content} (not copied), as one composite. */
    private ByteBuf encodeAround(Frame frame, ByteBuf content, ByteBufAllocator alloc) {
        ByteBuf header = alloc.buffer(SMALL_FRAME_ESTIMATE);
        try {
            header.writeInt(0);
            header.writeByte(frame.type().code());
            encodeHeaderBefore(frame, header);
            long length = header.readableBytes() - 4 + (long) content.readableBytes();
            header.setInt(0, checkEncodedLength(frame, length));
        } catch (RuntimeException e) {
            header.release();
            throw e;
        }
        CompositeByteBuf out = alloc.compositeBuffer(2);
        out.addComponents(true, header, content.retainedSlice());
        return out;
    }

    private int checkEncodedLength(Frame frame, long length) {
        if (length > maxFrameBytes) {
            throw new IllegalArgumentException(frame.type() + " frame of " + length + " bytes exceeds the maximum of "
                    + maxFrameBytes + " bytes");
        }
        return (int) length;
    }

    @SuppressWarnings("unchecked")
    private static BodyCodec<Frame> codecFor(Frame frame) {
        return (BodyCodec<Frame>) codecFor(frame.type());
    }

    private static BodyCodec<? extends Frame> codecFor(FrameType type) {
        switch (type) {
            case HELLO:
                return HelloCodec.INSTANCE;
            case HELLO_OK:
                return HelloOkCodec.INSTANCE;
            case BATCH:
                return BatchFrameCodec.INSTANCE;
            case ACK:
                return AckCodec.INSTANCE;
            case SUBSCRIBE:
                return SubscribeCodec.INSTANCE;
            case SUBSCRIBE_OK:
                return SubscribeOkCodec.INSTANCE;
            case PING:
                return PingCodec.INSTANCE;
            case PONG:
                return PongCodec.INSTANCE;
            case TOPIC_METADATA:
                return TopicMetadataCodec.INSTANCE;
            case ERROR:
                return ErrorCodec.INSTANCE;
            case BATCHES:
                return BatchesFrameCodec.INSTANCE;
            default:
                throw new IllegalStateException("no codec for " + type);
        }
    }
}
