package io.jetstream.kafka.core.batch;

/**
 * Limits a decoder enforces on a batch before it allocates for it. They bound the heap one batch
 * can claim at the destination, whatever the peer declares:
 * <ul>
 *   <li>a payload that declares, or decompresses to, more than {@code maxUncompressedBytes};
 *   <li>more than {@code maxRecords} records;
 *   <li>more than {@code maxHeaders} record headers in total.
 * </ul>
 * is rejected with {@code LIMIT_EXCEEDED}. The counts matter as much as the bytes: a record costs at
 * least 6 payload bytes but some 50 bytes of heap, a null-valued header 2 bytes but some 30, so a
 * byte limit alone would let a small payload expand twenty-fold. With the defaults one decoded batch
 * holds at most about 64 MiB of data plus roughly 60 MB of object overhead. Encoders check the same
 * limits so a sender never builds a batch its peers will refuse.
 *
 * @param maxUncompressedBytes largest uncompressed payload, {@code >= 1024}
 * @param maxRecords largest record count per batch, {@code >= 1}
 * @param maxHeaders largest total number of record headers per batch, {@code >= 0}
 */
public record BatchLimits(int maxUncompressedBytes, int maxRecords, int maxHeaders) {

    /** 64 MiB uncompressed. */
    public static final int DEFAULT_MAX_UNCOMPRESSED_BYTES = 64 * 1024 * 1024;

    /** 500,000 records. */
    public static final int DEFAULT_MAX_RECORDS = 500_000;

    /** 1,000,000 headers in all the records of a batch. */
    public static final int DEFAULT_MAX_HEADERS = 1_000_000;

    private static final BatchLimits DEFAULTS = new BatchLimits(DEFAULT_MAX_UNCOMPRESSED_BYTES, DEFAULT_MAX_RECORDS,
            DEFAULT_MAX_HEADERS);

    public BatchLimits {
        if (maxUncompressedBytes < 1024) {
            throw new IllegalArgumentException("maxUncompressedBytes " + maxUncompressedBytes + " must be >= 1024");
        }
        if (maxRecords < 1) {
            throw new IllegalArgumentException("maxRecords " + maxRecords + " must be >= 1");
        }
        if (maxHeaders < 0) {
            throw new IllegalArgumentException("maxHeaders " + maxHeaders + " must be >= 0");
        }
    }

    public static BatchLimits defaults() {
        return DEFAULTS;
    }
}
