package io.jetstream.kafka.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
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
}
