package io.jetstream.kafka.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the {@code heterogeneous} load ({@link Heterogeneous}) reports: the console table, the RESULT line's figures,
 * the HTML section and the settings for the JSON, from each variant's {@link Heterogeneous.RouteEconomics}.
 */
final class HeterogeneousReport {

    private HeterogeneousReport() {
    }

    /** The console table: per variant, money per GB against the cheapest split, the cap, shares and round trips. */
    static void printReport(PrintStream out, List<VariantResult> results) {
        out.println();
        out.println("Heterogeneous routes: money per GB against the cheapest split, spend cap, shares, round trips");
        out.printf(Locale.ROOT, "%-20s %9s %9s %7s %10s %10s %-28s %-26s %s%n", "variant", "$/GB", "cheapest",
                "ratio", "spent", "cap", "shares direct/a2/a3", "RTT ms direct/a2/a3", "rank by RTT; scheduler's");
        for (VariantResult result : results) {
            Heterogeneous.of(result).ifPresent(e -> out.printf(Locale.ROOT,
                    "%-20s %9.4f %9.4f %7.2f %10.5f %10.5f %-28s %-26s %s%s%n", result.id(), e.perGb(),
                    e.cheapestPerGb(), e.costRatio(), e.maxSpent(), e.spendCap(),
                    joined(e.shares(), "%.2f"), joined(e.rttMs(), "%.0f"), String.join("<", e.rankByRtt()),
                    (e.rankMatches() ? " (= delays)" : " (delays: " + String.join("<", e.rankByDelay()) + ")")
                            + (e.rankedByScheduler() == null ? "; no scheduler"
                            : "; scheduler ranked by " + joined(e.rankingRttMs(), "%.0f") + " ms"
                            + (e.rankedByScheduler() ? " (differing delays ranked)" : " (differing delays NOT ranked)"))));
        }
    }

    /** The RESULT line's figures of this scenario: per variant $/GB, its ratio to the cheapest, cap held. */
    static String resultFigures(List<VariantResult> results) {
        StringBuilder figures = new StringBuilder();
        for (VariantResult result : results) {
            Heterogeneous.of(result).ifPresent(e -> figures.append(String.format(Locale.ROOT,
                    " %s_per_gb=%.4f %s_cheapest_ratio=%.2f %s_cap_held=%s %s_rtt_rank_ok=%s %s_scheduler_rank_ok=%s",
                    result.id(), e.perGb(), result.id(), e.costRatio(), result.id(), e.capHeld(), result.id(),
                    e.rankMatches(), result.id(), e.rankedByScheduler() == null ? "n/a" : e.rankedByScheduler())));
        }
        return figures.toString();
    }

    /** The HTML section: the table of {@link #printReport} and each variant's spend over time; nothing without data. */
    static void html(StringBuilder html, List<VariantResult> results) {
        if (results.stream().allMatch(r -> Heterogeneous.of(r).isEmpty())) {
            return;
        }
        html.append("<h2>Heterogeneous routes</h2>\n<table><tr><th class=\"l\">variant</th><th>$/GB</th>"
                + "<th>cheapest split $/GB</th><th>ratio</th><th>within 5%</th><th>spent</th><th>spend cap</th>"
                + "<th>cap held</th><th class=\"l\">shares</th><th class=\"l\">route RTT ms</th>"
                + "<th class=\"l\">rank by RTT</th></tr>\n");
        for (VariantResult result : results) {
            Heterogeneous.of(result).ifPresent(e -> html.append("<tr><td class=\"l\">")
                    .append(SvgChart.escape(result.id()))
                    .append(String.format(Locale.ROOT, "</td><td>%.4f</td><td>%.4f</td><td>%.2f</td><td>%s</td>"
                            + "<td>%.5f</td><td>%.5f</td><td>%s</td>", e.perGb(), e.cheapestPerGb(), e.costRatio(),
                            e.withinFivePercent() ? "yes" : "no", e.maxSpent(), e.spendCap(),
                            e.capHeld() ? "yes" : "no"))
                    .append("<td class=\"l\">").append(SvgChart.escape(e.shares().toString()))
                    .append("</td><td class=\"l\">").append(SvgChart.escape(e.rttMs().toString()))
                    .append("</td><td class=\"l\">").append(SvgChart.escape(String.join(" < ", e.rankByRtt())
                            + (e.rankMatches() ? " (as configured)" : " (configured: "
                            + String.join(" < ", e.rankByDelay()) + ")") + (e.rankedByScheduler() == null ? ""
                            : "; scheduler: " + e.rankingRttMs() + (e.rankedByScheduler() ? " (differing delays ranked)"
                            : " (differing delays not ranked)"))))
                    .append("</td></tr>\n"));
        }
        html.append("</table>\n<p>Spend over time (seconds since the ingress started: money spent) is in the JSON,"
                + " <code>variants[].deployment.route_economics.spend_over_time</code>.</p>\n");
    }

    /** The scenario's settings for the JSON's workload section. */
    static Map<String, Object> describe(BenchPlan plan) {
        Map<String, Object> described = new LinkedHashMap<>();
        List<Map<String, Object>> routes = new ArrayList<>();
        for (Heterogeneous.RouteSetup route : Heterogeneous.ROUTES) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("route", route.route());
            r.put("uplink_host", route.host());
            r.put("uplink_mbit", route.uplinkBitsPerSecond() / 1e6);
            r.put("extra_one_way_delay_ms", route.extraDelay().toMillis());
            r.put("price_per_gb", route.pricePerGb());
            r.put("relay_price_per_hour", route.relayPricePerHour());
            r.put("effective_price_per_gb", Heterogeneous.round(route.effectivePricePerGb(), 5));
            routes.add(r);
        }
        described.put("routes", routes);
        described.put("target_rate_per_s",
                plan.quick() ? Heterogeneous.TARGET_RATE_QUICK : Heterogeneous.TARGET_RATE);
        described.put("spend_cap_per_hour", Heterogeneous.round(Heterogeneous.spendCap(plan), 6));
        described.put("cheapest_split", "routes by effective price (price/GB + relay price/h over the GB an hour at"
                + " capacity), each filled to " + Heterogeneous.USABLE_SHARE + " of its uplink until the load is"
                + " carried, relays paid in whole leases of " + Heterogeneous.RELAY_LEASE.toSeconds() + " s for the"
                + " time used; computed for the bytes each"
                + " variant sent, sample interval by sample interval");
        return described;
    }

    private static String joined(Map<String, Double> values, String format) {
        return String.join("/", values.values().stream().map(v -> String.format(Locale.ROOT, format, v)).toList());
    }

}
