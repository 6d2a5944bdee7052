package io.jetstream.kafka.core.model;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Scans batch sizes {@code 1 .. maxRecords} on a geometric grid and returns the best by the rule of
 * {@link AdaptiveBatchPolicy}: lowest predicted latency among sizes that keep up with headroom,
 * unless its latency less propagation is more than {@link #HEADROOM_PRICE_LIMIT} times that of
 * the fastest size below saturation (then that one); else lowest among sizes below saturation; else the smallest size within
 * {@link #NEAR_MAX_CAPACITY} of the highest capacity (capacity grows ever more slowly with the batch
 * size, while latency keeps growing). Ties go to the smaller batch.
 */
final class BatchSizeSearch {

    static final double NEAR_MAX_CAPACITY = 0.95;
    static final double HEADROOM_PRICE_LIMIT = 2.0;

    record Result(LatencyPrediction best, int evaluated, double maxCapacityRecordsPerSecond) {
    }

    private BatchSizeSearch() {
    }

    static Result run(LatencyModel model, ModelInputs inputs, int maxRecords, double gridRatio) {
        return run(model, inputs, 1, maxRecords, gridRatio);
    }

    /** As {@link #run(LatencyModel, ModelInputs, int, double)}, over sizes from {@code minRecords} only. */
    static Result run(LatencyModel model, ModelInputs inputs, int minRecords, int maxRecords, double gridRatio) {
        List<LatencyPrediction> candidates = new ArrayList<>();
        int b = Math.max(1, Math.min(minRecords, maxRecords));
        while (true) {
            candidates.add(model.predict(inputs, b));
            if (b >= maxRecords) {
                break;
            }
            b = (int) Math.min(maxRecords, Math.max(b + 1, Math.ceil(b * gridRatio)));
        }
        Comparator<LatencyPrediction> byLatency = Comparator.comparingDouble(LatencyPrediction::totalNanos);
        Optional<LatencyPrediction> fastestKeepingUp = candidates.stream().filter(LatencyPrediction::keepsUp)
                .min(byLatency);
        Optional<LatencyPrediction> fastestStable = candidates.stream().filter(LatencyModel::stable).min(byLatency);
        double maxCapacity = candidates.stream().mapToDouble(LatencyPrediction::capacityRecordsPerSecond).max()
                .orElse(0);
        LatencyPrediction nearMaxCapacity = candidates.stream()
                .filter(p -> p.capacityRecordsPerSecond() >= NEAR_MAX_CAPACITY * maxCapacity)
                .findFirst().orElse(candidates.get(candidates.size() - 1));
        // near (1 - headroom) of capacity only ever larger batches keep the headroom, for a sliver of
        // utilisation; past this factor of latency the headroom is not worth buying with batching
        boolean headroomTooDear = fastestKeepingUp.isPresent() && fastestStable.isPresent()
                && fastestKeepingUp.get().controllableNanos()
                > HEADROOM_PRICE_LIMIT * fastestStable.get().controllableNanos();
        LatencyPrediction best = headroomTooDear ? fastestStable.get()
                : fastestKeepingUp.or(() -> fastestStable).orElse(nearMaxCapacity);
        return new Result(best, candidates.size(), maxCapacity);
    }
}
