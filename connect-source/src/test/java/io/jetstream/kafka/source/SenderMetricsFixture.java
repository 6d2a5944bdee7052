package io.jetstream.kafka.source;

import io.jetstream.kafka.connect.common.metrics.PluginMetricsRegistration;
import io.jetstream.kafka.connect.common.metrics.TaskMetrics;
import io.jetstream.kafka.source.sender.SenderEvents;
import java.util.Map;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;

/** The task's real metrics as the sender sees them, for the sender's tests in their own package. */
public final class SenderMetricsFixture {

    private SenderMetricsFixture() {
    }

    /** {@link SourceSiteMetrics} registered in {@code registry}, where a test reads them back. */
    public static SenderEvents events(Metrics registry) {
        return new SourceSiteMetrics(new TaskMetrics(new PluginMetricsRegistration(
                new PluginMetricsImpl(registry, Map.of()))));
    }
}
