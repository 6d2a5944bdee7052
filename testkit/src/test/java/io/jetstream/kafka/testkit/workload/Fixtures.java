package io.jetstream.kafka.testkit.workload;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

/**
 * A fake source and destination without a broker: record {@code seq} of a 2-partition topic sits at source partition
 * {@code seq % 2}, offset {@code seq / 2}; destination records are built from the same {@link RecordFactory}.
 */
final class Fixtures {

    static final String TOPIC = "orders";
    static final int PARTITIONS = 2;
    static final WorkloadSpec SPEC = WorkloadSpec.builder(TOPIC, PARTITIONS).records(20).valueBytes(64).build();
    static final RecordFactory FACTORY = new RecordFactory(SPEC, "run-1", 1_000L);

    private Fixtures() {
    }

    /** What the source acknowledged for sequence ids 0 until {@code count}. */
    static ProducedLog producedLog(int count) {
        Map<TopicPartition, List<ProducedRecord>> partitions = new HashMap<>();
        for (long seq = 0; seq < count; seq++) {
            ProducerRecord<byte[], byte[]> record = FACTORY.create(seq);
            partitions.computeIfAbsent(new TopicPartition(TOPIC, record.partition()), tp -> new ArrayList<>())
                    .add(new ProducedRecord(seq / PARTITIONS, seq, RecordHashes.bytes(record.key()),
                            RecordHashes.bytes(record.value()), RecordHashes.headers(record.headers(), Set.of()),
                            record.timestamp()));
        }
        return new ProducedLog(FACTORY.runId(), partitions, 0);
    }

    /** Sequence ids of source partition {@code partition} in source order, for ids 0 until {@code count}. */
    static List<Long> sourceOrder(int partition, int count) {
        List<Long> sequences = new ArrayList<>();
        for (long seq = partition; seq < count; seq += PARTITIONS) {
            sequences.add(seq);
        }
        return sequences;
    }

    /** Destination records with the given sequence ids, at consecutive offsets from 0 in the given order. */
    static List<ConsumerRecord<byte[], byte[]>> destination(String topic, int partition, List<Long> sequences) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        long offset = 0;
        for (long seq : sequences) {
            records.add(copy(FACTORY.create(seq), topic, partition, offset++));
        }
        return records;
    }

    /** The destination copy of a produced record. */
    static ConsumerRecord<byte[], byte[]> copy(ProducerRecord<byte[], byte[]> source, String topic, int partition,
                                               long offset) {
        return new ConsumerRecord<>(topic, partition, offset, source.timestamp(), TimestampType.CREATE_TIME,
                source.key() == null ? -1 : source.key().length, source.value() == null ? -1 : source.value().length,
                source.key(), source.value(), new RecordHeaders(source.headers().toArray()), Optional.empty());
    }
}
