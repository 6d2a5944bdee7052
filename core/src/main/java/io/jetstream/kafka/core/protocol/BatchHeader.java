package io.jetstream.kafka.core.protocol;

import io.jetstream.kafka.core.batch.CompressionCodec;
import io.jetstream.kafka.core.batch.EncodedBatch;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The part of a BATCH frame a relay reads: routing, the origin topic-partition and offsets, and
 * what it needs to describe the payload without decompressing it. One batch carries one origin
 * partition (see {@link io.jetstream.kafka.core.batch.RecordBatch} for why and for the ordering rule).
 *
 * @param routing stream, batch id, origin, destination, path and hop
 * @param topic origin topic
 * @param partition origin partition
 * @param prevOffset last offset before this batch, or -1
 * @param firstOffset first record's offset ({@code prevOffset} when empty)
 * @param lastOffset last record's offset ({@code prevOffset} when empty)
 * @param recordCount records in the payload
 * @param createdAtMillis wall-clock time the sender created the batch, for end-to-end latency
 * @param codec payload compression
 * @param uncompressedSize payload size before compression
 * @param crc32c CRC32C of the payload as sent
 * @param mac the source-site connector's MAC over this header (routing path and hop excepted) and the
 *     payload, or {@link FrameMac#NONE}; relays carry it unchanged
 */
public record BatchHeader(RoutingHeader routing, String topic, int partition, long prevOffset, long firstOffset,
        long lastOffset, int recordCount, long createdAtMillis, CompressionCodec codec, int uncompressedSize,
        int crc32c, FrameMac mac) {

    public BatchHeader {
        Objects.requireNonNull(routing, "routing");
        Objects.requireNonNull(mac, "mac");
        checkPartitionFields(topic, partition, recordCount, codec, uncompressedSize);
    }

    /** The rules of the per-partition fields, for a BATCH and for each section of a BATCHES frame. */
    static void checkPartitionFields(String topic, int partition, int recordCount, CompressionCodec codec,
            int uncompressedSize) {
        WireStrings.checkNotEmpty(topic, "topic");
        Objects.requireNonNull(codec, "codec");
        if (partition < 0) {
            throw new IllegalArgumentException("partition " + partition + " must be >= 0");
        }
        if (recordCount < 0) {
            throw new IllegalArgumentException("recordCount " + recordCount + " must be >= 0");
        }
        if (uncompressedSize < 0) {
            throw new IllegalArgumentException("uncompressedSize " + uncompressedSize + " must be >= 0");
        }
    }

    /** A header without a MAC. */
    public BatchHeader(RoutingHeader routing, String topic, int partition, long prevOffset, long firstOffset,
            long lastOffset, int recordCount, long createdAtMillis, CompressionCodec codec, int uncompressedSize,
            int crc32c) {
        this(routing, topic, partition, prevOffset, firstOffset, lastOffset, recordCount, createdAtMillis, codec,
                uncompressedSize, crc32c, FrameMac.NONE);
    }

    /** The header for an encoded batch (no MAC yet). */
    public static BatchHeader of(RoutingHeader routing, EncodedBatch batch, long createdAtMillis) {
        return new BatchHeader(routing, batch.topic(), batch.partition(), batch.prevOffset(), batch.firstOffset(),
                batch.lastOffset(), batch.recordCount(), createdAtMillis, batch.codec(), batch.uncompressedSize(),
                batch.crc32c());
    }

    public long batchId() {
        return routing.id();
    }

    /** The same header with other routing (the payload description and the MAC are unchanged). */
    public BatchHeader withRouting(RoutingHeader newRouting) {
        return new BatchHeader(newRouting, topic, partition, prevOffset, firstOffset, lastOffset, recordCount,
                createdAtMillis, codec, uncompressedSize, crc32c, mac);
    }

    /** The same header with another MAC. */
    public BatchHeader withMac(FrameMac newMac) {
        return new BatchHeader(routing, topic, partition, prevOffset, firstOffset, lastOffset, recordCount,
                createdAtMillis, codec, uncompressedSize, crc32c, newMac);
    }

    /** Pairs the header with payload bytes for {@link io.jetstream.kafka.core.batch.BatchDecoder}. */
    public EncodedBatch toEncodedBatch(ByteBuffer payload) {
        return new EncodedBatch(topic, partition, prevOffset, firstOffset, lastOffset, recordCount, codec,
                uncompressedSize, crc32c, payload);
    }
}
