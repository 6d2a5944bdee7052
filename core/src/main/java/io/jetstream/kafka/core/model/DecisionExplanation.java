package io.jetstream.kafka.core.model;

/**
 * Why an adaptive decision is what it is: the inputs it saw, the prediction for the caps in force
 * and for the best candidate, and whether hysteresis kept the caps although a candidate looked
 * better. Meant for metrics and logs.
 *
 * @param decidedAtNanos      when the decision was (re)computed
 * @param inputs              measured quantities the model was evaluated with
 * @param inForce             prediction for the batch size in force
 * @param bestCandidate       prediction for the best batch size found
 * @param held                the caps in force were kept (dwell time or too small a gain)
 * @param candidatesEvaluated batch sizes evaluated by the search
 * @param minBatchRecords     the guard rail: no smaller batch was considered, since its frame header
 *                            would take more than 5% of its wire bytes
 */
public record DecisionExplanation(
        long decidedAtNanos,
        ModelInputs inputs,
        LatencyPrediction inForce,
        LatencyPrediction bestCandidate,
        boolean held,
        int candidatesEvaluated,
        int minBatchRecords) {

    public DecisionExplanation(long decidedAtNanos, ModelInputs inputs, LatencyPrediction inForce,
                               LatencyPrediction bestCandidate, boolean held, int candidatesEvaluated) {
        this(decidedAtNanos, inputs, inForce, bestCandidate, held, candidatesEvaluated, 1);
    }

    /** The fitted fixed delay {@code c} at the far end (commit interval), nanoseconds. */
    public double fixedDelayNanos() {
        return inputs.fixedDelayNanos();
    }

    /** The path throughput from the ack-time fit's slope, bytes/s; NaN when not identifiable. */
    public double fittedLinkBytesPerSecond() {
        return inputs.fittedLinkBytesPerSecond();
    }
}
