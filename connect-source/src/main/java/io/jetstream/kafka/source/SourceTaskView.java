package io.jetstream.kafka.source;

import io.jetstream.kafka.core.model.AdaptiveBatchPolicy;
import io.jetstream.kafka.core.model.AdaptiveBatchSettings;
import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.BatchPolicy;
import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.core.model.DecisionExplanation;
import io.jetstream.kafka.core.model.DecisionReason;
import io.jetstream.kafka.core.model.LatencyPrediction;
import io.jetstream.kafka.core.model.ModelInputs;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The view of one source-site task ({@code TaskView}, read by {@code GET /jetstream/tasks} and
 * {@code ./jetstream explain}): the batching caps in force and why, the model's inputs and its
 * predicted latency against the measured one, the constraint the model sees binding, the operating
 * point measured under either policy with the constraint that binds it and the grid cell it resembles
 * ({@link TaskEnvironment}), what was delivered, the sender's buffer and the replication lag. Member names are snake_case and documented in
 * docs/monitoring.md ("Why is it doing that?").
 *
 * <p>Thread-safety: read on the worker's REST threads; everything it reads is thread-safe.
 */
final class SourceTaskView {

    /** Below this utilisation nothing is near capacity: the batch size is a pure latency trade-off. */
    static final double BINDING_UTILISATION = 0.5;

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
        view.put("batch_policy", policy instanceof AdaptiveBatchPolicy ? "adaptive" : "fixed");
        view.put("caps", caps(decision));
        view.put("reason", reasonName(decision.reason()));
        DecisionExplanation explanation = decision.explanation().orElse(null);
        view.put("held", explanation != null && explanation.held());
        if (policy instanceof AdaptiveBatchPolicy adaptive) {
            view.put("decision_changes", adaptive.decisionChanges());
            view.put("hysteresis", hysteresis(adaptive.settings()));
        }
        view.put("predicted_latency_ms", explanation == null ? null : ms(explanation.inForce().totalNanos()));
        view.put("measured_latency_ms", deliveries.recentLatencyMs());
        if (explanation != null) {
            view.put("best_candidate", candidate(explanation.bestCandidate()));
            view.put("prediction", prediction(explanation.inForce()));
            view.put("model_inputs", inputs(explanation.inputs()));
        }
        view.put("binding_constraint", binding(decision.reason(), explanation));
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
        caps.put("together_max_records", decision.togetherMaxRecords());
        caps.put("together_max_bytes", decision.togetherMaxBytes());
        return caps;
    }

    private static Map<String, Object> hysteresis(AdaptiveBatchSettings settings) {
        Map<String, Object> hysteresis = new LinkedHashMap<>();
        hysteresis.put("min_gain", settings.minGain());
        hysteresis.put("min_dwell_ms", settings.minDwell().toMillis());
        hysteresis.put("headroom", settings.headroom());
        return hysteresis;
    }

    private static Map<String, Object> candidate(LatencyPrediction best) {
        Map<String, Object> candidate = new LinkedHashMap<>();
        candidate.put("batch_records", best.batchRecords());
        candidate.put("predicted_latency_ms", ms(best.totalNanos()));
        return candidate;
    }

    private static Map<String, Object> prediction(LatencyPrediction p) {
        Map<String, Object> prediction = new LinkedHashMap<>();
        prediction.put("batch_records", p.batchRecords());
        prediction.put("wire_bytes", p.wireBytes());
        prediction.put("window", p.window());
        prediction.put("batching_ms", ms(p.batchingNanos()));
        prediction.put("encode_ms", ms(p.encodeNanos()));
        prediction.put("queueing_ms", ms(p.queueingNanos()));
        prediction.put("propagation_ms", ms(p.propagationNanos()));
        prediction.put("transmission_ms", ms(p.transmissionNanos()));
        prediction.put("decode_ms", ms(p.decodeNanos()));
        prediction.put("fixed_delay_ms", ms(p.fixedDelayNanos()));
        prediction.put("link_utilisation", p.linkUtilisation());
        prediction.put("encoder_utilisation", p.encoderUtilisation());
        prediction.put("far_end_utilisation", p.farEndUtilisation());
        prediction.put("capacity_records_per_second", p.capacityRecordsPerSecond());
        prediction.put("keeps_up", p.keepsUp());
        return prediction;
    }

    private static Map<String, Object> inputs(ModelInputs in) {
        Map<String, Object> inputs = new LinkedHashMap<>();
        inputs.put("arrival_records_per_second", in.arrivalRecordsPerSecond());
        inputs.put("effective_records_per_second", in.effectiveRecordsPerSecond());
        inputs.put("mean_record_bytes", in.meanRecordBytes());
        inputs.put("compression_ratio", in.compressionRatio());
        inputs.put("path_throughput_bytes_per_second", in.linkBytesPerSecond());
        inputs.put("rtt_ms", ms(in.rttNanos()));
        inputs.put("ack_latency_ms", ms(in.ackLatencyNanos()));
        inputs.put("fixed_delay_ms", ms(in.fixedDelayNanos()));
        inputs.put("backlog_records", in.backlogRecords());
        inputs.put("encode_fixed_us", in.encodeFixedNanos() / 1e3);
        inputs.put("encode_ns_per_byte", in.encodeNanosPerByte());
        return inputs;
    }

    /**
     * What limits the caps: the configuration (fixed caps), the warm-up, the resource the model
     * predicts busiest for the caps in force (link, encoder, far end) when it is at least
     * {@value #BINDING_UTILISATION} busy, else latency alone.
     */
    static Map<String, Object> binding(DecisionReason reason, DecisionExplanation explanation) {
        Map<String, Object> binding = new LinkedHashMap<>();
        if (reason == DecisionReason.FIXED || explanation == null) {
            binding.put("name", reason == DecisionReason.WARMUP ? "warm-up" : "configuration");
            binding.put("utilisation", null);
            return binding;
        }
        LatencyPrediction p = explanation.inForce();
        String name = "link";
        double busiest = p.linkUtilisation();
        if (p.encoderUtilisation() > busiest) {
            name = "encoder";
            busiest = p.encoderUtilisation();
        }
        if (p.farEndUtilisation() > busiest) {
            name = "far-end";
            busiest = p.farEndUtilisation();
        }
        binding.put("name", busiest >= BINDING_UTILISATION ? name : "latency");
        binding.put("utilisation", busiest);
        return binding;
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

    /** {@code LATENCY_OPTIMAL} as {@code latency-optimal}, the words docs/monitoring.md explains. */
    static String reasonName(DecisionReason reason) {
        return reason.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private static double ms(double nanos) {
        return nanos / 1e6;
    }
}
