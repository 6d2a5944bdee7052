package io.jetstream.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jetstream.kafka.core.batch.ReplicatedRecord;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

class RecordIntakeTest {

    @Test
    void aRecordKeepsItsOffsetTimestampKeyValueAndHeaders() {
        ConnectHeaders headers = new ConnectHeaders();
        headers.addBytes("trace", new byte[] {1, 2});
        SinkRecord record = new SinkRecord("orders", 3, Schema.BYTES_SCHEMA, new byte[] {7}, Schema.BYTES_SCHEMA,
                new byte[] {8, 9}, 41L, 1_700_000_000_000L, TimestampType.LOG_APPEND_TIME, headers);

        ReplicatedRecord replicated = RecordIntake.toReplicated(record);

        assertThat(replicated.offset()).isEqualTo(41L);
        assertThat(replicated.timestamp()).isEqualTo(1_700_000_000_000L);
        assertThat(replicated.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        assertThat(replicated.key()).containsExactly(7);
        assertThat(replicated.value()).containsExactly(8, 9);
        assertThat(replicated.headers()).singleElement().satisfies(h -> {
            assertThat(h.key()).isEqualTo("trace");
            assertThat(h.value()).containsExactly(1, 2);
        });
    }

    @Test
    void aRecordWithoutTimestampOrValueStaysSo() {
        SinkRecord record = new SinkRecord("orders", 0, null, null, null, null, 5L, null, TimestampType.CREATE_TIME);

        ReplicatedRecord replicated = RecordIntake.toReplicated(record);

        assertThat(replicated.timestamp()).isEqualTo(-1L);
        assertThat(replicated.timestampType()).isEqualTo(TimestampType.NO_TIMESTAMP_TYPE);
        assertThat(replicated.key()).isNull();
        assertThat(replicated.value()).isNull();
    }

    @Test
    void aValueThatIsNotBytesNamesTheConverterToSet() {
        SinkRecord record = new SinkRecord("orders", 1, null, null, Schema.STRING_SCHEMA, "text", 9L);

        assertThatThrownBy(() -> RecordIntake.toReplicated(record))
                .isInstanceOf(DataException.class)
                .hasMessageContaining("orders-1@9")
                .hasMessageContaining("value.converter=org.apache.kafka.connect.converters.ByteArrayConverter");
    }
}
