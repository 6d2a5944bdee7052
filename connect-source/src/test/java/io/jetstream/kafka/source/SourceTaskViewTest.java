package io.jetstream.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.jetstream.kafka.connect.common.view.Json;
import io.jetstream.kafka.core.environment.CpuLoad;
import io.jetstream.kafka.core.environment.OperatingPointMonitor;
import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.BatchPolicy;
import io.jetstream.kafka.core.model.FixedBatchPolicy;
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
    void theViewShowsTheCapsTheSenderAndTheLag() {
        BatchDecision caps = new BatchDecision(500, 1 << 20, Duration.ofMillis(25), 8, 64L << 20);
        FixedBatchPolicy policy = new FixedBatchPolicy(caps);
        SourceTaskView view = new SourceTaskView("A", "B", "lz4", policy, now::get, deliveries,
                sources(new OperatingPointMonitor(policy)));

        Map<String, Object> members = view.view();

        assertThat(members).containsEntry("role", "source-site").containsEntry("compression", "lz4")
                .doesNotContainKeys("batch_policy", "reason", "predicted_latency_ms", "binding_constraint");
        assertThat(Json.write(members)).contains("\"caps\":{\"max_records\":500,\"max_bytes\":1048576,"
                + "\"linger_ms\":25,\"window_batches\":8,\"max_in_flight_bytes\":67108864}")
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
        BatchDecision caps = new BatchDecision(20, 1 << 20, Duration.ofMillis(5), 4, 64L << 20);
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
    void theMeasuredLatencyIsThatOfTheRecentlyAcknowledgedBatches() {
        FixedBatchPolicy policy = new FixedBatchPolicy(new BatchDecision(500, 1 << 20, Duration.ofMillis(5), 8,
                64L << 20));
        for (int i = 0; i < 300; i++) {
            deliveries.batchSent(20, 20 * 1024, 12_000);
            deliveries.batchAcked(20, 70 * MS);
        }
        SourceTaskView view = new SourceTaskView("A", "B", "zstd", policy, now::get, deliveries,
                sources(new OperatingPointMonitor(policy)));

        Map<String, Object> members = view.view();

        assertThat((Double) members.get("measured_latency_ms")).isEqualTo(70.0);
        assertThat(Json.write(members)).contains("\"records_acked\":6000");
    }
}
