package io.jetstream.kafka.testkit.workload;

import java.nio.charset.StandardCharsets;
import java.util.Set;

import org.apache.kafka.common.header.Header;

/**
 * 64-bit fingerprints of a record's key, value and headers, computed the same way on the produce side and the consume
 * side so the verifier can compare records without keeping their bytes. FNV-1a: not cryptographic, but a replicator
 * that changes a byte changes the hash, and unrelated records collide with probability 2^-64.
 *
 * <p>A null key, value or header value hashes differently from an empty one. The headers hash covers keys, values and
 * their order, except keys listed as ignored (headers a replicator is allowed to add).
 */
public final class RecordHashes {

    private static final long OFFSET_BASIS = 0xcbf29ce484222325L;
    private static final long PRIME = 0x100000001b3L;
    private static final long NULL_HASH = 0x6e756c6c6e756c6cL;

    private RecordHashes() {
    }

    /** Hash of a key or value; {@code null} has its own hash. */
    public static long bytes(byte[] data) {
        return data == null ? NULL_HASH : mix(mixInt(OFFSET_BASIS, data.length), data);
    }

    /** Hash of the headers in order, skipping those whose key is in {@code ignoredKeys}. */
    public static long headers(Iterable<Header> headers, Set<String> ignoredKeys) {
        long hash = OFFSET_BASIS;
        for (Header header : headers) {
            if (ignoredKeys.contains(header.key())) {
                continue;
            }
            byte[] key = header.key().getBytes(StandardCharsets.UTF_8);
            hash = mix(mixInt(hash, key.length), key);
            byte[] value = header.value();
            hash = value == null ? mixInt(hash, -1) : mix(mixInt(hash, value.length), value);
        }
        return hash;
    }

    private static long mixInt(long hash, int value) {
        for (int shift = 24; shift >= 0; shift -= 8) {
            hash = (hash ^ ((value >>> shift) & 0xff)) * PRIME;
        }
        return hash;
    }

    private static long mix(long hash, byte[] data) {
        for (byte b : data) {
            hash = (hash ^ (b & 0xff)) * PRIME;
        }
        return hash;
    }
}
