package io.jetstream.kafka.relay.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

class PrometheusTextTest {

    private static String render(MetricFamily<?>... families) {
        StringBuilder out = new StringBuilder();
        PrometheusText.write(out, List.of(families));
        return out.toString();
    }

    @Test
    void writesHelpTypeAndOneLinePerSeriesSortedByLabels() {
        MetricFamily<Counter> family = new MetricFamily<>("x_bytes_total", "Bytes moved.",
                MetricFamily.Type.COUNTER, Counter::new, "peer", "route");
        family.labels("b", "r1").add(7);
        family.labels("a", "r2").inc();

        assertThat(render(family)).isEqualTo("""
                # HELP x_bytes_total Bytes moved.
                # TYPE x_bytes_total counter
                x_bytes_total{peer="a",route="r2"} 1
                x_bytes_total{peer="b",route="r1"} 7
                """);
    }

    @Test
    void unlabelledSeriesHasNoBraces() {
        MetricFamily<Gauge> family = new MetricFamily<>("x_buffered", "Held.", MetricFamily.Type.GAUGE, Gauge::new);
        family.labels().set(-3);

        assertThat(render(family)).endsWith("# TYPE x_buffered gauge\nx_buffered -3\n");
    }

    @Test
    void escapesLabelValuesAndHelpText() {
        MetricFamily<Gauge> family = new MetricFamily<>("x", "Line one\nback\\slash \"quoted\"",
                MetricFamily.Type.GAUGE, Gauge::new, "peer");
        family.labels("we\"ird\\na\nme").set(1);

        assertThat(render(family)).isEqualTo("# HELP x Line one\\nback\\\\slash \"quoted\"\n"
                + "# TYPE x gauge\n"
                + "x{peer=\"we\\\"ird\\\\na\\nme\"} 1\n");
    }

    @Test
    void doublesUseThePrometheusSpellingOfSpecialValues() {
        MetricFamily<DoubleGauge> family = new MetricFamily<>("rtt", "ms", MetricFamily.Type.GAUGE,
                DoubleGauge::new, "peer");
        family.labels("nan");
        family.labels("inf").set(Double.POSITIVE_INFINITY);
        family.labels("frac").set(12.5);
        family.labels("whole").set(40.0);

        assertThat(render(family)).contains("rtt{peer=\"nan\"} NaN\n", "rtt{peer=\"inf\"} +Inf\n",
                "rtt{peer=\"frac\"} 12.5\n", "rtt{peer=\"whole\"} 40\n");
    }

    @Test
    void rejectsInvalidNamesAndWrongLabelCounts() {
        assertThatThrownBy(() -> new MetricFamily<>("bad-name", "h", MetricFamily.Type.GAUGE, Gauge::new))
                .hasMessage("invalid metric name bad-name");
        assertThatThrownBy(() -> new MetricFamily<>("ok", "h", MetricFamily.Type.GAUGE, Gauge::new, "__reserved"))
                .hasMessage("invalid label name __reserved in ok");
        MetricFamily<Gauge> family = new MetricFamily<>("ok", "h", MetricFamily.Type.GAUGE, Gauge::new, "a");
        assertThatThrownBy(() -> family.labels("x", "y")).hasMessage("ok takes labels [a], got [x, y]");
    }

    @Test
    void countersOnlyGoUp() {
        assertThatThrownBy(() -> new Counter().add(-1)).hasMessage("a counter only goes up, got -1");
    }
}
