package io.jetstream.kafka.bench.wan;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Counters of the delay line since it started, as it last reported them (it rewrites them every second and on exit).
 * Lateness is how long after its due time (arrival + one-way delay) a packet was written back: the jitter the delay
 * line adds; percentiles are upper edges of 1 us buckets.
 *
 * @param packets        packets delayed and written back, both directions together
 * @param bytes          their bytes (IP packets, without Ethernet headers)
 * @param dropped        packets dropped because the delay line's ring was full (should stay 0)
 * @param writeErrors    packets the kernel refused when written back (should stay 0)
 * @param lateP50        median lateness
 * @param lateP99        99th percentile of lateness
 * @param lateP999       99.9th percentile of lateness
 * @param lateMax        largest lateness
 * @param lateOver1ms    packets written back more than 1 ms late
 * @param inFlightMax    most packets held at once
 * @param writeMax       longest single write back (the kernel forwards the packet within it)
 */
public record DelayLineStats(long packets, long bytes, long dropped, long writeErrors, Duration lateP50,
                             Duration lateP99, Duration lateP999, Duration lateMax, long lateOver1ms,
                             long inFlightMax, Duration writeMax) {

    /**
     * Parses the delay line's counter line ({@code packets=.. bytes=.. dropped=.. ...}); empty when the line is not
     * one (for instance a half-written file).
     */
    public static Optional<DelayLineStats> parse(String line) {
        Map<String, Long> values = new HashMap<>();
        for (String word : line.trim().split("\\s+")) {
            int equals = word.indexOf('=');
            if (equals > 0) {
                try {
                    values.put(word.substring(0, equals), Long.parseLong(word.substring(equals + 1)));
                } catch (NumberFormatException e) {
                    return Optional.empty();
                }
            }
        }
        String[] required = {"packets", "bytes", "dropped", "write_errors", "late_p50_us", "late_p99_us",
            "late_p999_us", "late_max_us", "late_over_1ms", "in_flight_max", "write_max_us"};
        for (String key : required) {
            if (!values.containsKey(key)) {
                return Optional.empty();
            }
        }
        return Optional.of(new DelayLineStats(values.get("packets"), values.get("bytes"), values.get("dropped"),
                values.get("write_errors"), micros(values.get("late_p50_us")), micros(values.get("late_p99_us")),
                micros(values.get("late_p999_us")), micros(values.get("late_max_us")), values.get("late_over_1ms"),
                values.get("in_flight_max"), micros(values.get("write_max_us"))));
    }

    /** For example {@code 17352 packets, 20956708 bytes, 0 dropped, 0 write errors, late p50/p99/p99.9/max ...}. */
    @Override
    public String toString() {
        return packets + " packets, " + bytes + " bytes, " + dropped + " dropped, " + writeErrors + " write errors,"
                + " late p50/p99/p99.9/max " + lateP50.toNanos() / 1_000 + "/" + lateP99.toNanos() / 1_000 + "/"
                + lateP999.toNanos() / 1_000 + "/" + lateMax.toNanos() / 1_000 + " us (" + lateOver1ms
                + " over 1 ms), at most " + inFlightMax + " in flight, longest write " + writeMax.toNanos() / 1_000
                + " us";
    }

    private static Duration micros(long value) {
        return Duration.ofNanos(value * 1_000L);
    }
}
