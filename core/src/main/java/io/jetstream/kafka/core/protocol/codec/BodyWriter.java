package io.jetstream.kafka.core.protocol.codec;

import io.jetstream.kafka.core.protocol.FrameMac;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.List;

/** Writers for the variable-length field types. Frame values have validated the sizes already. */
final class BodyWriter {

    private BodyWriter() {
    }

    /** {@code uint16} UTF-8 length, then the bytes. */
    static void writeString(ByteBuf out, String value) {
        int length = ByteBufUtil.utf8Bytes(value);
        if (length > 0xFFFF) {
            throw new IllegalArgumentException("string of " + length + " UTF-8 bytes does not fit a uint16 length");
        }
        out.writeShort(length);
        ByteBufUtil.reserveAndWriteUtf8(out, value, length);
    }

    /** The {@code mac} field: {@code uint8} length (0 or 32), then the bytes. */
    static void writeMac(ByteBuf out, FrameMac mac) {
        out.writeByte(mac.length());
        mac.writeTo(out);
    }

    /** {@code uint8} count, then the strings. */
    static void writeStringList(ByteBuf out, List<String> values) {
        out.writeByte(values.size());
        for (String value : values) {
            writeString(out, value);
        }
    }
}
