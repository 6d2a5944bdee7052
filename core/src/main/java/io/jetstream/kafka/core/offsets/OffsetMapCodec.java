package io.jetstream.kafka.core.offsets;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.ByteUtils;

/**
 * The records of the offset map topic. The key names the origin partition, as text that
 * {@code kafka-console-consumer} and {@code kcat} show as is, and keeps each origin partition's
 * entries in one map partition, in order:
 *
 * <pre>
 * key   = "&lt;source alias&gt;/&lt;origin topic&gt;/&lt;partition&gt;"   (UTF-8; aliases and topic names hold no '/')
 *
 * value = +---------+-------+---------------+------------------+-----------+---------+------------+
 *         | version | flags | origin topic  | destination topic| previous  | markers | segment | segments |
 *         | int8=1  | int8  | id (16 bytes) | varint len+UTF-8 | varlong   | varint  | count   | ...      |
 *         +---------+-------+---------------+------------------+-----------+---------+ varint  +----------+
 *         flags: bit 0 = correction
 * segment = +------------------------------+-----------------------------------+---------+
 *           | origin start: varlong delta   | destination start: varlong delta  | length  |
 *           | from the end of the previous  | from the end of the previous      | varint  |
 *           | segment (+1), first: from     | segment (+1), first: absolute     |         |
 *           | previous (+1)                 |                                   |         |
 *           +------------------------------+-----------------------------------+---------+
 * </pre>
 *
 * A run of contiguous origin offsets (the common case) takes one segment: about 40 bytes of value
 * for any number of records. Varlongs are zig-zag encoded (Kafka's {@link ByteUtils}).
 */
public final class OffsetMapCodec {

    public static final byte VERSION = 1;
    private static final int FLAG_CORRECTION = 1;
    /** Segments an entry may hold: a run is at most one poll of records. */
    static final int MAX_SEGMENTS = 1_000_000;

    private OffsetMapCodec() {
    }

    /** The key of an origin partition's entries. */
    public static byte[] key(String sourceAlias, String originTopic, int partition) {
        return (sourceAlias + "/" + originTopic + "/" + partition).getBytes(StandardCharsets.UTF_8);
    }

    /** The origin partition a key names: {@code [alias, topic, partition]}. */
    public static OriginPartition decodeKey(byte[] key) {
        if (key == null) {
            throw new OffsetMapFormatException("offset map record without a key");
        }
        String text = new String(key, StandardCharsets.UTF_8);
        int first = text.indexOf('/');
        int last = text.lastIndexOf('/');
        if (first <= 0 || last <= first + 1 || last == text.length() - 1) {
            throw new OffsetMapFormatException("offset map key '" + text + "' is not <alias>/<topic>/<partition>");
        }
        try {
            return new OriginPartition(text.substring(0, first), text.substring(first + 1, last),
                    Integer.parseInt(text.substring(last + 1)));
        } catch (NumberFormatException e) {
            throw new OffsetMapFormatException("offset map key '" + text + "' has no partition number", e);
        }
    }

    /** An origin partition as the map's keys name it. */
    public record OriginPartition(String sourceAlias, String topic, int partition) {
        /** As the key spells it: {@code <alias>/<topic>/<partition>}. */
        @Override
        public String toString() {
            return sourceAlias + "/" + topic + "/" + partition;
        }
    }

    public static byte[] value(OffsetMapEntry entry) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(48 + entry.destinationTopic().length());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeByte(entry.correction() ? FLAG_CORRECTION : 0);
            out.writeLong(entry.topicId().getMostSignificantBits());
            out.writeLong(entry.topicId().getLeastSignificantBits());
            byte[] destination = entry.destinationTopic().getBytes(StandardCharsets.UTF_8);
            ByteUtils.writeVarint(destination.length, out);
            out.write(destination);
            ByteUtils.writeVarlong(entry.previous(), out);
            ByteUtils.writeVarint(entry.markers(), out);
            ByteUtils.writeVarint(entry.segments().size(), out);
            long originEnd = entry.previous();
            long destinationEnd = -1;
            for (OffsetMapEntry.Segment segment : entry.segments()) {
                ByteUtils.writeVarlong(segment.originStart() - (originEnd + 1), out);
                ByteUtils.writeVarlong(segment.destinationStart() - (destinationEnd + 1), out);
                ByteUtils.writeVarint(segment.length(), out);
                originEnd = segment.originEnd();
                destinationEnd = segment.destinationEnd();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
        }
        return bytes.toByteArray();
    }

    /** Decodes an entry; a malformed record fails with {@link OffsetMapFormatException} naming the problem. */
    public static OffsetMapEntry decode(byte[] key, byte[] value) {
        OriginPartition origin = decodeKey(key);
        if (value == null) {
            throw new OffsetMapFormatException("offset map record of " + origin + " has no value");
        }
        ByteBuffer in = ByteBuffer.wrap(value);
        try {
            byte version = in.get();
            if (version != VERSION) {
                throw new OffsetMapFormatException("offset map record of " + origin + " has version " + version
                        + "; this reader knows version " + VERSION + " (upgrade the reader)");
            }
            int flags = in.get();
            Uuid topicId = new Uuid(in.getLong(), in.getLong());
            int destinationLength = ByteUtils.readVarint(in);
            if (destinationLength < 1 || destinationLength > in.remaining()) {
                throw new OffsetMapFormatException("offset map record of " + origin + ": destination topic length "
                        + destinationLength + " with " + in.remaining() + " bytes left");
            }
            byte[] destination = new byte[destinationLength];
            in.get(destination);
            long previous = ByteUtils.readVarlong(in);
            int markers = ByteUtils.readVarint(in);
            int count = ByteUtils.readVarint(in);
            if (count < 1 || count > MAX_SEGMENTS || count > in.remaining() / 3) {
                throw new OffsetMapFormatException("offset map record of " + origin + ": " + count
                        + " segments in " + in.remaining() + " bytes");
            }
            List<OffsetMapEntry.Segment> segments = new ArrayList<>(count);
            long originEnd = previous;
            long destinationEnd = -1;
            for (int i = 0; i < count; i++) {
                long originStart = originEnd + 1 + ByteUtils.readVarlong(in);
                long destinationStart = destinationEnd + 1 + ByteUtils.readVarlong(in);
                int length = ByteUtils.readVarint(in);
                OffsetMapEntry.Segment segment = new OffsetMapEntry.Segment(originStart, destinationStart, length);
                segments.add(segment);
                originEnd = segment.originEnd();
                destinationEnd = segment.destinationEnd();
            }
            if (in.hasRemaining()) {
                throw new OffsetMapFormatException("offset map record of " + origin + ": " + in.remaining()
                        + " bytes after the last segment");
            }
            return new OffsetMapEntry(origin.sourceAlias(), origin.topic(), origin.partition(), topicId,
                    new String(destination, StandardCharsets.UTF_8), previous, segments, markers,
                    (flags & FLAG_CORRECTION) != 0);
        } catch (BufferUnderflowException e) {
            throw new OffsetMapFormatException("offset map record of " + origin + " is truncated", e);
        } catch (IllegalArgumentException e) {
            throw new OffsetMapFormatException("offset map record of " + origin + " is invalid: " + e.getMessage(), e);
        }
    }
}
