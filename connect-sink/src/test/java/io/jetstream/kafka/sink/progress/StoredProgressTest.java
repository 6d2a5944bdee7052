package io.jetstream.kafka.sink.progress;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class StoredProgressTest {

    @Test
    void aProgressReadWaitsAtMostTheFixedCapOrTheConfiguredCallBoundIfLower() {
        assertThat(StoredProgress.progressReadTimeout(Duration.ofSeconds(30)))
                .isEqualTo(StoredProgress.PROGRESS_READ_TIMEOUT);
        assertThat(StoredProgress.progressReadTimeout(Duration.ofMillis(500))).isEqualTo(Duration.ofMillis(500));
    }
}
