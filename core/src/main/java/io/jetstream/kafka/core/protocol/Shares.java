package io.jetstream.kafka.core.protocol;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

/**
 * Splits a stream's origin partitions into shares, one per destination-site task. The egress relay and
 * the destination-site connector must agree without talking, so the function is pure and fixed by the protocol:
 *
 * <pre>
 * owner(topic, partition, shareCount) =
 *     (toPositive(murmur2(utf8(topic))) + partition) mod shareCount
 * </pre>
 * with Kafka's {@code Utils.murmur2} and {@code Utils.toPositive} (the functions of Kafka's default
 * partitioner), computed in 64-bit arithmetic so the sum cannot overflow. The topic hash picks where
 * a topic starts; its partitions then go round-robin, so each topic is spread evenly (shares differ
 * by at most one partition per topic) and different topics start at different shares.
 *
 * <p>Changing this function changes which task owns which partition: it is part of the protocol
 * version.
 */
public final class Shares {

    /** Largest share count (the wire field is {@code uint16}). */
    public static final int MAX_SHARE_COUNT = 0xFFFF;

    private Shares() {
    }

    /** The share index owning {@code topic}-{@code partition} when the stream is split {@code shareCount} ways. */
    public static int owner(String topic, int partition, int shareCount) {
        if (shareCount < 1 || shareCount > MAX_SHARE_COUNT) {
            throw new IllegalArgumentException("shareCount " + shareCount + " is outside 1.." + MAX_SHARE_COUNT);
        }
        if (partition < 0) {
            throw new IllegalArgumentException("partition " + partition + " must be >= 0");
        }
        if (shareCount == 1) {
            return 0; // one share owns everything: no hash (the egress asks this once per section of a frame)
        }
        long start = Utils.toPositive(Utils.murmur2(topic.getBytes(StandardCharsets.UTF_8)));
        return (int) ((start + partition) % shareCount);
    }

    /** Whether share {@code shareIndex} of {@code shareCount} owns the partition. */
    public static boolean owns(int shareIndex, int shareCount, String topic, int partition) {
        return owner(topic, partition, shareCount) == shareIndex;
    }

    static void checkShare(int shareIndex, int shareCount) {
        if (shareCount < 1 || shareCount > MAX_SHARE_COUNT) {
            throw new IllegalArgumentException("shareCount " + shareCount + " is outside 1.." + MAX_SHARE_COUNT);
        }
        if (shareIndex < 0 || shareIndex >= shareCount) {
            throw new IllegalArgumentException("shareIndex " + shareIndex + " is outside 0.." + (shareCount - 1));
        }
    }
}
