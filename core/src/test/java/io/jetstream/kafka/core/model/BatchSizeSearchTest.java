package io.jetstream.kafka.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The search's choice among the sizes it predicts. */
class BatchSizeSearchTest {

    private final LatencyModel model = new LatencyModel(64, 0.5, 1, 0.1, 0.25, 64L << 20, 1_024);

    @Test
    void withHeadroomTheFastestSizeKeepingUpIsTaken() {
        // 1,000 records/s of 1 KiB compressing to half on 4.7 MB/s: 11% of the link
        ModelInputs calm = new ModelInputs(1_000, 1_000, 1_024, 0.5, 20_000, 1, 4.7e6, 50e6, 50e6, 0);
        BatchSizeSearch.Result result = BatchSizeSearch.run(model, calm, 1, 500, 1.06);
        double fastest = fastest(calm, 500, true);
        assertThat(result.best().keepsUp()).isTrue();
        assertThat(result.best().totalNanos()).isEqualTo(fastest);
    }

    @Test
    void withoutHeadroomTheLargestStableSizeWithinFivePercentOfTheFastestIsTaken() {
        // 8,600 records/s: 94% of the link whatever the size, above 1 - headroom; the predictions near
        // saturation are steep and noisy, and the larger batch costs the hops the model does not see less
        ModelInputs busy = new ModelInputs(8_600, 8_600, 1_024, 0.5, 20_000, 1, 4.7e6, 50e6, 50e6, 0, 0, 0,
                Double.NaN, 0, 3);
        BatchSizeSearch.Result result = BatchSizeSearch.run(model, busy, 1, 500, 1.06);
        LatencyPrediction best = result.best();
        assertThat(best.keepsUp()).isFalse();
        assertThat(LatencyModel.stable(best)).isTrue();
        double fastest = fastest(busy, 500, false);
        assertThat(best.totalNanos()).isBetween(fastest, fastest * (1 + BatchSizeSearch.FLAT_OPTIMUM_SHARE));
        for (int b = best.batchRecords() + 1; b <= 500; b++) {
            LatencyPrediction larger = model.predict(busy, b);
            assertThat(LatencyModel.stable(larger) && larger.totalNanos()
                    <= fastest * (1 + BatchSizeSearch.FLAT_OPTIMUM_SHARE))
                    .as("no larger stable size within 5%% on the grid's scale: %s records", b)
                    .isFalse();
        }
    }

    private double fastest(ModelInputs in, int max, boolean keepingUp) {
        double best = Double.POSITIVE_INFINITY;
        for (int b = 1; b <= max; b++) {
            LatencyPrediction p = model.predict(in, b);
            if (keepingUp ? p.keepsUp() : LatencyModel.stable(p)) {
                best = Math.min(best, p.totalNanos());
            }
        }
        return best;
    }
}
