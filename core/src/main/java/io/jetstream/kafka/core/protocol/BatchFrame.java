package io.jetstream.kafka.core.protocol;

import io.jetstream.kafka.core.batch.EncodedBatch;
import io.jetstream.kafka.core.batch.PayloadChecksum;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufHolder;
import java.util.Objects;

/**
 * A BATCH frame: routing header plus the payload bytes, which relays forward without decoding or
 * copying.
 *
 * <h2>Buffer ownership</h2>
 * A {@code BatchFrame} owns one reference to {@link #payload()}. Whoever holds the frame last calls
 * {@link #release()} exactly once (Netty's {@code ReferenceCountUtil.release(msg)} and
 * {@code SimpleChannelInboundHandler} do this for a {@code ByteBufHolder}).
 * <ul>
 *   <li>{@code FrameCodec.decode} returns a frame whose payload is a retained slice of the input
 *       buffer: no copy; the caller owns that reference.
 *   <li>{@code FrameCodec.encode(frame, alloc)} takes its own reference to the payload for the
 *       returned buffer and does not release the frame: the caller still releases the frame.
 *   <li>{@link #withRouting} and {@link #replace} return a frame that takes over this frame's
 *       reference (no retain): release the new frame, not both.
 * </ul>
 * {@link #equals} compares headers and readable payload bytes.
 */
public record BatchFrame(BatchHeader header, ByteBuf payload) implements Frame, ByteBufHolder {

    public BatchFrame {
        Objects.requireNonNull(header, "header");
        Objects.requireNonNull(payload, "payload");
    }

    /**
     * A frame for an encoded batch, copying its payload (which may be a borrowed encoder buffer) into
     * a new buffer from {@code alloc}. The caller owns the returned frame.
     */
    public static BatchFrame copyOf(RoutingHeader routing, EncodedBatch batch, long createdAtMillis,
            ByteBufAllocator alloc) {
        BatchHeader header = BatchHeader.of(routing, batch, createdAtMillis);
        ByteBuf payload = alloc.buffer(batch.payloadSize());
        payload.writeBytes(batch.payload().duplicate());
        return new BatchFrame(header, payload);
    }

    @Override
    public FrameType type() {
        return FrameType.BATCH;
    }

    /**
     * The payload paired with the header for {@link io.jetstream.kafka.core.batch.BatchDecoder}. The
     * returned buffer shares the payload memory (a copy only if the payload is a composite of several
     * buffers): use it before releasing this frame.
     */
    public EncodedBatch encodedBatch() {
        return header.toEncodedBatch(payload.nioBuffer());
    }

    /**
     * Checks the payload CRC32C without decoding it (an ingress relay may reject corrupt senders
     * early).
     *
     * @throws io.jetstream.kafka.core.wire.ProtocolException BAD_CRC on mismatch
     */
    public void verifyChecksum() {
        PayloadChecksum.verify(encodedBatch());
    }

    /** The same payload under new routing; ownership of the payload reference moves to the result. */
    public BatchFrame withRouting(RoutingHeader routing) {
        return new BatchFrame(header.withRouting(routing), payload);
    }

    /** The same payload under a header with {@code mac}; ownership of the payload reference moves to the result. */
    public BatchFrame withMac(FrameMac mac) {
        return new BatchFrame(header.withMac(mac), payload);
    }

    @Override
    public ByteBuf content() {
        return payload;
    }

    @Override
    public BatchFrame copy() {
        return replace(payload.copy());
    }

    @Override
    public BatchFrame duplicate() {
        return replace(payload.duplicate());
    }

    @Override
    public BatchFrame retainedDuplicate() {
        return replace(payload.retainedDuplicate());
    }

    @Override
    public BatchFrame replace(ByteBuf content) {
        return new BatchFrame(header, content);
    }

    @Override
    public int refCnt() {
        return payload.refCnt();
    }

    @Override
    public BatchFrame retain() {
        payload.retain();
        return this;
    }

    @Override
    public BatchFrame retain(int increment) {
        payload.retain(increment);
        return this;
    }

    @Override
    public BatchFrame touch() {
        payload.touch();
        return this;
    }

    @Override
    public BatchFrame touch(Object hint) {
        payload.touch(hint);
        return this;
    }

    @Override
    public boolean release() {
        return payload.release();
    }

    @Override
    public boolean release(int decrement) {
        return payload.release(decrement);
    }

    @Override
    public String toString() {
        RoutingHeader r = header.routing();
        return "BatchFrame[stream=" + r.streamId() + ", id=" + r.id() + ", origin=" + r.originNodeId() + ", hop="
                + r.hopIndex() + "/" + r.path() + ", " + header.topic() + "-" + header.partition() + " offsets "
                + header.firstOffset() + ".." + header.lastOffset() + " (prev " + header.prevOffset() + "), records="
                + header.recordCount() + ", codec=" + header.codec() + ", payload=" + payload.readableBytes()
                + " bytes, mac=" + header.mac() + "]";
    }
}
