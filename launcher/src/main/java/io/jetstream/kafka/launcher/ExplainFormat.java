package io.jetstream.kafka.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;

/**
 * Numbers as {@code ./jetstream explain} prints them: counts with thousands separators, sizes in
 * binary units (KiB, MiB), rates in MB/s (as the benchmarks report them), times in ms or s, and a
 * figure the task did not give (JSON null, not measured yet) as {@code ?}.
 */
final class ExplainFormat {

    static final String UNKNOWN = "?";

    private ExplainFormat() {
    }

    /** The member {@code field} of {@code node} as a number; NaN when absent, null or not a number. */
    static double num(JsonNode node, String field) {
        JsonNode value = node == null ? null : node.get(field);
        return value != null && value.isNumber() ? value.asDouble() : Double.NaN;
    }

    /** The member {@code field} of {@code node} as text; null when absent or null. */
    static String text(JsonNode node, String field) {
        JsonNode value = node == null ? null : node.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }

    /** 1,200 */
    static String count(double n) {
        return Double.isNaN(n) ? UNKNOWN : String.format(Locale.ROOT, "%,d", Math.round(n));
    }

    /** 900 B, 512 KiB, 1.5 MiB, 2.0 GiB */
    static String bytes(double n) {
        if (Double.isNaN(n)) {
            return UNKNOWN;
        }
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        double value = n;
        int unit = 0;
        while (Math.abs(value) >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        if (unit == 0 || value >= 100 || value == Math.rint(value)) {
            return String.format(Locale.ROOT, "%d %s", Math.round(value), units[unit]);
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }

    /** 4.7 MB/s (decimal megabytes, as the benchmarks report rates) */
    static String rate(double bytesPerSecond) {
        if (Double.isNaN(bytesPerSecond)) {
            return UNKNOWN;
        }
        if (Double.isInfinite(bytesPerSecond)) {
            return "unlimited";
        }
        double mb = bytesPerSecond / 1e6;
        return String.format(Locale.ROOT, mb >= 10 ? "%.0f MB/s" : mb >= 0.1 ? "%.1f MB/s" : "%.3f MB/s", mb);
    }

    /** 1.2 GB (decimal, as the money per GB is) */
    static String gigabytes(double bytes) {
        if (Double.isNaN(bytes)) {
            return UNKNOWN;
        }
        if (bytes < 1e6) {
            return String.format(Locale.ROOT, "%.1f kB", bytes / 1e3);
        }
        if (bytes < 1e9) {
            return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
        }
        return String.format(Locale.ROOT, "%.2f GB", bytes / 1e9);
    }

    /** 0.4 ms, 3.2 ms, 41 ms, 1.5 s */
    static String millis(double ms) {
        if (Double.isNaN(ms)) {
            return UNKNOWN;
        }
        if (Double.isInfinite(ms)) {
            return "never";
        }
        if (ms >= 1_000) {
            return String.format(Locale.ROOT, "%.1f s", ms / 1000);
        }
        return String.format(Locale.ROOT, ms < 10 ? "%.1f ms" : "%.0f ms", ms);
    }

    /** 83% */
    static String percent(double fraction) {
        return Double.isNaN(fraction) ? UNKNOWN : String.format(Locale.ROOT, "%.0f%%", fraction * 100);
    }

    /** 0.57, 12.3, 1,200 (a plain figure with about three significant digits) */
    static String figure(double value) {
        if (Double.isNaN(value)) {
            return UNKNOWN;
        }
        double abs = Math.abs(value);
        if (abs >= 1000) {
            return count(value);
        }
        return String.format(Locale.ROOT, abs >= 100 ? "%.0f" : abs >= 10 ? "%.1f" : "%.2f", value);
    }

    /** Money with enough digits for small sums: 0.024, 12.50 */
    static String money(double value) {
        if (Double.isNaN(value)) {
            return UNKNOWN;
        }
        return String.format(Locale.ROOT, Math.abs(value) >= 1 ? "%.2f" : "%.4f", value);
    }
}
