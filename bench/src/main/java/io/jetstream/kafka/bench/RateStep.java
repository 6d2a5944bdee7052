package io.jetstream.kafka.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One step of the varying-rate load: {@code ratePerS} records/s for {@code duration}, or, for a burst,
 * {@code burstRecords} records produced at {@code ratePerS} (faster than any route drains) on top of
 * nothing, the next step starting as soon as they are all written at A.
 *
 * <p>Bursts are paced, not produced as fast as the producer goes: unthrottled, the producer shares
 * the two cores with the replicator and reached anywhere from 8,600 to 42,000 records/s in the runs
 * of 3 December (`/work/runs/vr5`-`vr9`), and a burst's p99 is about {@code N/drain - N/offered}: the
 * variant whose producer happened to run fastest looked slowest, whatever its drain rate.
 *
 * @param name         short name for tables and the JSON, e.g. {@code up-600} or {@code burst-1}
 * @param ratePerS     records/s of a rate step, or the pace of a burst
 * @param duration     how long a rate step produces; zero for a burst
 * @param burstRecords records of a burst; 0 for a rate step
 */
public record RateStep(String name, double ratePerS, Duration duration, long burstRecords) {

    /**
     * Records/s of the top step at 40 Mbit/s uplinks: 0.82 of what one route carries of this payload
     * (one uplink drained 7,600 records/s, 8.26 MB/s of records at 645 wire bytes each, in the full
     * run of 2 December 2026, 11:52 UTC), so that a one-route variant can keep up at the top and
     * still has some headroom; scaled with the uplink.
     */
    static final double TOP_RATE_AT_40_MBIT = 6000;

    /**
     * A burst's pace as a multiple of the top rate: 8,000 records/s at 40 Mbit/s, 1.05x what one uplink
     * drains (7,300-7,600 in the runs of 3 December 2026), 13x and 133x the steps the bursts land on.
     * Below what the producer reached in every paced burst that day: paced at 10,000 it reached only
     * 8,766 once (the fixed-small variant's burst-2 at 11:51 UTC), and a variant whose producer falls
     * short of the pace gets less backlog than the others, so a shorter drain into the step after it
     * (that variant's after-burst p99 was 218 ms, that of the adaptive batch policy's variant, since removed,
     * offered 9,942, 739 ms).
     */
    static final double BURST_PACE_OVER_TOP = 8.0 / 6;

    public RateStep {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(duration, "duration");
        boolean burst = burstRecords > 0;
        if (!(ratePerS > 0) || (burst ? !duration.isZero() : duration.toMillis() < 1000)) {
            throw new IllegalArgumentException("step " + name + ": a rate step has a rate > 0 and lasts >= 1 s,"
                    + " a burst has records, a pace > 0 and no duration");
        }
    }

    static RateStep rate(String name, double ratePerS, Duration duration) {
        return new RateStep(name, ratePerS, duration, 0);
    }

    static RateStep burst(String name, long records, double pacePerS) {
        return new RateStep(name, pacePerS, Duration.ZERO, records);
    }

    public boolean isBurst() {
        return burstRecords > 0;
    }

    /** Records the step produces. */
    public long records() {
        return isBurst() ? burstRecords : Math.max(1, Math.round(ratePerS * duration.toMillis() / 1000.0));
    }

    /**
     * The varying-rate schedule for uplinks of {@code uplinkBitsPerSecond}: with top = 6,000 records/s
     * at 40 Mbit/s (scaled with the uplink), full:
     * top/100, top/10, top, top/10 (30 s each), a burst of 5 s of the top rate (produced at
     * {@link #BURST_PACE_OVER_TOP} times the top rate), top/10 for 20 s (the
     * recovery), top/100 for 30 s, the same burst, top/100 for 20 s: rates step 10x up and down, and
     * bursts land on a medium and on a low rate. Quick (for {@code mvn verify}, kept small so that a
     * variant that falls behind drains soon): top/60, top/4 (6 s each), a burst of half a second of the
     * top rate, top/60 for 6 s.
     */
    static List<RateStep> varyingRate(boolean quick, long uplinkBitsPerSecond) {
        double top = Math.max(100, Math.round(TOP_RATE_AT_40_MBIT * uplinkBitsPerSecond / 40e6 / 100) * 100.0);
        List<RateStep> steps = new ArrayList<>();
        if (quick) {
            double low = Math.max(10, Math.round(top / 60));
            steps.add(rate("low", low, Duration.ofSeconds(6)));
            steps.add(rate("high", top / 4, Duration.ofSeconds(6)));
            steps.add(burst("burst", Math.round(top / 2), top * BURST_PACE_OVER_TOP));
            steps.add(rate("low-after-burst", low, Duration.ofSeconds(6)));
            return steps;
        }
        long burst = Math.round(top * 5);
        Duration step = Duration.ofSeconds(30);
        steps.add(rate("up-" + label(top / 100), top / 100, step));
        steps.add(rate("up-" + label(top / 10), top / 10, step));
        steps.add(rate("top-" + label(top), top, step));
        steps.add(rate("down-" + label(top / 10), top / 10, step));
        steps.add(burst("burst-1", burst, top * BURST_PACE_OVER_TOP));
        steps.add(rate("after-burst-" + label(top / 10), top / 10, Duration.ofSeconds(20)));
        steps.add(rate("down-" + label(top / 100), top / 100, step));
        steps.add(burst("burst-2", burst, top * BURST_PACE_OVER_TOP));
        steps.add(rate("after-burst-" + label(top / 100), top / 100, Duration.ofSeconds(20)));
        return steps;
    }

    private static String label(double rate) {
        return Long.toString(Math.round(rate));
    }
}
