package io.jetstream.kafka.testkit.workload;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

/**
 * Compares records consumed at a destination, one at a time, with a {@link ProducedLog}; the pure part of the
 * {@link Verifier}, usable on its own with records from any consumer.
 *
 * <p>A record belongs to the run when its {@link RecordFactory#RUN_HEADER} matches; otherwise it is foreign and
 * ignored. Its {@link RecordFactory#SEQUENCE_HEADER} finds the expected record. The first copy counts as delivered and
 * is checked for its topic (the mapped source topic), its partition (when required), its order and its fields; later
 * copies count as duplicates only. Order is checked per (source partition, destination partition): records must be fed
 * in destination offset order per destination partition, as a consumer returns them.
 *
 * <p>Not thread-safe: feed it from one thread.
 */
public final class DeliveryTracker {

    private static final int SAMPLE_SIZE = 10;

    /** Where an expected record sits at the source. */
    private record Expectation(TopicPartition source, int position, ProducedRecord record) {
    }

    private final String runId;
    private final UnaryOperator<String> topicMapping;
    private final boolean samePartitions;
    private final boolean checkTimestamps;
    private final Set<String> ignoredHeaders;
    private final Map<Long, Expectation> bySequence = new HashMap<>();
    private final Map<Long, Integer> copies = new HashMap<>();
    /** Highest source position delivered so far, per source partition and destination partition. */
    private final Map<List<TopicPartition>, Integer> highestPosition = new HashMap<>();
    private final List<String> problemSample = new ArrayList<>();
    private long delivered;
    private long duplicates;
    private long orderViolations;
    private long partitionMismatches;
    private long fieldMismatches;
    private long unexpected;
    private long foreign;

    /**
     * @param expected        what the source acknowledged
     * @param topicMapping    destination topic of each source topic
     * @param samePartitions  whether a record must land in the partition number it had at the source
     * @param checkTimestamps whether timestamps must be preserved
     * @param ignoredHeaders  header keys left out of the headers comparison (headers a replicator may add)
     */
    public DeliveryTracker(ProducedLog expected, UnaryOperator<String> topicMapping, boolean samePartitions,
                           boolean checkTimestamps, Set<String> ignoredHeaders) {
        this.runId = Objects.requireNonNull(expected, "expected").runId();
        this.topicMapping = Objects.requireNonNull(topicMapping, "topicMapping");
        this.samePartitions = samePartitions;
        this.checkTimestamps = checkTimestamps;
        this.ignoredHeaders = Set.copyOf(ignoredHeaders);
        expected.partitions().forEach((partition, records) -> {
            for (int i = 0; i < records.size(); i++) {
                ProducedRecord record = records.get(i);
                if (bySequence.put(record.sequence(), new Expectation(partition, i, record)) != null) {
                    throw new IllegalArgumentException("produced log of run " + runId + " holds sequence id "
                            + record.sequence() + " twice");
                }
            }
        });
    }

    public void observe(ConsumerRecord<byte[], byte[]> record) {
        Header run = record.headers().lastHeader(RecordFactory.RUN_HEADER);
        Header sequenceHeader = record.headers().lastHeader(RecordFactory.SEQUENCE_HEADER);
        boolean ofThisRun = run != null && sequenceHeader != null
                && runId.equals(run.value() == null ? null : new String(run.value(), StandardCharsets.UTF_8));
        if (!ofThisRun) {
            foreign++;
            return;
        }
        long sequence = RecordFactory.decodeSequence(sequenceHeader.value());
        Expectation expectation = bySequence.get(sequence);
        if (expectation == null) {
            unexpected++;
            sample("unexpected sequence id " + sequence + " at " + where(record));
            return;
        }
        int copy = copies.merge(sequence, 1, Integer::sum);
        if (copy > 1) {
            duplicates++;
            return;
        }
        delivered++;
        checkPlacement(record, expectation);
        checkOrder(record, expectation);
        checkFields(record, expectation);
    }

    private void checkPlacement(ConsumerRecord<byte[], byte[]> record, Expectation expectation) {
        TopicPartition source = expectation.source();
        boolean rightTopic = record.topic().equals(topicMapping.apply(source.topic()));
        boolean rightPartition = !samePartitions || record.partition() == source.partition();
        if (!rightTopic || !rightPartition) {
            partitionMismatches++;
            sample("sequence id " + expectation.record().sequence() + " from " + source + " landed in "
                    + where(record));
        }
    }

    private void checkOrder(ConsumerRecord<byte[], byte[]> record, Expectation expectation) {
        List<TopicPartition> path =
                List.of(expectation.source(), new TopicPartition(record.topic(), record.partition()));
        Integer highest = highestPosition.get(path);
        if (highest != null && expectation.position() < highest) {
            orderViolations++;
            sample("sequence id " + expectation.record().sequence() + " (" + expectation.source() + "@"
                    + expectation.record().offset() + ") arrived after a later record, at " + where(record));
        } else {
            highestPosition.put(path, expectation.position());
        }
    }

    private void checkFields(ConsumerRecord<byte[], byte[]> record, Expectation expectation) {
        ProducedRecord want = expectation.record();
        List<String> differing = new ArrayList<>(4);
        if (RecordHashes.bytes(record.key()) != want.keyHash()) {
            differing.add("key");
        }
        if (RecordHashes.bytes(record.value()) != want.valueHash()) {
            differing.add("value");
        }
        if (RecordHashes.headers(record.headers(), ignoredHeaders) != want.headersHash()) {
            differing.add("headers");
        }
        if (checkTimestamps && record.timestamp() != want.timestamp()) {
            differing.add("timestamp");
        }
        if (!differing.isEmpty()) {
            fieldMismatches++;
            sample("sequence id " + want.sequence() + " at " + where(record) + ": " + String.join(", ", differing)
                    + " differ");
        }
    }

    private void sample(String problem) {
        if (problemSample.size() < SAMPLE_SIZE) {
            problemSample.add(problem);
        }
    }

    private static String where(ConsumerRecord<?, ?> record) {
        return record.topic() + "-" + record.partition() + "@" + record.offset();
    }

    /** Expected records seen at least once so far. */
    public long delivered() {
        return delivered;
    }

    public boolean allDelivered() {
        return delivered == bySequence.size();
    }

    public VerificationReport report(Duration elapsed) {
        List<Long> missingSample = bySequence.keySet().stream()
                .filter(sequence -> !copies.containsKey(sequence))
                .sorted()
                .limit(SAMPLE_SIZE)
                .toList();
        return new VerificationReport(bySequence.size(), delivered, bySequence.size() - delivered, duplicates,
                orderViolations, partitionMismatches, fieldMismatches, unexpected, foreign, elapsed, missingSample,
                problemSample);
    }
}
