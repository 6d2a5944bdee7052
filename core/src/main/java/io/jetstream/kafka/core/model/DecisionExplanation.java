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
 */
public record DecisionExplanation(
        long decidedAtNanos,
        ModelInputs inputs,
        LatencyPrediction inForce,
        LatencyPrediction bestCandidate,
        boolean held,
        int candidatesEvaluated) {
}
