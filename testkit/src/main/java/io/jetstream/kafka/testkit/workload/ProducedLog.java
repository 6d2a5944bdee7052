package io.jetstream.kafka.testkit.workload;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.common.TopicPartition;

/**
 * The records a run produced and the source brokers acknowledged, per source partition in offset order: the
 * expectation a {@link Verifier} checks a destination against. Immutable.
 *
 * @param runId       the run's id, carried in every record's {@link RecordFactory#RUN_HEADER}
 * @param partitions  acknowledged records per source partition, sorted by offset
 * @param failedSends sends the producer reported as failed; they are not expected at the destination
 */
public record ProducedLog(String runId, Map<TopicPartition, List<ProducedRecord>> partitions, long failedSends) {

    public ProducedLog {
        Objects.requireNonNull(runId, "runId");
        Map<TopicPartition, List<ProducedRecord>> sorted = new TreeMap<>(
                Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        partitions.forEach((partition, records) -> {
            List<ProducedRecord> copy = new ArrayList<>(records);
            copy.sort(Comparator.comparingLong(ProducedRecord::offset));
            sorted.put(partition, List.copyOf(copy));
        });
        partitions = Collections.unmodifiableMap(new LinkedHashMap<>(sorted));
    }

    /** Records of one source partition in offset order; empty if none. */
    public List<ProducedRecord> records(TopicPartition partition) {
        return partitions.getOrDefault(partition, List.of());
    }

    /** Source topics with at least one acknowledged record. */
    public Set<String> topics() {
        Set<String> topics = new LinkedHashSet<>();
        partitions.keySet().forEach(partition -> topics.add(partition.topic()));
        return topics;
    }

    /** Total acknowledged records. */
    public long size() {
        return partitions.values().stream().mapToLong(List::size).sum();
    }

    /** A copy with {@code extra} records added to {@code partition}: for tests that need a wrong expectation. */
    public ProducedLog plus(TopicPartition partition, List<ProducedRecord> extra) {
        Map<TopicPartition, List<ProducedRecord>> copy = new LinkedHashMap<>(partitions);
        List<ProducedRecord> records = new ArrayList<>(records(partition));
        records.addAll(extra);
        copy.put(partition, records);
        return new ProducedLog(runId, copy, failedSends);
    }

    @Override
    public String toString() {
        return "ProducedLog[run=" + runId + ", records=" + size() + ", partitions=" + partitions.size()
                + ", failedSends=" + failedSends + "]";
    }
}
