package io.jetstream.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.jetstream.kafka.connect.common.view.Json;
import io.jetstream.kafka.core.environment.CpuLoad;
import io.jetstream.kafka.core.environment.OperatingPointMonitor;
import io.jetstream.kafka.core.model.AdaptiveBatchPolicy;
import io.jetstream.kafka.core.model.AdaptiveBatchSettings;
import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.BatchPolicy;
import io.jetstream.kafka.core.model.DecisionExplanation;
import io.jetstream.kafka.core.model.DecisionReason;
import io.jetstream.kafka.core.model.FixedBatchPolicy;
import io.jetstream.kafka.core.model.LatencyPrediction;
import io.jetstream.kafka.core.model.ModelInputs;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SourceTaskViewTest {

    private static final long MS = 1_000_000L;

    private final AtomicLong now = new AtomicLong(1_000 * MS);
    private final Deliveries deliveries = new Deliveries();

    /** The task's sources, its environment read from {@code monitor} (which watches the policy) on 2 cores. */
    private SourceTaskView.Sources sources(OperatingPointMonitor monitor) {
        TaskEnvironment environment = new TaskEnvironment(monitor, now::get, () -> false, () -> 6,
                () -> new CpuLoad(0.5, 2, 0.3));
        return new SourceTaskView.Sources(() -> 4096L, () -> 2, () -> false,
                () -> new ReplicationLag.Figures(120, 122_880, Double.POSITIVE_INFINITY), () -> 6, environment::read);
    }

    @Test
    void fixedCapsShowTheConfigurationAsReasonAndNoPrediction() {
        BatchDecision caps = BatchDecision.of(500, 1 << 20, Duration.ofMillis(25), 8, 64L << 20, DecisionReason.FIXED);
        FixedBatchPolicy policy = new FixedBatchPolicy(caps);
        SourceTaskView view = new SourceTaskView("A", "B", "lz4", policy, now::get, deliveries,
                sources(new OperatingPointMonitor(policy)));

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
                .contains("\"lag\":{\"records\":120,\"bytes\":122880,\"catch_up_seconds\":null}")
                .contains("\"resembles_cell\":{\"name\":\"default\",\"index\":0,\"moves\":\"-\",")
                .contains("\"binds\":{\"name\":\"none\",\"evidence\":\"sending 0.000 MB/s,");
        assertThat(members).containsKeys("operating_point", "resembles_cell", "binds");
    }

    @Test
    void aFixedPolicyWhoseWindowIsFullSaysTheRoundTripBindsAndWhichGridCellItResembles() {
        // 4 batches of 20 records of 1 KiB in flight per 150 ms round trip, records waiting
        BatchDecision caps = BatchDecision.of(20, 1 << 20, Duration.ofMillis(5), 4, 64L << 20, DecisionReason.FIXED);
        FixedBatchPolicy policy = new FixedBatchPolicy(caps);
        OperatingPointMonitor monitor = new OperatingPointMonitor(policy);
        for (int round = 0; round < 60; round++) {
            long t = now.get();
            for (int b = 0; b < 4; b++) {
                send(monitor, t);
            }
            monitor.onBacklog(5_000, 5L << 20, t);
            for (int b = 0; b < 4; b++) {
                monitor.onBatchReceived(20, 12_000, t, t + 150 * MS);
                monitor.onBatchAcked(20, 12_000, t, t + 160 * MS, t);
            }
            now.addAndGet(160 * MS);
        }
        for (int b = 0; b < 4; b++) {
            send(monitor, now.get());
        }
        SourceTaskView view = new SourceTaskView("A", "B", "lz4", policy, now::get, deliveries, sources(monitor));

        Map<String, Object> members = view.view();

        assertThat(members).containsEntry("batch_policy", "fixed");
        assertThat(Json.write(members)).as("the model's view, unchanged")
                .contains("\"binding_constraint\":{\"name\":\"configuration\",\"utilisation\":null}");
        @SuppressWarnings("unchecked")
        Map<String, Object> binds = (Map<String, Object>) members.get("binds");
        assertThat(binds).containsEntry("name", "round-trip");
        assertThat((String) binds.get("evidence")).startsWith("window ").contains("(4/4 batches)")
                .endsWith("RTT 150 ms");
        @SuppressWarnings("unchecked")
        Map<String, Object> cell = (Map<String, Object>) members.get("resembles_cell");
        assertThat(cell).containsEntry("name", "d75").containsEntry("index", 4).containsEntry("one_way_delay_ms", 75)
                .containsEntry("uplink_bits_per_second", 40_000_000L).containsEntry("distance", 0.0);
        // 48 kB acknowledged every 160 ms: at least about 2.4 Mbit/s, which a 40 Mbit/s uplink carries
        assertThat((List<?>) cell.get("differs_on")).singleElement().asString().startsWith("uplink at least 2.")
                .endsWith(" Mbit/s measured");
        @SuppressWarnings("unchecked")
        Map<String, Object> point = (Map<String, Object>) members.get("operating_point");
        assertThat(point).containsEntry("base_rtt_ms", 150.0).containsEntry("one_way_delay_ms", 75.0)
                .containsEntry("in_flight_batches", 4).containsEntry("window_batches", 4)
                .containsEntry("records_wait", true).containsEntry("assigned_partitions", 6)
                .containsEntry("jvm_cpu_cores", 0.5).containsEntry("available_cores", 2)
                .containsEntry("path_throughput_bytes_per_second", Double.NaN);
        assertThat((Double) point.get("mean_record_bytes")).isCloseTo(1024, within(1e-6));
        assertThat((Double) point.get("records_per_batch")).isCloseTo(20, within(1e-6));
        assertThat(Json.write(members)).contains("\"path_throughput_bytes_per_second\":null");
    }

    /** A put of 20 records of 1 KiB on 6 partitions, sealed into one batch of 12 kB and sent. */
    private static void send(BatchPolicy policy, long t) {
        policy.onActiveStreams(6, t);
        policy.onRecordsArrived(20, 20 * 1024, t);
        policy.decision(t);
        policy.onBatchSent(20, 20 * 1024, 12_000, 50_000, t);
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
        SourceTaskView view = new SourceTaskView("A", "B", "zstd", policy, now::get, deliveries,
                sources(new OperatingPointMonitor(policy)));

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
