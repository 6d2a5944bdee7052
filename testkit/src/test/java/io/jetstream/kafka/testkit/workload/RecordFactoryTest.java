package io.jetstream.kafka.testkit.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPOutputStream;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

class RecordFactoryTest {

    private final WorkloadSpec spec = WorkloadSpec.builder("orders", 3).records(1_000).valueBytes(200)
            .nullKeyEvery(10).nullValueEvery(50).extraHeaders(4).build();
    private final RecordFactory factory = new RecordFactory(spec, "run-1", 1_000_000L);

    @Test
    void recordsFollowFromTheirSequenceId() {
        ProducerRecord<byte[], byte[]> record = factory.create(7);

        assertThat(record.topic()).isEqualTo("orders");
        assertThat(record.partition()).isEqualTo(1);
        assertThat(record.timestamp()).isEqualTo(1_000_007L);
        assertThat(new String(record.key(), StandardCharsets.US_ASCII)).isEqualTo("key-7");
        assertThat(record.value()).hasSize(200);
        assertThat(new String(record.value(), StandardCharsets.US_ASCII)).startsWith("seq=000000000007;");
        assertThat(factory.create(7).value()).isEqualTo(record.value());
        assertThat(factory.create(8).value()).isNotEqualTo(record.value());
    }

    @Test
    void someKeysValuesAndHeaderValuesAreNull() {
        assertThat(factory.create(9).key()).isNull();
        assertThat(factory.create(10).key()).isNotNull();
        assertThat(factory.create(49).value()).isNull();
        assertThat(factory.create(48).value()).isNotNull();

        Header[] headers = factory.create(0).headers().toArray();
        assertThat(headers).extracting(Header::key)
                .containsExactly("js.run", "js.seq", "origin", "trace-id", "h2", "h3");
        assertThat(factory.create(0).headers().lastHeader("h2").value()).isNull();
        assertThat(factory.create(1).headers().lastHeader("h2").value()).isNotNull();
    }

    @Test
    void sequenceHeaderRoundTrips() {
        Header sequence = factory.create(123_456_789L).headers().lastHeader(RecordFactory.SEQUENCE_HEADER);

        assertThat(RecordFactory.decodeSequence(sequence.value())).isEqualTo(123_456_789L);
        assertThat(RecordFactory.decodeSequence(new byte[3])).isEqualTo(-1);
        assertThat(RecordFactory.decodeSequence(null)).isEqualTo(-1);
    }

    @Test
    void valuesCompressLikeText() throws IOException {
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(compressed)) {
            for (long seq = 0; seq < 500; seq++) {
                byte[] value = factory.value(seq);
                if (value != null) {
                    raw.write(value);
                    gzip.write(value);
                }
            }
        }

        double ratio = (double) compressed.size() / raw.size();
        assertThat(ratio).as("gzip ratio").isBetween(0.15, 0.5);
    }

    @Test
    void specRejectsNonsenseWithTheFieldInTheMessage() {
        assertThatThrownBy(() -> WorkloadSpec.builder("t", 0).build()).hasMessageContaining("partitions must be > 0");
        assertThatThrownBy(() -> WorkloadSpec.builder("t", 1).compressionType("brotli").build())
                .hasMessageContaining("compressionType").hasMessageContaining("brotli");
        assertThatThrownBy(() -> WorkloadSpec.builder("t", 1).valueBytes(3).build())
                .hasMessageContaining("valueBytes");
    }

    @Test
    void randomLetterValuesAreUniformLettersAndRepeatable() {
        WorkloadSpec random = WorkloadSpec.builder("bench", 6).valueBytes(1024).nullKeyEvery(0).nullValueEvery(0)
                .extraHeaders(0).valueContent(WorkloadSpec.ValueContent.RANDOM_LETTERS).build();
        RecordFactory letters = new RecordFactory(random, "run-1", 0);
        int[] counts = new int[26];
        for (long seq = 0; seq < 200; seq++) {
            byte[] value = letters.create(seq).value();
            assertThat(value).hasSize(1024);
            for (byte b : value) {
                assertThat(b).isBetween((byte) 'A', (byte) 'Z');
                counts[b - 'A']++;
            }
        }
        int expected = 200 * 1024 / 26;
        for (int count : counts) {
            assertThat(count).isBetween(expected * 9 / 10, expected * 11 / 10);
        }
        assertThat(letters.create(5).value()).isEqualTo(letters.create(5).value());
        assertThat(letters.create(5).value()).isNotEqualTo(letters.create(6).value());
    }

    @Test
    void randomLettersCompressWithAnEntropyCoderOnly() throws IOException {
        WorkloadSpec random = WorkloadSpec.builder("bench", 6).valueBytes(1024).nullValueEvery(0)
                .valueContent(WorkloadSpec.ValueContent.RANDOM_LETTERS).build();
        RecordFactory letters = new RecordFactory(random, "run-1", 0);
        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        int raw = 0;
        try (GZIPOutputStream gzip = new GZIPOutputStream(compressed)) {
            for (long seq = 0; seq < 100; seq++) {
                byte[] value = letters.create(seq).value();
                raw += value.length;
                gzip.write(value);
            }
        }
        // 4.7 bits of entropy per byte: an entropy coder gets close to 59%, never much below.
        assertThat((double) compressed.size() / raw).isBetween(0.55, 0.70);
    }

    @Test
    void recordBytesCountKeyValueAndHeadersWithoutBuildingTheRecord() {
        for (long seq : new long[] {0, 7, 9, 49, 1023, 1024, 99_999}) {
            ProducerRecord<byte[], byte[]> record = factory.create(seq);
            long expected = (record.key() == null ? 0 : record.key().length)
                    + (record.value() == null ? 0 : record.value().length);
            for (Header header : record.headers()) {
                expected += header.key().getBytes(StandardCharsets.UTF_8).length
                        + (header.value() == null ? 0 : header.value().length);
            }
            assertThat(factory.recordBytes(seq)).as("seq " + seq).isEqualTo(expected);
        }
    }

    @Test
    void wallClockTimestampsAreTheTimeOfCreation() {
        WorkloadSpec stamped = WorkloadSpec.builder("bench", 6).wallClockTimestamps(true).build();
        long before = System.currentTimeMillis();
        long timestamp = new RecordFactory(stamped, "run-1", 0).create(3).timestamp();
        assertThat(timestamp).isBetween(before, System.currentTimeMillis());
    }
}
