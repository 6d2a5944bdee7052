package io.jetstream.kafka.core.protocol.codec;

import static io.jetstream.kafka.core.wire.ProtocolException.Kind.MALFORMED;
import static io.jetstream.kafka.core.wire.ProtocolException.Kind.TRUNCATED;

import io.jetstream.kafka.core.protocol.FrameMac;
import io.jetstream.kafka.core.protocol.FrameType;
import io.jetstream.kafka.core.wire.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Bounds-checked reads from one frame body. The buffer is a slice ending at the frame's end, so a
 * field that runs past it is {@code TRUNCATED} rather than a read into the next frame. Every
 * length is checked against the bytes left before anything is allocated for it.
 */
final class BodyReader {

    private final ByteBuf body;
    private final FrameType type;
    private final boolean macs;

    BodyReader(ByteBuf body, FrameType type, boolean macs) {
        this.body = body;
        this.type = type;
        this.macs = macs;
    }

    FrameType type() {
        return type;
    }

    /** Whether the layouts with a {@code mac} field are in use on this connection. */
    boolean macs() {
        return macs;
    }

    /**
     * The {@code mac} field: {@code uint8} length, 0 or {@value FrameMac#LENGTH}, then that many bytes;
     * {@link FrameMac#NONE} without reading anything when the layouts without it are in use.
     */
    FrameMac readMac() {
        if (!macs) {
            return FrameMac.NONE;
        }
        int length = readUnsignedByte("macLength");
        if (length != 0 && length != FrameMac.LENGTH) {
            throw new ProtocolException(MALFORMED, type + ".macLength " + length + " is neither 0 nor "
                    + FrameMac.LENGTH);
        }
        need("mac", length);
        byte[] mac = new byte[length];
        body.readBytes(mac);
        return FrameMac.of(mac);
    }

    int readUnsignedByte(String field) {
        need(field, 1);
        return body.readUnsignedByte();
    }

    int readUnsignedShort(String field) {
        need(field, 2);
        return body.readUnsignedShort();
    }

    int readInt(String field) {
        need(field, 4);
        return body.readInt();
    }

    long readLong(String field) {
        need(field, 8);
        return body.readLong();
    }

    /** {@code uint16} length, then that many bytes of well-formed UTF-8. */
    String readString(String field) {
        int length = readUnsignedShort(field);
        need(field, length);
        int index = body.readerIndex();
        if (!ByteBufUtil.isText(body, index, length, StandardCharsets.UTF_8)) {
            throw new ProtocolException(MALFORMED, type + "." + field + " is not valid UTF-8");
        }
        String value = body.toString(index, length, StandardCharsets.UTF_8);
        body.skipBytes(length);
        return value;
    }

    /** {@code uint8} count (at most {@code maxCount}), then that many strings. */
    List<String> readStringList(String field, int maxCount) {
        int count = readUnsignedByte(field);
        if (count > maxCount) {
            throw new ProtocolException(MALFORMED, type + "." + field + " has " + count + " entries, above the"
                    + " maximum of " + maxCount);
        }
        need(field, 2 * count); // each entry has at least its length prefix
        List<String> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            values.add(readString(field));
        }
        return values;
    }

    /** The rest of the body as a retained slice of the input: the caller owns the new reference. */
    ByteBuf readRetainedRest() {
        return body.readRetainedSlice(body.readableBytes());
    }

    /** The rest of the body, not consumed and not retained (a view for a nested reader). */
    ByteBuf restView() {
        return body.slice();
    }

    /** Position in the body, for offsets relative to where a nested reader started. */
    int readerIndex() {
        return body.readerIndex();
    }

    /** Skips {@code bytes} bytes of the field, which must be there. */
    void skip(String field, int bytes) {
        need(field, bytes);
        body.skipBytes(bytes);
    }

    int remaining() {
        return body.readableBytes();
    }

    void need(String field, int bytes) {
        if (body.readableBytes() < bytes) {
            throw new ProtocolException(TRUNCATED, type + "." + field + " needs " + bytes + " bytes, the frame has "
                    + body.readableBytes() + " left");
        }
    }

    void expectEnd() {
        if (body.isReadable()) {
            throw new ProtocolException(MALFORMED, body.readableBytes() + " bytes follow the last field of " + type);
        }
    }
}
