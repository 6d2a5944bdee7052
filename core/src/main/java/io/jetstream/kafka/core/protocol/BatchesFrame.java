package io.jetstream.kafka.core.protocol;

import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.EncodedBatch;
import io.jetstream.kafka.core.batch.PayloadChecksum;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufHolder;
import io.netty.buffer.CompositeByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A BATCHES frame: the batches of several origin partitions under one routing header, one id, one
 * creation time and one MAC, answered by one acknowledgement. Each batch is a {@linkplain Section
 * section} that keeps its own header fields (topic, partition, offsets, codec, sizes, CRC) and its own
 * compressed payload, so a destination offers each to its partition's sequencer as it would a BATCH,
 * and the per-partition order rule of {@link io.jetstream.kafka.core.batch.RecordBatch} holds section
 * by section. What a frame costs once (routing, the relays' pending entries, receipts and
 * acknowledgements, the MAC, a write and a flush) it then costs once for all the partitions it carries:
 * at many partitions and a steady rate a sender seals one frame per tick instead of one per partition
 * (docs/experiments.md, issue 30).
 *
 * <p>{@link #body()} holds the sections in their wire layout ({@code BatchesFrameCodec}); each
 * section's payload is the range {@link Section#payloadOffset()} .. {@code + payloadLength} of it,
 * relative to its reader index. Relays forward the body without reading it.
 *
 * <h2>Buffer ownership</h2>
 * As for {@link BatchFrame}: the frame owns one reference to {@link #body()}; its last holder releases
 * it once. {@link #section(int)} returns a {@link BatchFrame} holding its own reference to a slice of
 * the body (release both). {@link #withRouting}, {@link #withMac} and {@link #replace} take over this
 * frame's reference.
 *
 * @param routing stream, frame id, origin, destination, path and hop
 * @param createdAtMillis wall-clock time the sender created the frame
 * @param sections the sections, at least one, at most {@link #MAX_SECTIONS}
 * @param body the sections' bytes
 * @param mac the source-site connector's MAC over the frame (path and hop excepted), or {@link FrameMac#NONE}
 */
public record BatchesFrame(RoutingHeader routing, long createdAtMillis, List<Section> sections, ByteBuf body,
        FrameMac mac) implements Frame, ByteBufHolder {

    /** Most sections in one frame (the wire field is {@code uint16}). */
    public static final int MAX_SECTIONS = 0xFFFF;

    /** Bytes of a section's fixed fields (topic excepted): partition to payloadLength. */
    public static final int SECTION_FIXED_BYTES = 4 + 8 + 8 + 8 + 4 + 1 + 4 + 4 + 4;

    /**
     * One partition's batch in the frame: the fields of a {@link BatchHeader} that are not the frame's,
     * and where its payload lies in the body.
     */
    public record Section(String topic, int partition, long prevOffset, long firstOffset, long lastOffset,
            int recordCount, CompressionCodec codec, int uncompressedSize, int crc32c, int payloadOffset,
            int payloadLength) {

        public Section {
            BatchHeader.checkPartitionFields(topic, partition, recordCount, codec, uncompressedSize);
            if (payloadOffset < 0 || payloadLength < 0) {
                throw new IllegalArgumentException("payload range " + payloadOffset + "+" + payloadLength
                        + " must not be negative");
            }
        }
    }

    public BatchesFrame {
        Objects.requireNonNull(routing, "routing");
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(mac, "mac");
        sections = List.copyOf(sections);
        if (sections.isEmpty() || sections.size() > MAX_SECTIONS) {
            throw new IllegalArgumentException("a BATCHES frame carries 1.." + MAX_SECTIONS + " sections, not "
                    + sections.size());
        }
        for (Section section : sections) {
            if ((long) section.payloadOffset() + section.payloadLength() > body.readableBytes()) {
                throw new IllegalArgumentException("section " + section.topic() + "-" + section.partition()
                        + " lies beyond the body's " + body.readableBytes() + " bytes");
            }
        }
    }

    /**
     * A frame of {@code batches}, in that order, under {@code routing} (no MAC yet). The body is a
     * composite of freshly written section headers and retained slices of the batches' payloads (no
     * copy); the batches are not released, and their routing, creation time and MACs are not used.
     * The caller owns the returned frame.
     */
    public static BatchesFrame of(RoutingHeader routing, long createdAtMillis, List<BatchFrame> batches,
            ByteBufAllocator alloc) {
        if (batches.isEmpty() || batches.size() > MAX_SECTIONS) {
            throw new IllegalArgumentException("a BATCHES frame carries 1.." + MAX_SECTIONS + " sections, not "
                    + batches.size());
        }
        CompositeByteBuf body = alloc.compositeBuffer(2 * batches.size());
        try {
            List<Section> sections = new ArrayList<>(batches.size());
            int offset = 0;
            for (BatchFrame batch : batches) {
                BatchHeader h = batch.header();
                ByteBuf head = alloc.buffer(SECTION_FIXED_BYTES + 2 + h.topic().length());
                try {
                    writeSectionHeader(h, batch.payload().readableBytes(), head);
                } catch (RuntimeException e) {
                    head.release();
                    throw e;
                }
                body.addComponent(true, head);
                offset += head.readableBytes();
                int length = batch.payload().readableBytes();
                if (length > 0) {
                    body.addComponent(true, batch.payload().retainedSlice());
                }
                sections.add(new Section(h.topic(), h.partition(), h.prevOffset(), h.firstOffset(), h.lastOffset(),
                        h.recordCount(), h.codec(), h.uncompressedSize(), h.crc32c(), offset, length));
                offset += length;
            }
            return new BatchesFrame(routing, createdAtMillis, sections, body, FrameMac.NONE);
        } catch (RuntimeException e) {
            body.release();
            throw e;
        }
    }

    /** A section's header fields in their wire layout (see {@code BatchesFrameCodec}). */
    private static void writeSectionHeader(BatchHeader h, int payloadLength, ByteBuf out) {
        byte[] topic = h.topic().getBytes(StandardCharsets.UTF_8);
        out.writeShort(topic.length);
        out.writeBytes(topic);
        out.writeInt(h.partition());
        out.writeLong(h.prevOffset());
        out.writeLong(h.firstOffset());
        out.writeLong(h.lastOffset());
        out.writeInt(h.recordCount());
        out.writeByte(h.codec().id());
        out.writeInt(h.uncompressedSize());
        out.writeInt(h.crc32c());
        out.writeInt(payloadLength);
    }

    @Override
    public FrameType type() {
        return FrameType.BATCHES;
    }

    public long frameId() {
        return routing.id();
    }

    public int sectionCount() {
        return sections.size();
    }

    /** Records over all sections. */
    public long recordCount() {
        long records = 0;
        for (Section section : sections) {
            records += section.recordCount();
        }
        return records;
    }

    /** Section {@code i}'s header as a BATCH would carry it: the frame's routing and creation time, no MAC. */
    public BatchHeader sectionHeader(int i) {
        Section s = sections.get(i);
        return new BatchHeader(routing, s.topic(), s.partition(), s.prevOffset(), s.firstOffset(), s.lastOffset(),
                s.recordCount(), createdAtMillis, s.codec(), s.uncompressedSize(), s.crc32c());
    }

    /**
     * Section {@code i} as a batch of its own: {@link #sectionHeader(int)} and a retained slice of its
     * payload (no copy). The caller owns the returned frame; this frame keeps its own reference.
     */
    public BatchFrame section(int i) {
        Section s = sections.get(i);
        return new BatchFrame(sectionHeader(i), body.retainedSlice(body.readerIndex() + s.payloadOffset(),
                s.payloadLength()));
    }

    /**
     * Checks every section's payload CRC32C without decoding it.
     *
     * @throws io.jetstream.kafka.core.wire.ProtocolException BAD_CRC on the first mismatch
     */
    public void verifyChecksums() {
        for (Section s : sections) {
            PayloadChecksum.verify(new EncodedBatch(s.topic(), s.partition(), s.prevOffset(), s.firstOffset(),
                    s.lastOffset(), s.recordCount(), s.codec(), s.uncompressedSize(), s.crc32c(),
                    body.nioBuffer(body.readerIndex() + s.payloadOffset(), s.payloadLength())));
        }
    }

    /** The same body under new routing; ownership of the body reference moves to the result. */
    public BatchesFrame withRouting(RoutingHeader newRouting) {
        return new BatchesFrame(newRouting, createdAtMillis, sections, body, mac);
    }

    /** The same body with {@code newMac}; ownership of the body reference moves to the result. */
    public BatchesFrame withMac(FrameMac newMac) {
        return new BatchesFrame(routing, createdAtMillis, sections, body, newMac);
    }

    @Override
    public ByteBuf content() {
        return body;
    }

    @Override
    public BatchesFrame copy() {
        return replace(body.copy());
    }

    @Override
    public BatchesFrame duplicate() {
        return replace(body.duplicate());
    }

    @Override
    public BatchesFrame retainedDuplicate() {
        return replace(body.retainedDuplicate());
    }

    /** The same frame over {@code content}, which must hold the same bytes from its reader index. */
    @Override
    public BatchesFrame replace(ByteBuf content) {
        return new BatchesFrame(routing, createdAtMillis, sections, content, mac);
    }

    @Override
    public int refCnt() {
        return body.refCnt();
    }

    @Override
    public BatchesFrame retain() {
        body.retain();
        return this;
    }

    @Override
    public BatchesFrame retain(int increment) {
        body.retain(increment);
        return this;
    }

    @Override
    public BatchesFrame touch() {
        body.touch();
        return this;
    }

    @Override
    public BatchesFrame touch(Object hint) {
        body.touch(hint);
        return this;
    }

    @Override
    public boolean release() {
        return body.release();
    }

    @Override
    public boolean release(int decrement) {
        return body.release(decrement);
    }

    /** Compares routing, creation time, sections, MAC and the body's readable bytes. */
    @Override
    public boolean equals(Object o) {
        return o instanceof BatchesFrame other && routing.equals(other.routing)
                && createdAtMillis == other.createdAtMillis && sections.equals(other.sections)
                && mac.equals(other.mac) && body.equals(other.body);
    }

    @Override
    public int hashCode() {
        return Objects.hash(routing, createdAtMillis, sections, mac);
    }

    @Override
    public String toString() {
        Section first = sections.get(0);
        return "BatchesFrame[stream=" + routing.streamId() + ", id=" + routing.id() + ", origin="
                + routing.originNodeId() + ", hop=" + routing.hopIndex() + "/" + routing.path() + ", "
                + sections.size() + " sections (first " + first.topic() + "-" + first.partition() + "), records="
                + recordCount() + ", body=" + body.readableBytes() + " bytes, mac=" + mac + "]";
    }
}
