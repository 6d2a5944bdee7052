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
    /** Of the sizes predicted within this share of the lowest latency, the largest is taken. */
    static final double FLAT_OPTIMUM_SHARE = 0.05;

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
        boolean noHeadroom = fastestKeepingUp.isEmpty() && fastestStable.isPresent();
        if (noHeadroom) {
            best = largestAsFast(candidates, best);
        }
        return new Result(best, candidates.size(), maxCapacity);
    }

    /**
     * The largest candidate of {@code fastest}'s kind (keeping up, or only stable) predicted within
     * {@link #FLAT_OPTIMUM_SHARE} of its latency. The latency curve is flat near its minimum, and what
     * the model does not see (each batch's CPU at every hop: the relays, the destination's decode and
     * produce) all speaks for the larger batch: on a loaded machine it is the difference between a
     * path that keeps up and one that queues. The candidates come in increasing size.
     */
    private static LatencyPrediction largestAsFast(List<LatencyPrediction> candidates, LatencyPrediction fastest) {
        double limit = fastest.totalNanos() * (1 + FLAT_OPTIMUM_SHARE);
        LatencyPrediction chosen = fastest;
        for (LatencyPrediction p : candidates) {
            if (LatencyModel.stable(p) && p.batchRecords() > chosen.batchRecords() && p.totalNanos() <= limit) {
                chosen = p;
            }
        }
        return chosen;
    }
}
