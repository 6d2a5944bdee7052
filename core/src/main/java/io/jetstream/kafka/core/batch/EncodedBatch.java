package io.jetstream.kafka.core.batch;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A batch in its wire form: the summary fields that travel in the BATCH frame header, and the
 * payload bytes (records, possibly compressed) that relays forward untouched.
 *
 * <p>Buffer ownership: {@code payload}'s readable bytes are {@code position()..limit()}. When an
 * {@link BatchEncoder} returns an {@code EncodedBatch}, the payload is a view of the encoder's
 * reusable buffer and is valid only until the next {@code encode} call on that encoder: copy it
 * (for example into a Netty {@code ByteBuf}) before encoding again. A decoder never modifies the
 * payload nor moves its position.
 *
 * @param topic origin topic
 * @param partition origin partition
 * @param prevOffset last offset before this batch (see {@link RecordBatch})
 * @param firstOffset offset of the first record ({@code prevOffset} when empty)
 * @param lastOffset offset of the last record ({@code prevOffset} when empty)
 * @param recordCount number of records
 * @param codec compression of the payload
 * @param uncompressedSize payload size before compression (the decompression-bomb guard enforces it)
 * @param crc32c CRC32C of the payload bytes as sent (after compression)
 * @param payload the payload bytes
 */
public record EncodedBatch(String topic, int partition, long prevOffset, long firstOffset, long lastOffset,
        int recordCount, CompressionCodec codec, int uncompressedSize, int crc32c, ByteBuffer payload) {

    public EncodedBatch {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(codec, "codec");
        Objects.requireNonNull(payload, "payload");
    }

    /** Payload bytes on the wire. */
    public int payloadSize() {
        return payload.remaining();
    }
}
