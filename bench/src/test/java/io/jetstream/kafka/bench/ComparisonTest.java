package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ComparisonTest {

    @Test
    void ratiosCompareRecordRatesAndWireBytesWithTheSameCodec() {
        List<VariantResult> results = List.of(
                Fixtures.variant(Variants.JS_1_ROUTE, "jetstream", "zstd", 4.0, 600, 0.04, 60),
                Fixtures.variant(Variants.JS_3_ROUTES, "jetstream", "zstd", 12.0, 620, 0.06, 80),
                Fixtures.variant(Variants.MM2_TUNED_SRC, "mirrormaker2", "zstd", 8.0, 640, 0.03, 70),
                Fixtures.variant(Variants.MM2_TUNED_3WORKERS, "mirrormaker2", "zstd", 10.0, 640, 0.03, 70),
                Fixtures.variant(Variants.MM2_DEFAULT_DST, "mirrormaker2", "none", 1.5, 1100, 0.05, 400));

        Map<String, Double> ratios = Comparison.ratios(results);

        assertThat(ratios).containsEntry("js_1route_vs_mm2_tuned_src", 0.5)
                .containsEntry("js_3routes_vs_mm2_tuned_3workers", 1.2)
                .containsEntry("js_3routes_vs_js_1route", 3.0)
                .containsEntry("js_3routes_vs_mm2_default_dst", 8.0)
                .containsEntry("wire_bytes_per_record_js_1route_vs_mm2_tuned_src", 0.938)
                .doesNotContainKey("wire_bytes_per_record_js_1route_vs_mm2_default_dst")
                .doesNotContainKey("js_1route_zstd_vs_mm2_tuned_src");
    }

    @Test
    void latencyIsComparedAtEqualGuarantees() {
        List<VariantResult> results = List.of(
                Fixtures.variant(Variants.JS_1_ROUTE, "jetstream", "lz4", 8.0, 600, 0.08, 130),
                Fixtures.variant(Variants.JS_1_ROUTE_ALO, "jetstream", "lz4", 8.4, 600, 0.07, 90),
                Fixtures.variant(Variants.MM2_TUNED_SRC, "mirrormaker2", "zstd", 7.0, 640, 0.07, 100),
                Fixtures.variant(Variants.MM2_TUNED_SRC_EOS, "mirrormaker2", "zstd", 7.0, 640, 0.06, 325));

        Map<String, Double> ratios = Comparison.ratios(results);

        assertThat(ratios).containsEntry("js_1route_alo_vs_mm2_tuned_src", 1.2)
                .containsEntry("latency_p99_js_1route_alo_vs_mm2_tuned_src", 0.9)
                .containsEntry("latency_p99_js_1route_vs_mm2_tuned_src_eos", 0.4)
                .containsEntry("latency_p99_js_1route_vs_mm2_tuned_src", 1.3)
                .doesNotContainKey("latency_p99_js_1route_alo_vs_mm2_tuned_src_eos");
    }

    @Test
    void targetsSayWhatIsMetAndWhatIsNot() {
        List<VariantResult> results = List.of(
                Fixtures.variant(Variants.JS_1_ROUTE, "jetstream", "zstd", 4.0, 600, 0.04, 60),
                Fixtures.variant(Variants.JS_3_ROUTES, "jetstream", "zstd", 12.0, 620, 0.06, 80),
                Fixtures.variant(Variants.MM2_TUNED_SRC, "mirrormaker2", "zstd", 8.0, 640, 0.03, 70));

        List<Comparison.Target> targets = Comparison.targets(results, 25);

        assertThat(targets).anySatisfy(t -> {
            assertThat(t.name()).startsWith("three routes >= 2.7x one route");
            assertThat(t.met()).isTrue();
        });
        assertThat(targets).anySatisfy(t -> {
            assertThat(t.name()).startsWith("one route >= 1.1x MM2");
            assertThat(t.measured()).isEqualTo(0.5);
            assertThat(t.met()).isFalse();
        });
        assertThat(targets).filteredOn(t -> t.name().startsWith("CPU")).extracting(Comparison.Target::met)
                .containsExactly(true, false);
        assertThat(targets).filteredOn(t -> t.name().startsWith("p99")).allSatisfy(t -> {
            assertThat(t.target()).isEqualTo(75.0);
            assertThat(t.met()).isEqualTo(t.measured() <= 75);
        });
    }

    @Test
    void failedVariantsAreLeftOutOfTheRatios() {
        List<VariantResult> results = List.of(
                Fixtures.variant(Variants.JS_1_ROUTE, "jetstream", "zstd", 4.0, 600, 0.04, 60),
                Fixtures.failed(Variants.MM2_TUNED_SRC));
        assertThat(Comparison.ratios(results)).isEmpty();
    }
}
