package io.jetstream.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.connect.common.view.Json;
import io.jetstream.kafka.core.model.AdaptiveBatchPolicy;
import io.jetstream.kafka.core.model.AdaptiveBatchSettings;
import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.DecisionExplanation;
import io.jetstream.kafka.core.model.DecisionReason;
import io.jetstream.kafka.core.model.FixedBatchPolicy;
import io.jetstream.kafka.core.model.LatencyPrediction;
import io.jetstream.kafka.core.model.ModelInputs;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SourceTaskViewTest {

    private static final long MS = 1_000_000L;

    private final AtomicLong now = new AtomicLong(1_000 * MS);
    private final Deliveries deliveries = new Deliveries();
    private final SourceTaskView.Sources sources = new SourceTaskView.Sources(() -> 4096L, () -> 2, () -> false,
            () -> new ReplicationLag.Figures(120, 122_880, Double.POSITIVE_INFINITY), () -> 6);

    @Test
    void fixedCapsShowTheConfigurationAsReasonAndNoPrediction() {
        BatchDecision caps = BatchDecision.of(500, 1 << 20, Duration.ofMillis(25), 8, 64L << 20, DecisionReason.FIXED);
        SourceTaskView view = new SourceTaskView("A", "B", "lz4", new FixedBatchPolicy(caps), now::get, deliveries,
                sources);

        Map<String, Object> members = view.view();

        assertThat(members).containsEntry("role", "source-site").containsEntry("batch_policy", "fixed")
                .containsEntry("reason", "fixed").containsEntry("held", false)
                .containsEntry("predicted_latency_ms", null).doesNotContainKeys("model_inputs", "decision_changes");
        assertThat(Json.write(members)).contains("\"caps\":{\"max_records\":500,\"max_bytes\":1048576,"
                + "\"linger_ms\":25,\"window_batches\":8,")
                .contains("\"binding_constraint\":{\"name\":\"configuration\",\"utilisation\":null}")
                .contains("\"measured_latency_ms\":null")
                .contains("\"sender\":{\"buffered_bytes\":4096,\"in_flight_batches\":2,\"paused\":false,"
                        + "\"assigned_partitions\":6}")
                .contains("\"lag\":{\"records\":120,\"bytes\":122880,\"catch_up_seconds\":null}");
    }

    @Test
    void anAdaptivePolicyShowsItsReasonInputsPredictionAndTheMeasuredLatency() {
        AdaptiveBatchPolicy policy = new AdaptiveBatchPolicy(AdaptiveBatchSettings.builder().build());
        // 2,000 records/s of 1 KiB in batches of 20, each acknowledged 60 ms after it was sent
        for (int i = 0; i < 300; i++) {
            long t = now.addAndGet(10 * MS);
            policy.onRecordsArrived(20, 20 * 1024, t);
            policy.onBatchSent(20, 20 * 1024, 12_000, 50_000, t);
            policy.onBatchAcked(20, 12_000, t - 60 * MS, t, t - 70 * MS);
            policy.onRttSample(50 * MS, t);
            deliveries.batchSent(20, 20 * 1024, 12_000);
            deliveries.batchAcked(20, 70 * MS);
            policy.decision(t);
        }
        SourceTaskView view = new SourceTaskView("A", "B", "zstd", policy, now::get, deliveries, sources);

        Map<String, Object> members = view.view();

        assertThat(members).containsEntry("batch_policy", "adaptive").containsKeys("model_inputs", "prediction",
                "best_candidate", "hysteresis", "decision_changes");
        assertThat(members.get("reason")).isNotEqualTo("fixed").isNotEqualTo("warmup");
        assertThat((Double) members.get("predicted_latency_ms")).isPositive();
        assertThat((Double) members.get("measured_latency_ms")).isEqualTo(70.0);
        String json = Json.write(members);
        assertThat(json).contains("\"arrival_records_per_second\":").contains("\"rtt_ms\":50")
                .contains("\"hysteresis\":{\"min_gain\":0.05,\"min_dwell_ms\":1000,")
                .contains("\"records_acked\":6000");
    }

    @Test
    void theBindingConstraintIsTheBusiestResourceOnceItIsHalfBusy() {
        assertThat(SourceTaskView.binding(DecisionReason.LATENCY_OPTIMAL, explanation(0.8, 0.3, 0.1)))
                .containsEntry("name", "link").containsEntry("utilisation", 0.8);
        assertThat(SourceTaskView.binding(DecisionReason.SATURATED, explanation(0.4, 0.9, 0.1)))
                .containsEntry("name", "encoder");
        assertThat(SourceTaskView.binding(DecisionReason.NO_HEADROOM, explanation(0.4, 0.3, 0.6)))
                .containsEntry("name", "far-end");
        assertThat(SourceTaskView.binding(DecisionReason.LATENCY_OPTIMAL, explanation(0.2, 0.3, 0.1)))
                .containsEntry("name", "latency").containsEntry("utilisation", 0.3);
        assertThat(SourceTaskView.binding(DecisionReason.WARMUP, null)).containsEntry("name", "warm-up");
    }

    @Test
    void reasonsReadAsTheDocsWriteThem() {
        assertThat(SourceTaskView.reasonName(DecisionReason.DRAIN_BACKLOG)).isEqualTo("drain-backlog");
        assertThat(SourceTaskView.reasonName(DecisionReason.WARMUP)).isEqualTo("warmup");
    }

    private static DecisionExplanation explanation(double link, double encoder, double farEnd) {
        LatencyPrediction p = new LatencyPrediction(100, 50_000, 4, 1e6, 1e5, 0, 25e6, 1e6, 1e5, link, encoder,
                10_000, true, 0, farEnd);
        ModelInputs in = new ModelInputs(1_000, 1_000, 1024, 0.5, 1e4, 1, 4.7e6, 50e6, 60e6, 0);
        return new DecisionExplanation(0, in, p, p, false, 10);
    }
}
