package io.jetstream.kafka.core.offsets;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads an offset map topic once, from its beginning to its end, as {@code read_committed} (entries
 * of aborted transactions belong to records that were never written): one
 * {@link OffsetTranslator} per origin partition ({@link OffsetMapFollower} keeps following it).
 */
public final class OffsetMapReader {

    private OffsetMapReader() {
    }

    /**
     * @param clientProps bootstrap servers and security of the cluster holding the map
     * @param accept      which origin partitions to keep
     * @param timeout     for the whole read; a map that cannot be read to its end within it fails
     */
    public static Map<TopicPartition, OffsetTranslator> read(Map<String, Object> clientProps, String mapTopic,
                                                             Predicate<OffsetMapCodec.OriginPartition> accept,
                                                             Duration timeout) {
        try (OffsetMapFollower follower = new OffsetMapFollower(clientProps, mapTopic, accept)) {
            return new HashMap<>(follower.refresh(timeout));
        }
    }
}
