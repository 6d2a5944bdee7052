package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchOutputTest {

    private final BenchResult result = Fixtures.result(List.of(
            Fixtures.variant(Variants.JS_3_ROUTES, "jetstream", "zstd", 12.0, 620, 0.06, 80),
            Fixtures.variant(Variants.MM2_TUNED_SRC, "mirrormaker2", "zstd", 8.0, 640, 0.03, 70),
            Fixtures.failed(Variants.MM2_TUNED_3WORKERS)));

    @Test
    void theJsonHasTheBriefsFieldsInSnakeCase(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("wan-quick.json");
        BenchJson.write(result, file);
        JsonNode json = new ObjectMapper().readTree(Files.readString(file));

        for (String field : List.of("throughput_mb_s", "events_per_s", "latency_p50_ms", "latency_p99_ms",
                "link_capacity_mb_s", "route_bytes", "uplink_bytes", "comparison", "targets", "machine", "network",
                "command_line", "git_commit", "variants")) {
            assertThat(json.has(field)).as(field).isTrue();
        }
        assertThat(json.get("throughput_mb_s").asDouble()).isEqualTo(12.0);
        assertThat(json.get("comparison").get("js_3routes_vs_mm2_tuned_src").asDouble()).isEqualTo(1.5);
        JsonNode variant = json.get("variants").get(0);
        assertThat(variant.get("backlog").has("wire_per_uplink_mb_s")).isTrue();
        assertThat(variant.get("backlog").has("core_seconds_per_mb")).isTrue();
        assertThat(variant.get("latency").get("latency_p999_ms").asLong()).isEqualTo(90);
        JsonNode pauses = variant.get("latency").get("stop_the_world").get("connect-A");
        assertThat(pauses.get("max_ms").asDouble()).isEqualTo(31.0);
        assertThat(pauses.get("long_pauses").asInt()).isEqualTo(1);
        assertThat(variant.get("verification").get("order").asText()).isEqualTo("ok");
        assertThat(variant.get("timeline").has("arrivals_mb_s")).isTrue();
        assertThat(variant.get("latency_cdf").get(0).size()).isEqualTo(2);
        assertThat(json.get("variants").get(2).get("error").asText()).contains("TimeoutException");
        assertThat(json.get("variants").get(2).get("backlog").isNull()).isTrue();
    }

    @Test
    void theHtmlReportIsSelfContainedWithPlotsAndTables(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("wan-quick.html");
        BenchHtml.write(result, file);
        String html = Files.readString(file);

        assertThat(html).startsWith("<!DOCTYPE html>").contains("</html>");
        // nothing to fetch: no scripts, stylesheets, images or links (the SVG namespace URI is a name, not a fetch)
        assertThat(html).doesNotContain("<script").doesNotContain("<link").doesNotContain("src=")
                .doesNotContain("href=").doesNotContain("url(").doesNotContain("https://");
        assertThat(html).contains("<svg").contains("polyline").contains("End-to-end latency")
                .contains("Throughput over time").contains("CPU per process");
        assertThat(html).contains(Variants.JS_3_ROUTES).contains(Variants.MM2_TUNED_SRC);
        // error text is escaped, never markup
        assertThat(html).contains("drain &lt;stuck&gt; &amp; &quot;quoted&quot;").doesNotContain("<stuck>");
    }

    @Test
    void chartsPickNiceTicks() {
        assertThat(SvgChart.niceCeiling(4.3)).isEqualTo(5.0);
        assertThat(SvgChart.niceCeiling(0.07)).isEqualTo(0.1, org.assertj.core.api.Assertions.within(1e-12));
        assertThat(SvgChart.linearTicks(0, 10)).containsExactly(0.0, 2.0, 4.0, 6.0, 8.0, 10.0);
        assertThat(SvgChart.logTicks(1, 100)).containsExactly(1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0);
        assertThat(new SvgChart("empty", "x", "y", 400, 200).render()).contains("no data");
    }

    @Test
    void theConsoleLineSumsEveryVariantAndNamesTheHeadline() {
        String line = BenchReport.resultLine("wan-quick", result.variants(), BenchReport.headline(result.variants()),
                result.comparison(), "namespaces");
        assertThat(line).startsWith("RESULT scenario=wan-quick variants=3 failed=1 events=61200 delivered=61200 "
                + "lost=0 duplicates=0 order=ok headline=js-3routes throughput_mb_s=12.00");
        assertThat(line).contains("js_3routes_vs_mm2_tuned_src=1.50").endsWith("network=namespaces");
    }
}
