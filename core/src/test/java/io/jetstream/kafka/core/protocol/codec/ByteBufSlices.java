package io.jetstream.kafka.core.protocol.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

/** Test helper: the readable bytes of a buffer, without moving its indexes. */
final class ByteBufSlices {

    private ByteBufSlices() {
    }

    static byte[] bytes(ByteBuf buf) {
        return ByteBufUtil.getBytes(buf, buf.readerIndex(), buf.readableBytes());
    }
}
