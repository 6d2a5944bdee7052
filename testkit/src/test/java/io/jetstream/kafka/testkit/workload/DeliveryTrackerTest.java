package io.jetstream.kafka.testkit.workload;

import static io.jetstream.kafka.testkit.workload.Fixtures.FACTORY;
import static io.jetstream.kafka.testkit.workload.Fixtures.TOPIC;
import static io.jetstream.kafka.testkit.workload.Fixtures.copy;
import static io.jetstream.kafka.testkit.workload.Fixtures.destination;
import static io.jetstream.kafka.testkit.workload.Fixtures.producedLog;
import static io.jetstream.kafka.testkit.workload.Fixtures.sourceOrder;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class DeliveryTrackerTest {

    private static final int COUNT = 20;

    private final ProducedLog log = producedLog(COUNT);

    @Test
    void perfectDeliveryIsPerfect() {
        DeliveryTracker tracker = tracker(true);
        feed(tracker, destination(TOPIC, 0, sourceOrder(0, COUNT)));
        feed(tracker, destination(TOPIC, 1, sourceOrder(1, COUNT)));

        VerificationReport report = tracker.report(Duration.ofMillis(5));

        assertThat(tracker.allDelivered()).isTrue();
        assertThat(report.isPerfect()).as(report.toString()).isTrue();
        assertThat(report.summaryLine())
                .isEqualTo("events=20 delivered=20 lost=0 duplicates=0 order=ok fields=ok");
    }

    @Test
    void missingRecordsAreCountedAndSampled() {
        DeliveryTracker tracker = tracker(true);
        feed(tracker, destination(TOPIC, 0, without(sourceOrder(0, COUNT), 4L)));
        feed(tracker, destination(TOPIC, 1, without(sourceOrder(1, COUNT), 7L)));

        VerificationReport report = tracker.report(Duration.ZERO);

        assertThat(report.missing()).isEqualTo(2);
        assertThat(report.delivered()).isEqualTo(18);
        assertThat(report.missingSample()).containsExactly(4L, 7L);
        assertThat(report.orderViolations()).isZero();
        assertThat(report.isPerfect()).isFalse();
        assertThat(report.summaryLine()).startsWith("events=20 delivered=18 lost=2 duplicates=0 order=ok");
    }

    @Test
    void aReplayedRangeCountsDuplicatesButKeepsOrder() {
        List<Long> replayed = new ArrayList<>(sourceOrder(0, COUNT).subList(0, 5));  // 0 2 4 6 8
        replayed.addAll(sourceOrder(0, COUNT).subList(2, 10));                      // 4 6 8 10 ... 18
        DeliveryTracker tracker = tracker(true);
        feed(tracker, destination(TOPIC, 0, replayed));
        feed(tracker, destination(TOPIC, 1, sourceOrder(1, COUNT)));

        VerificationReport report = tracker.report(Duration.ZERO);

        assertThat(report.duplicates()).isEqualTo(3);
        assertThat(report.missing()).isZero();
        assertThat(report.orderOk()).isTrue();
        assertThat(report.isPerfect()).isFalse();
    }

    @Test
    void reorderingWithinASourcePartitionIsAViolation() {
        DeliveryTracker tracker = tracker(true);
        feed(tracker, destination(TOPIC, 0, List.of(0L, 4L, 2L, 6L, 8L, 10L, 12L, 14L, 16L, 18L)));
        feed(tracker, destination(TOPIC, 1, sourceOrder(1, COUNT)));

        VerificationReport report = tracker.report(Duration.ZERO);

        assertThat(report.orderViolations()).isEqualTo(1);
        assertThat(report.problemSample()).singleElement().asString().contains("sequence id 2 ");
        assertThat(report.summaryLine()).contains("order=violated");
    }

    @Test
    void interleavingOfDifferentSourcePartitionsIsNotAViolation() {
        List<ConsumerRecord<byte[], byte[]>> merged = new ArrayList<>();
        for (long seq = 0; seq < COUNT; seq++) {
            merged.add(copy(FACTORY.create(seq), TOPIC, 0, seq)); // source partitions 0 and 1 merged into one
        }
        DeliveryTracker tracker = tracker(false);
        feed(tracker, merged);

        assertThat(tracker.report(Duration.ZERO).isPerfect()).isTrue();
    }

    @Test
    void samePartitionsRequiresThePartitionNumberOfTheSource() {
        DeliveryTracker strict = tracker(true);
        DeliveryTracker lenient = tracker(false);
        for (DeliveryTracker tracker : List.of(strict, lenient)) {
            feed(tracker, destination(TOPIC, 1, sourceOrder(0, COUNT)));
            feed(tracker, destination(TOPIC, 0, sourceOrder(1, COUNT)));
        }

        assertThat(strict.report(Duration.ZERO).partitionMismatches()).isEqualTo(COUNT);
        assertThat(strict.report(Duration.ZERO).orderOk()).isFalse();
        assertThat(lenient.report(Duration.ZERO).isPerfect()).isTrue();
    }

    @Test
    void recordsMustLandInTheMappedTopic() {
        UnaryOperator<String> mirrorMaker = topic -> "A." + topic;
        DeliveryTracker mapped = new DeliveryTracker(log, mirrorMaker, true, true, Set.of());
        feed(mapped, destination("A.orders", 0, sourceOrder(0, COUNT)));
        feed(mapped, destination("orders", 1, sourceOrder(1, COUNT)));

        VerificationReport report = mapped.report(Duration.ZERO);

        assertThat(report.partitionMismatches()).isEqualTo(COUNT / 2);
        assertThat(report.problemSample().get(0)).contains("landed in orders-1@0");
    }

    @Test
    void changedKeyValueHeadersOrTimestampAreFieldMismatches() {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>(destination(TOPIC, 0, sourceOrder(0, COUNT)));
        ProducerRecord<byte[], byte[]> second = FACTORY.create(2);
        records.set(1, new Tampered(second).value("tampered").build(0, 1));
        ProducerRecord<byte[], byte[]> third = FACTORY.create(4);
        records.set(2, new Tampered(third).timestamp(third.timestamp() + 1).build(0, 2));
        ProducerRecord<byte[], byte[]> fourth = FACTORY.create(6);
        records.set(3, new Tampered(fourth).addHeader("replicator.hop", "relay-1").build(0, 3));
        DeliveryTracker strict = tracker(true);
        DeliveryTracker ignoringHop = new DeliveryTracker(log, UnaryOperator.identity(), true, true,
                Set.of("replicator.hop"));
        DeliveryTracker ignoringTimestamps = new DeliveryTracker(log, UnaryOperator.identity(), true, false,
                Set.of("replicator.hop"));
        for (DeliveryTracker tracker : List.of(strict, ignoringHop, ignoringTimestamps)) {
            feed(tracker, records);
            feed(tracker, destination(TOPIC, 1, sourceOrder(1, COUNT)));
        }

        VerificationReport report = strict.report(Duration.ZERO);
        assertThat(report.fieldMismatches()).isEqualTo(3);
        assertThat(report.problemSample()).anySatisfy(p -> assertThat(p).contains("sequence id 2").endsWith(
                "value differ"));
        assertThat(report.summaryLine()).endsWith("fields=mismatched");
        assertThat(ignoringHop.report(Duration.ZERO).fieldMismatches()).isEqualTo(2);
        assertThat(ignoringTimestamps.report(Duration.ZERO).fieldMismatches()).isEqualTo(1);
    }

    @Test
    void recordsOfOtherRunsAreForeignAndUnknownSequencesUnexpected() {
        DeliveryTracker tracker = tracker(true);
        feed(tracker, destination(TOPIC, 0, sourceOrder(0, COUNT)));
        feed(tracker, destination(TOPIC, 1, sourceOrder(1, COUNT)));
        RecordFactory otherRun = new RecordFactory(Fixtures.SPEC, "run-2", 1_000L);
        tracker.observe(copy(otherRun.create(3), TOPIC, 1, 100));
        tracker.observe(new ConsumerRecord<>(TOPIC, 1, 101, null, "no headers".getBytes(StandardCharsets.UTF_8)));
        tracker.observe(copy(FACTORY.create(999), TOPIC, 1, 102));

        VerificationReport report = tracker.report(Duration.ZERO);

        assertThat(report.foreign()).isEqualTo(2);
        assertThat(report.unexpected()).isEqualTo(1);
        assertThat(report.missing()).isZero();
        assertThat(report.isPerfect()).isFalse();
    }

    @Test
    void aLogWithTheSameSequenceTwiceIsRejected() {
        ProducedRecord record = log.records(new TopicPartition(TOPIC, 0)).get(0);
        ProducedLog broken = log.plus(new TopicPartition(TOPIC, 1), List.of(record));

        assertThatThrownBy(() -> tracker(broken)).hasMessageContaining("sequence id 0 twice");
    }

    @Test
    void reportArithmetic() {
        VerificationReport clean = new VerificationReport(5, 5, 0, 0, 0, 0, 0, 0, 7, Duration.ofMillis(12),
                List.of(), List.of());
        VerificationReport lossy = new VerificationReport(5, 3, 2, 1, 0, 0, 0, 0, 0, Duration.ZERO,
                List.of(1L, 4L), List.of());

        assertThat(clean.isPerfect()).isTrue();
        assertThat(clean).hasToString("events=5 delivered=5 lost=0 duplicates=0 order=ok fields=ok order_violations=0"
                + " partition_mismatches=0 field_mismatches=0 unexpected=0 foreign=7 elapsed_ms=12");
        assertThat(lossy.isPerfect()).isFalse();
        assertThat(lossy.toString()).contains("lost=2 duplicates=1").endsWith("missing_sample=[1, 4]");
    }

    private DeliveryTracker tracker(boolean samePartitions) {
        return new DeliveryTracker(log, UnaryOperator.identity(), samePartitions, true, Set.of());
    }

    private static DeliveryTracker tracker(ProducedLog log) {
        return new DeliveryTracker(log, UnaryOperator.identity(), true, true, Set.of());
    }

    private static void feed(DeliveryTracker tracker, List<ConsumerRecord<byte[], byte[]>> records) {
        records.forEach(tracker::observe);
    }

    private static List<Long> without(List<Long> sequences, long dropped) {
        List<Long> copy = new ArrayList<>(sequences);
        copy.remove(dropped);
        return copy;
    }

    /** Derives a changed destination record from a produced one. */
    private static final class Tampered {
        private final ProducerRecord<byte[], byte[]> source;
        private byte[] value;
        private long timestamp;
        private final RecordHeaders headers;

        Tampered(ProducerRecord<byte[], byte[]> source) {
            this.source = source;
            this.value = source.value();
            this.timestamp = source.timestamp();
            this.headers = new RecordHeaders(source.headers().toArray());
        }

        Tampered value(String text) {
            this.value = text.getBytes(StandardCharsets.UTF_8);
            return this;
        }

        Tampered timestamp(long newTimestamp) {
            this.timestamp = newTimestamp;
            return this;
        }

        Tampered addHeader(String key, String text) {
            headers.add(new RecordHeader(key, text.getBytes(StandardCharsets.UTF_8)));
            return this;
        }

        ConsumerRecord<byte[], byte[]> build(int partition, long offset) {
            return copy(new ProducerRecord<>(source.topic(), source.partition(), timestamp, source.key(), value,
                    headers), TOPIC, partition, offset);
        }
    }
}
