package io.jetstream.kafka.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class SinkSiteTaskTest {

    @Test
    void aProgressReadWaitsAtMostTheFixedCapOrTheConfiguredCallBoundIfLower() {
        assertThat(SinkSiteTask.progressReadTimeout(Duration.ofSeconds(30))).isEqualTo(SinkSiteTask.PROGRESS_READ_TIMEOUT);
        assertThat(SinkSiteTask.progressReadTimeout(Duration.ofMillis(500))).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void aTaskThatNeverStartedStopsQuietly() {
        new SinkSiteTask(() -> 0L).stop();
    }

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

        Map<String, Object> stored = SinkSiteTask.sourceOffset(41, incarnation, DestinationOffsets.UNKNOWN);

        assertThat(SinkSiteTask.progressOf(stored))
                .isEqualTo(new ReplicationReceiver.Progress(41, current, third, List.of(second, first)));
        assertThat(stored).as("Connect stores primitive values only").allSatisfy((key, value) ->
                assertThat(value).isInstanceOfAny(String.class, Long.class));
        assertThat(SinkSiteTask.progressOf(SinkSiteTask.sourceOffset(7,
                new ReplicationReceiver.Incarnation(current, Uuid.ZERO_UUID), DestinationOffsets.UNKNOWN)))
                .as("no incarnation left: nothing more stored than before")
                .isEqualTo(new ReplicationReceiver.Progress(7, current, Uuid.ZERO_UUID));
    }
}
