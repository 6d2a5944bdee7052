package io.jetstream.kafka.testkit.workload;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a {@link Workload} produces. Record {@code seq} (0-based) goes to partition {@code seq % partitions}; which
 * records have a null key, a null value or a null header value follows from {@code seq} alone, so a run is repeatable.
 *
 * @param topic              existing topic to write to
 * @param partitions         partition count of that topic; records are spread round-robin by sequence id
 * @param records            how many records to produce
 * @param valueBytes         size of a non-null value (see {@code valueContent})
 * @param nullKeyEvery       every n-th record has a null key; 0 = never
 * @param nullValueEvery     every n-th record has a null value (a tombstone); 0 = never
 * @param extraHeaders       headers besides the run and sequence headers; the third and later alternate with null values
 * @param compressionType    producer {@code compression.type}: none, gzip, snappy, lz4 or zstd
 * @param recordsPerSecond   target send rate; 0 = as fast as the producer takes them
 * @param producerOverrides  extra producer properties, applied last
 * @param valueContent       what the values hold: upper-case words (compress roughly 3-5x) or uniformly random
 *                           letters A-Z (4.7 bits of entropy per byte: zstd shrinks them to ~60%, lz4 not at all)
 * @param wallClockTimestamps whether each record's timestamp is the wall-clock time it is handed to the producer
 *                           (what a latency probe subtracts from the arrival time) instead of a base time plus its
 *                           sequence id
 */
public record WorkloadSpec(
        String topic,
        int partitions,
        long records,
        int valueBytes,
        int nullKeyEvery,
        int nullValueEvery,
        int extraHeaders,
        String compressionType,
        double recordsPerSecond,
        Map<String, Object> producerOverrides,
        ValueContent valueContent,
        boolean wallClockTimestamps) {

    /** What a workload's values are made of. */
    public enum ValueContent {
        /** Upper-case words after a {@code seq=...;} prefix: text-like, compresses 3-5x. */
        WORDS,
        /** Uniformly random letters A-Z, the payload of the WAN benchmark: only entropy coders shrink it. */
        RANDOM_LETTERS
    }

    /** Smallest value that still holds the sequence prefix. */
    public static final int MIN_VALUE_BYTES = 24;

    /** The producer's {@code compression.type} values. */
    public static final Set<String> COMPRESSION_TYPES = Set.of("none", "gzip", "snappy", "lz4", "zstd");

    /** A spec of word values with sequence-based timestamps (the shape before value content was selectable). */
    public WorkloadSpec(String topic, int partitions, long records, int valueBytes, int nullKeyEvery,
                        int nullValueEvery, int extraHeaders, String compressionType, double recordsPerSecond,
                        Map<String, Object> producerOverrides) {
        this(topic, partitions, records, valueBytes, nullKeyEvery, nullValueEvery, extraHeaders, compressionType,
                recordsPerSecond, producerOverrides, ValueContent.WORDS, false);
    }

    public WorkloadSpec {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(valueContent, "valueContent");
        Objects.requireNonNull(compressionType, "compressionType");
        producerOverrides = Map.copyOf(Objects.requireNonNull(producerOverrides, "producerOverrides"));
        require(!topic.isBlank(), "topic must not be blank");
        require(partitions > 0, "partitions must be > 0, was " + partitions);
        require(records >= 0, "records must be >= 0, was " + records);
        require(valueBytes >= MIN_VALUE_BYTES, "valueBytes must be >= " + MIN_VALUE_BYTES + ", was " + valueBytes);
        require(nullKeyEvery >= 0, "nullKeyEvery must be >= 0 (0 = never), was " + nullKeyEvery);
        require(nullValueEvery >= 0, "nullValueEvery must be >= 0 (0 = never), was " + nullValueEvery);
        require(extraHeaders >= 0, "extraHeaders must be >= 0, was " + extraHeaders);
        require(recordsPerSecond >= 0, "recordsPerSecond must be >= 0 (0 = unlimited), was " + recordsPerSecond);
        require(COMPRESSION_TYPES.contains(compressionType.toLowerCase(Locale.ROOT)),
                "compressionType must be one of " + COMPRESSION_TYPES + ", was '" + compressionType + "'");
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException("workload spec: " + message);
        }
    }

    public static Builder builder(String topic, int partitions) {
        return new Builder(topic, partitions);
    }

    /** Fluent construction with defaults: 1,000 records of 256 bytes, 1 in 10 keys and 1 in 50 values null, lz4. */
    public static final class Builder {
        private final String topic;
        private final int partitions;
        private long records = 1_000;
        private int valueBytes = 256;
        private int nullKeyEvery = 10;
        private int nullValueEvery = 50;
        private int extraHeaders = 4;
        private String compressionType = "lz4";
        private double recordsPerSecond;
        private final Map<String, Object> producerOverrides = new LinkedHashMap<>();
        private ValueContent valueContent = ValueContent.WORDS;
        private boolean wallClockTimestamps;

        private Builder(String topic, int partitions) {
            this.topic = topic;
            this.partitions = partitions;
        }

        public Builder records(long count) {
            this.records = count;
            return this;
        }

        public Builder valueBytes(int bytes) {
            this.valueBytes = bytes;
            return this;
        }

        public Builder nullKeyEvery(int every) {
            this.nullKeyEvery = every;
            return this;
        }

        public Builder nullValueEvery(int every) {
            this.nullValueEvery = every;
            return this;
        }

        public Builder extraHeaders(int count) {
            this.extraHeaders = count;
            return this;
        }

        public Builder compressionType(String type) {
            this.compressionType = type;
            return this;
        }

        public Builder recordsPerSecond(double rate) {
            this.recordsPerSecond = rate;
            return this;
        }

        public Builder producerProperty(String key, Object value) {
            producerOverrides.put(key, value);
            return this;
        }

        public Builder valueContent(ValueContent content) {
            this.valueContent = content;
            return this;
        }

        /** Stamp each record with the wall-clock time it is handed to the producer (for latency probes). */
        public Builder wallClockTimestamps(boolean enabled) {
            this.wallClockTimestamps = enabled;
            return this;
        }

        public WorkloadSpec build() {
            return new WorkloadSpec(topic, partitions, records, valueBytes, nullKeyEvery, nullValueEvery,
                    extraHeaders, compressionType, recordsPerSecond, producerOverrides, valueContent,
                    wallClockTimestamps);
        }
    }
}
