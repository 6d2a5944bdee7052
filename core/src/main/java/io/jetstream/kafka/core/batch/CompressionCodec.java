package io.jetstream.kafka.core.batch;

import io.jetstream.kafka.core.wire.ProtocolException;
import org.apache.kafka.common.compress.Compression;

/**
 * Compression of a batch payload, one of the codecs kafka-clients ships. The ids are the ones Kafka
 * uses in its own record-batch attributes, so operators recognise them.
 *
 * <p>Codecs are chosen per batch (the batching model weighs a codec's CPU cost against link
 * capacity); the id travels in the BATCH frame header. The set is closed within a protocol version.
 */
public enum CompressionCodec {
    NONE(0, Compression.NONE),
    GZIP(1, Compression.gzip().build()),
    SNAPPY(2, Compression.snappy().build()),
    LZ4(3, Compression.lz4().build()),
    ZSTD(4, Compression.zstd().build());

    private static final CompressionCodec[] BY_ID = {NONE, GZIP, SNAPPY, LZ4, ZSTD};

    private final int id;
    private final Compression compression;

    CompressionCodec(int id, Compression compression) {
        this.id = id;
        this.compression = compression;
    }

    /** Wire id, {@code 0..4}. */
    public int id() {
        return id;
    }

    /**
     * The codec with the given wire id.
     *
     * @throws ProtocolException {@link ProtocolException.Kind#UNKNOWN_CODEC} for an id not defined here
     */
    public static CompressionCodec forId(int id) {
        if (id < 0 || id >= BY_ID.length) {
            throw new ProtocolException(ProtocolException.Kind.UNKNOWN_CODEC,
                    "compression codec id " + id + " is not one of 0..4 (none, gzip, snappy, lz4, zstd)");
        }
        return BY_ID[id];
    }

    /** The kafka-clients implementation, default level. Thread-safe and immutable. */
    Compression compression() {
        return compression;
    }
}
