package io.jetstream.kafka.source;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * A source cluster whose answers a test sets, counting the questions: committed offsets, log start
 * offsets and topic ids, as {@link AdminOriginOffsets} reads them from a real one. {@code down}
 * makes every question fail, as a cluster that does not answer in time.
 */
final class FakeSourceCluster implements OriginCoverage.OriginOffsets, TopicIncarnations.TopicIds {

    final Map<TopicPartition, Long> committed = new HashMap<>();
    final Map<TopicPartition, Long> logStart = new HashMap<>();
    final Map<String, Uuid> ids = new HashMap<>();
    final List<String> asked = new ArrayList<>();
    boolean down;
    private final String downMessage;

    /** @param downMessage what every question fails with while {@code down} */
    FakeSourceCluster(String downMessage) {
        this.downMessage = downMessage;
    }

    @Override
    public Map<TopicPartition, Long> committed(Collection<TopicPartition> partitions) {
        asked.add("committed " + partitions);
        check();
        Map<TopicPartition, Long> out = new HashMap<>(committed);
        out.keySet().retainAll(partitions);
        return out;
    }

    @Override
    public Map<TopicPartition, Long> logStart(Collection<TopicPartition> partitions) {
        asked.add("logStart " + partitions);
        check();
        Map<TopicPartition, Long> out = new HashMap<>();
        partitions.forEach(tp -> out.put(tp, logStart.getOrDefault(tp, 0L)));
        return out;
    }

    @Override
    public Map<String, Uuid> topicIds(Collection<String> topics) {
        asked.add("ids " + topics);
        check();
        Map<String, Uuid> out = new HashMap<>();
        topics.forEach(t -> out.put(t, ids.getOrDefault(t, Uuid.ZERO_UUID)));
        return out;
    }

    private void check() {
        if (down) {
            throw new IllegalStateException(downMessage);
        }
    }
}
