package io.jetstream.kafka.relay.datapath;

import java.nio.charset.StandardCharsets;

import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.BatchesFrame;
import io.jetstream.kafka.core.protocol.BatchHeader;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.FrameMac;
import io.jetstream.kafka.core.protocol.RoutingHeader;
import io.jetstream.kafka.core.protocol.TopicMetadataFrame;
import io.jetstream.kafka.transport.RetainedBuffers;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/** What the data path needs to know about the routed frame types (BATCH, BATCHES and TOPIC_METADATA). */
final class Frames {

    /**
     * Fixed bytes of a BATCH frame around its strings: prefix, type, hop, id, counts, offsets, codec,
     * sizes, CRC, and a MAC field with its length (charged whether or not the connection has it).
     */
    private static final int BATCH_FIXED_BYTES = 4 + 1 + 1 + 8 + 1 + 4 + 8 + 8 + 8 + 4 + 8 + 1 + 4 + 4 + 1
            + FrameMac.LENGTH;
    /**
     * Fixed bytes of a BATCHES frame around its routing strings and sections: prefix, type, hop, id,
     * path count, createdAtMillis, section count, and a MAC field with its length.
     */
    private static final int BATCHES_FIXED_BYTES = 4 + 1 + 1 + 8 + 1 + 8 + 2 + 1 + FrameMac.LENGTH;
    /** Budget charged for a TOPIC_METADATA frame beyond its strings (it carries no payload), MAC included. */
    private static final int METADATA_FIXED_BYTES = 64 + 1 + FrameMac.LENGTH;
    private static final int MAX_MESSAGE_CHARS = 1024;
    /** Heap a held frame costs beyond its bytes (pending entry, key, timer slot), charged to the budgets. */
    static final int BOOKKEEPING_BYTES = 512;
    /**
     * Most memory a held frame may keep alive, as a multiple of its bytes: a frame decoded from a
     * buffer more than this many times its size is copied out of it ({@link #detached}).
     */
    static final int RETAINED_MAX_FACTOR = RetainedBuffers.MAX_FACTOR;

    private Frames() {
    }

    static boolean isRouted(Frame frame) {
        return frame instanceof BatchFrame || frame instanceof BatchesFrame || frame instanceof TopicMetadataFrame;
    }

    static RoutingHeader routing(Frame frame) {
        if (frame instanceof BatchFrame batch) {
            return batch.header().routing();
        }
        if (frame instanceof BatchesFrame batches) {
            return batches.routing();
        }
        return ((TopicMetadataFrame) frame).routing();
    }

    /** The same frame under new routing; a batch's payload reference moves to the result. */
    static Frame withRouting(Frame frame, RoutingHeader routing) {
        if (frame instanceof BatchFrame batch) {
            return batch.withRouting(routing);
        }
        if (frame instanceof BatchesFrame batches) {
            return batches.withRouting(routing);
        }
        return ((TopicMetadataFrame) frame).withRouting(routing);
    }

    /**
     * The frame's size on the wire if it carried {@code routing}, close enough for budgets and
     * limits (strings counted as UTF-16 units, exact for the ASCII of ids and host names).
     */
    static long wireBytes(Frame frame, RoutingHeader routing) {
        long routingBytes = 6 + routing.streamId().length() + routing.originNodeId().length()
                + routing.destination().length();
        for (String hop : routing.path()) {
            routingBytes += 2 + hop.length();
        }
        if (frame instanceof BatchFrame batch) {
            BatchHeader header = batch.header();
            return BATCH_FIXED_BYTES + routingBytes + 2 + header.topic().length() + batch.payload().readableBytes();
        }
        if (frame instanceof BatchesFrame batches) {
            return BATCHES_FIXED_BYTES + routingBytes + batches.body().readableBytes();
        }
        TopicMetadataFrame metadata = (TopicMetadataFrame) frame;
        long configBytes = 0;
        for (var entry : metadata.configs().entrySet()) {
            configBytes += 4 + entry.getKey().length() + entry.getValue().length();
        }
        return METADATA_FIXED_BYTES + routingBytes + metadata.topic().length() + configBytes;
    }

    static long wireBytes(Frame frame) {
        return wireBytes(frame, routing(frame));
    }

    /** The memory {@code buf} keeps alive ({@link RetainedBuffers#retainedBytes}). */
    static long retainedBytes(ByteBuf buf) {
        return RetainedBuffers.retainedBytes(buf);
    }

    /**
     * The frame, or the same frame with its payload copied into a buffer of its own when the buffer
     * it was decoded from is more than {@link #RETAINED_MAX_FACTOR} times its size (a small batch that
     * arrived in the connection's buffer with a large frame, or with many others): so a held frame
     * keeps alive at most twice the bytes the budgets charge it, while a large frame, whose buffer is
     * about its own size, is forwarded without a copy ({@link RetainedBuffers#detached}). The
     * reference to {@code frame} moves to the result.
     */
    static Frame detached(Frame frame, ByteBufAllocator alloc) {
        if (frame instanceof BatchesFrame batches) {
            return RetainedBuffers.detached(batches, wireBytes(frame), alloc);
        }
        return frame instanceof BatchFrame batch ? RetainedBuffers.detached(batch, wireBytes(frame), alloc) : frame;
    }

    /** Cuts a message for an ACK or ERROR frame (the wire allows 65,535 UTF-8 bytes). */
    static String truncate(String message) {
        if (message.length() <= MAX_MESSAGE_CHARS && message.getBytes(StandardCharsets.UTF_8).length <= 65_535) {
            return message;
        }
        return message.substring(0, MAX_MESSAGE_CHARS);
    }
}
