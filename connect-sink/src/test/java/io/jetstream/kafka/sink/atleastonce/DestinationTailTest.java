package io.jetstream.kafka.sink.atleastonce;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.core.batch.RecordHeader;
import io.jetstream.kafka.core.batch.ReplicatedRecord;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class DestinationTailTest {

    @Test
    void aRecordReadBackHasTheFingerprintOfTheRecordReplicated() {
        ReplicatedRecord replicated = new ReplicatedRecord(7, 1234L, TimestampType.CREATE_TIME, "k".getBytes(), null,
                List.of(new RecordHeader("h", "v".getBytes())));
        RecordHeaders headers = new RecordHeaders();
        headers.add("h", "v".getBytes());
        ConsumerRecord<byte[], byte[]> readBack = new ConsumerRecord<>("A.orders", 0, 99, 1234L,
                TimestampType.CREATE_TIME, 1, -1, "k".getBytes(), null, headers, Optional.empty());
        assertThat(DestinationTail.fingerprint(readBack, true)).isEqualTo(DestinationTail.fingerprint(replicated, true));
        ConsumerRecord<byte[], byte[]> otherTime = new ConsumerRecord<>("A.orders", 0, 99, 1235L,
                TimestampType.CREATE_TIME, 1, -1, "k".getBytes(), null, headers, Optional.empty());
        assertThat(DestinationTail.fingerprint(otherTime, true)).isNotEqualTo(DestinationTail.fingerprint(replicated, true));
        assertThat(DestinationTail.fingerprint(otherTime, false)).isEqualTo(DestinationTail.fingerprint(replicated, false));
    }

    @Test
    void locatesTheEarliestPositionWhoseFollowingRecordsAllMatch() {
        long[] window = {5, 1, 2, 9, 1, 2, 3};
        assertThat(DestinationTail.locate(window, new long[] {1, 2, 3, 4})).as("1,2 then 9 breaks the first run")
                .isEqualTo(4);
        assertThat(DestinationTail.locate(window, new long[] {3, 4})).isEqualTo(6);
        assertThat(DestinationTail.locate(window, new long[] {8})).isEqualTo(-1);
        assertThat(DestinationTail.locate(window, new long[] {})).isEqualTo(-1);
    }
}
