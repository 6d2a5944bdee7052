package io.jetstream.kafka.source;

import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.BatchPolicy;
import io.jetstream.kafka.core.model.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The view of one source-site task ({@code TaskView}, read by {@code GET /jetstream/tasks} and
 * {@code ./jetstream explain}): the batching caps in force, the measured latency, the operating point
 * with the constraint that binds it and the grid cell it resembles ({@link TaskEnvironment}), what was
 * delivered, the sender's buffer and the replication lag. Member names are snake_case and documented
 * in docs/monitoring.md ("Why is it doing that?").
 *
 * <p>Thread-safety: read on the worker's REST threads; everything it reads is thread-safe.
 */
final class SourceTaskView {

    /**
     * What the view reads of the running task besides its policy and deliveries; {@code environment}
     * is where it runs ({@link TaskEnvironment#read}).
     */
    record Sources(LongSupplier bufferedBytes, IntSupplier inFlightBatches, BooleanSupplier paused,
                   Supplier<ReplicationLag.Figures> lag, IntSupplier assignedPartitions,
                   Supplier<TaskEnvironment.Reading> environment) {
    }

    private final String sourceAlias;
    private final String targetAlias;
    private final String compression;
    private final BatchPolicy policy;
    private final Clock clock;
    private final Deliveries deliveries;
    private final Sources sources;

    SourceTaskView(String sourceAlias, String targetAlias, String compression, BatchPolicy policy, Clock clock,
                   Deliveries deliveries, Sources sources) {
        this.sourceAlias = sourceAlias;
        this.targetAlias = targetAlias;
        this.compression = compression;
        this.policy = policy;
        this.clock = clock;
        this.deliveries = deliveries;
        this.sources = sources;
    }

    /** The view now, as JSON members. */
    Map<String, Object> view() {
        BatchDecision decision = policy.decision(clock.nanoTime());
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("role", "source-site");
        view.put("source_alias", sourceAlias);
        view.put("target_alias", targetAlias);
        view.put("compression", compression);
        view.put("caps", caps(decision));
        view.put("measured_latency_ms", deliveries.recentLatencyMs());
        TaskEnvironment.Reading environment = sources.environment().get();
        view.put("operating_point", TaskEnvironment.operatingPoint(environment,
                sources.assignedPartitions().getAsInt()));
        view.put("resembles_cell", TaskEnvironment.resemblesCell(environment.cell()));
        view.put("binds", TaskEnvironment.binds(environment.binds()));
        view.put("deliveries", deliveries.view(System.currentTimeMillis()));
        view.put("sender", sender());
        view.put("lag", lag());
        return view;
    }

    private static Map<String, Object> caps(BatchDecision decision) {
        Map<String, Object> caps = new LinkedHashMap<>();
        caps.put("max_records", decision.maxRecords());
        caps.put("max_bytes", decision.maxBytes());
        caps.put("linger_ms", decision.linger().toNanos() / 1e6);
        caps.put("window_batches", decision.maxInFlightBatches());
        caps.put("max_in_flight_bytes", decision.maxInFlightBytes());
        return caps;
    }

    private Map<String, Object> sender() {
        Map<String, Object> sender = new LinkedHashMap<>();
        sender.put("buffered_bytes", sources.bufferedBytes().getAsLong());
        sender.put("in_flight_batches", sources.inFlightBatches().getAsInt());
        sender.put("paused", sources.paused().getAsBoolean());
        sender.put("assigned_partitions", sources.assignedPartitions().getAsInt());
        return sender;
    }

    private Map<String, Object> lag() {
        ReplicationLag.Figures figures = sources.lag().get();
        Map<String, Object> lag = new LinkedHashMap<>();
        lag.put("records", figures.lagRecords());
        lag.put("bytes", figures.lagBytes());
        lag.put("catch_up_seconds", figures.catchUpSeconds());
        return lag;
    }
}
