package io.jetstream.kafka.sink.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.connect.common.view.Json;
import org.junit.jupiter.api.Test;

class SinkTaskViewTest {

    private final SinkActivity activity = new SinkActivity();

    @Test
    void beforeAnythingArrivesTheFiguresAreNullAndTheTotalsZero() {
        SinkTaskView view = new SinkTaskView("A", "B", false, activity, () -> Double.NaN, () -> 0L, null);

        assertThat(Json.write(view.view())).isEqualTo("{\"role\":\"destination-site\",\"source_alias\":\"A\","
                + "\"target_alias\":\"B\",\"delivery\":\"at-least-once\",\"activity\":{\"records_out\":0,"
                + "\"duplicates_dropped\":0,\"commits\":0,\"last_write_age_ms\":null,\"last_commit_age_ms\":null,"
                + "\"replication_latency_ms\":null,\"batch_transit_ms\":null},\"heartbeat_age_seconds\":null,"
                + "\"pending\":{\"buffered_bytes\":0,\"commits_awaiting_stability\":null}}");
    }

    @Test
    void writesCommitsAndLatenciesShowAsTheyHappen() {
        activity.recordsOut(100);
        activity.duplicates(3);
        activity.written(40);
        activity.batchTransit(20);
        activity.committed();
        SinkTaskView view = new SinkTaskView("A", "B", true, activity, () -> 0.5, () -> 2048L, () -> 1L);

        String json = Json.write(view.view());

        assertThat(json).contains("\"delivery\":\"exactly-once\"").contains("\"records_out\":100")
                .contains("\"duplicates_dropped\":3").contains("\"commits\":1")
                .contains("\"replication_latency_ms\":40").contains("\"batch_transit_ms\":20")
                .contains("\"heartbeat_age_seconds\":0.5")
                .contains("\"pending\":{\"buffered_bytes\":2048,\"commits_awaiting_stability\":1}")
                .doesNotContain("\"last_write_age_ms\":null").doesNotContain("\"last_commit_age_ms\":null");
    }
}
