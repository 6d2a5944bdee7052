package io.jetstream.kafka.core.batch;

/**
 * Limits a decoder enforces on a batch before it allocates for it. They bound the heap a single
 * batch can claim at the sink, whatever the peer declares: a payload that decompresses to more
 * than {@code maxUncompressedBytes}, or declares more than {@code maxRecords} records, is rejected
 * with {@code LIMIT_EXCEEDED}. Encoders check the same limits so a sender never builds a batch its
 * peers will refuse.
 *
 * @param maxUncompressedBytes largest uncompressed payload, {@code >= 1024}
 * @param maxRecords largest record count per batch, {@code >= 1}
 */
public record BatchLimits(int maxUncompressedBytes, int maxRecords) {

    /** 64 MiB uncompressed. */
    public static final int DEFAULT_MAX_UNCOMPRESSED_BYTES = 64 * 1024 * 1024;

    /** 500,000 records: about 50 MB of heap for the record objects of the smallest records. */
    public static final int DEFAULT_MAX_RECORDS = 500_000;

    private static final BatchLimits DEFAULTS = new BatchLimits(DEFAULT_MAX_UNCOMPRESSED_BYTES, DEFAULT_MAX_RECORDS);

    public BatchLimits {
        if (maxUncompressedBytes < 1024) {
            throw new IllegalArgumentException("maxUncompressedBytes " + maxUncompressedBytes + " must be >= 1024");
        }
        if (maxRecords < 1) {
            throw new IllegalArgumentException("maxRecords " + maxRecords + " must be >= 1");
        }
    }

    public static BatchLimits defaults() {
        return DEFAULTS;
    }
}
