package io.jetstream.kafka.sink.progress;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.sink.receiver.ReplicationReceiver;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class SourceOffsetsTest {

    /**
     * Issue 32: the incarnations a partition left are stored with its progress, every one of them, so
     * that a restarted task still refuses a replayed batch of any of them as obsolete.
     */
    @Test
    void theStoredProgressKeepsEveryIncarnationThePartitionLeft() {
        Uuid first = Uuid.randomUuid();
        Uuid second = Uuid.randomUuid();
        Uuid third = Uuid.randomUuid();
        Uuid current = Uuid.randomUuid();
        ReplicationReceiver.Incarnation incarnation = new ReplicationReceiver.Incarnation(first, Uuid.ZERO_UUID)
                .replacedBy(second).replacedBy(third).replacedBy(current);

        Map<String, Object> stored = SourceOffsets.sourceOffset(41, incarnation, SourceOffsets.UNKNOWN_DESTINATION_OFFSET);

        assertThat(SourceOffsets.progressOf(stored))
                .isEqualTo(new ReplicationReceiver.Progress(41, current, third, List.of(second, first)));
        assertThat(stored).as("Connect stores primitive values only").allSatisfy((key, value) ->
                assertThat(value).isInstanceOfAny(String.class, Long.class));
        assertThat(SourceOffsets.progressOf(SourceOffsets.sourceOffset(7,
                new ReplicationReceiver.Incarnation(current, Uuid.ZERO_UUID), SourceOffsets.UNKNOWN_DESTINATION_OFFSET)))
                .as("no incarnation left: nothing more stored than before")
                .isEqualTo(new ReplicationReceiver.Progress(7, current, Uuid.ZERO_UUID));
    }
}
