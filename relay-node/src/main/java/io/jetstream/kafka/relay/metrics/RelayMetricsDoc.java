package io.jetstream.kafka.relay.metrics;

import java.util.Arrays;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Renders the metric reference (Markdown) from the families {@link RelayMetrics} declares and the
 * enums that bound their labels, so the documented names are the exported ones.
 */
public final class RelayMetricsDoc {

    private RelayMetricsDoc() {
    }

    public static String render() {
        StringBuilder out = new StringBuilder();
        out.append("| Metric | Type | Labels | Description |\n|---|---|---|---|\n");
        try (RelayMetrics metrics = new RelayMetrics("doc")) {
            for (RelayMetrics.Family family : metrics.families()) {
                out.append("| `").append(family.name()).append("` | ").append(family.type()).append(" | ")
                        .append(family.labelNames().stream().map(l -> "`" + l + "`").collect(Collectors.joining(", ")))
                        .append(" | ").append(family.help().replace("|", "\\|")).append(" |\n");
            }
        }
        out.append("\nLabel values:\n\n");
        values(out, "errors_total{kind}", ErrorKind.values(), ErrorKind::label);
        values(out, "connections{role}", RoleLabel.values(), RoleLabel::label);
        values(out, "nacks_total{reason}", NackReason.values(), NackReason::label);
        out.append("- `peer`: the id a connector task or relay announces at handshake, or the address of a next hop;"
                + " at most `metrics.peers.max` peers have series of their own, more share `peer=\"")
                .append(PeerSeries.OVERFLOW).append("\"`; a peer's series are removed `metrics.peer.retention.ms`"
                + " after its last connection closed. `destination`, `route`: names from the configuration.\n");
        out.append("\nHistograms expose `_bucket{le}`, `_sum` and `_count` series; buckets (seconds): ")
                .append(Arrays.stream(RelayMetrics.LATENCY_BUCKETS).mapToObj(RelayMetricsDoc::bound)
                        .collect(Collectors.joining(", ")))
                .append(". A relay started by `RelayMain` (the container, `./jetstream relay`) also exports the"
                        + " Prometheus Java client's JVM and process metrics (`jvm_*`, `process_*`).\n");
        return out.toString();
    }

    private static String bound(double seconds) {
        return seconds == Math.rint(seconds) ? Long.toString((long) seconds) : Double.toString(seconds);
    }

    private static <E> void values(StringBuilder out, String what, E[] constants, Function<E, String> label) {
        out.append("- `").append(RelayMetrics.PREFIX).append(what).append("`: ")
                .append(Arrays.stream(constants).map(c -> "`" + label.apply(c) + "`").collect(Collectors.joining(", ")))
                .append('\n');
    }
}
