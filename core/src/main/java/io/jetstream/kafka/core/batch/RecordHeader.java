package io.jetstream.kafka.core.batch;

import java.util.Arrays;
import java.util.Objects;

/**
 * One Kafka record header: a UTF-8 key and a nullable value, as the origin record carried it.
 *
 * <p>The value array is not copied: whoever builds a header hands the array over and must not
 * modify it afterwards. {@link #equals} and {@link #hashCode} compare array contents.
 */
public record RecordHeader(String key, byte[] value) {

    public RecordHeader {
        Objects.requireNonNull(key, "header key");
    }

    @Override
    public boolean equals(Object o) {
        return this == o
                || o instanceof RecordHeader other && key.equals(other.key) && Arrays.equals(value, other.value);
    }

    @Override
    public int hashCode() {
        return 31 * key.hashCode() + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "RecordHeader[key=" + key + ", value=" + (value == null ? "null" : value.length + " bytes") + "]";
    }
}
