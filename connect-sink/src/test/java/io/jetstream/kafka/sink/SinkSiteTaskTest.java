package io.jetstream.kafka.sink;

import org.junit.jupiter.api.Test;

class SinkSiteTaskTest {

    @Test
    void aTaskThatNeverStartedStopsQuietly() {
        new SinkSiteTask(() -> 0L).stop();
    }
}
