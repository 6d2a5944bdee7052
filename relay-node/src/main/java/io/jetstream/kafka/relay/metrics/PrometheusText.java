package io.jetstream.kafka.relay.metrics;

import java.util.List;
import java.util.Map;

/**
 * Writes metric families in the Prometheus text exposition format, version 0.0.4:
 *
 * <pre>
 * # HELP jetstream_relay_peer_bytes_in_total Bytes received from a peer.
 * # TYPE jetstream_relay_peer_bytes_in_total counter
 * jetstream_relay_peer_bytes_in_total{peer="relay-a1"} 1024
 * </pre>
 *
 * Help text escapes {@code \} and newline; label values also escape {@code "}. No external
 * library: the format is small and this keeps the relay's dependencies to Netty and Kafka's.
 */
public final class PrometheusText {

    /** The {@code Content-Type} of a scrape response. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private PrometheusText() {
    }

    public static void write(StringBuilder out, List<MetricFamily<?>> families) {
        for (MetricFamily<?> family : families) {
            writeFamily(out, family);
        }
    }

    private static <M extends Metric> void writeFamily(StringBuilder out, MetricFamily<M> family) {
        out.append("# HELP ").append(family.name()).append(' ');
        escapeHelp(out, family.help());
        out.append('\n');
        out.append("# TYPE ").append(family.name()).append(' ').append(family.type().text()).append('\n');
        List<String> labelNames = family.labelNames();
        for (Map.Entry<List<String>, M> series : family.series()) {
            out.append(family.name());
            if (!labelNames.isEmpty()) {
                out.append('{');
                List<String> values = series.getKey();
                for (int i = 0; i < labelNames.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    out.append(labelNames.get(i)).append("=\"");
                    escapeLabelValue(out, values.get(i));
                    out.append('"');
                }
                out.append('}');
            }
            out.append(' ');
            series.getValue().appendValue(out);
            out.append('\n');
        }
    }

    static void escapeHelp(StringBuilder out, String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                default -> out.append(c);
            }
        }
    }

    static void escapeLabelValue(StringBuilder out, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '"' -> out.append("\\\"");
                default -> out.append(c);
            }
        }
    }

    static void appendDouble(StringBuilder out, double value) {
        if (Double.isNaN(value)) {
            out.append("NaN");
        } else if (Double.isInfinite(value)) {
            out.append(value > 0 ? "+Inf" : "-Inf");
        } else if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            out.append((long) value);
        } else {
            out.append(value);
        }
    }
}
