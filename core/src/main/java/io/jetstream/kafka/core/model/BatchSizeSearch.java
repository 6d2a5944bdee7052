package io.jetstream.kafka.core.model;

/**
 * Scans batch sizes {@code 1 .. maxRecords} on a geometric grid and returns the best by the rule of
 * {@link AdaptiveBatchPolicy}: lowest predicted latency among sizes that keep up with headroom;
 * else lowest among sizes below saturation; else highest capacity. Ties go to the smaller batch.
 */
final class BatchSizeSearch {

    record Result(LatencyPrediction best, int evaluated) {
    }

    private BatchSizeSearch() {
    }

    static Result run(LatencyModel model, ModelInputs inputs, int maxRecords, double gridRatio) {
        LatencyPrediction fastestKeepingUp = null;
        LatencyPrediction fastestStable = null;
        LatencyPrediction mostCapacity = null;
        int evaluated = 0;
        int b = 1;
        while (true) {
            LatencyPrediction p = model.predict(inputs, b);
            evaluated++;
            if (p.keepsUp() && (fastestKeepingUp == null || p.totalNanos() < fastestKeepingUp.totalNanos())) {
                fastestKeepingUp = p;
            }
            if (LatencyModel.stable(p) && (fastestStable == null || p.totalNanos() < fastestStable.totalNanos())) {
                fastestStable = p;
            }
            if (mostCapacity == null || p.capacityRecordsPerSecond() > mostCapacity.capacityRecordsPerSecond()) {
                mostCapacity = p;
            }
            if (b >= maxRecords) {
                break;
            }
            b = (int) Math.min(maxRecords, Math.max(b + 1, Math.ceil(b * gridRatio)));
        }
        LatencyPrediction best = fastestKeepingUp != null ? fastestKeepingUp
                : fastestStable != null ? fastestStable : mostCapacity;
        return new Result(best, evaluated);
    }
}
