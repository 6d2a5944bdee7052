package io.jetstream.kafka.core.routing;

import io.jetstream.kafka.core.model.EstimatorSettings;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Policy constants of {@link RouteScheduler}. Build with {@link #builder()}.
 *
 * @param priorBytesPerSecond      capacity assumed for a route until it has been measured busy;
 *                                 optimistic, so an unmeasured route is tried (and so measured)
 * @param priorRtt                 round-trip time assumed until measured
 * @param queueAllowance           a route is full when its bytes in flight exceed its capacity times
 *                                 (base RTT + this): the pipe plus this much queue; a route that
 *                                 spilled to a costlier one and then ran short of work is allowed
 *                                 more, up to 1 s (its spill allowance, see {@link RouteScheduler})
 * @param latencyTarget            optional: a route whose expected completion exceeds it is not
 *                                 preferred, so a costlier faster route may be used
 * @param spendCap                 money limits, never exceeded
 * @param spendWindow              window of {@link SpendCap#perWindow()}, one hour by default
 * @param relayLease               relays priced per hour are paid in advance in slices this long
 * @param downAfterFailures        consecutive failures that take a route down
 * @param recoveryAcks             consecutive acknowledgements that bring a degraded route back up
 * @param probeBackoff             first wait before probing a route that went down
 * @param maxProbeBackoff          cap of that wait, which doubles with each failed probe
 * @param stallTimeout             a route with batches in flight and no acknowledgement for this
 *                                 long, plus the time to drain its bytes in flight, goes down
 * @param priceTolerance           routes whose effective prices differ by less than this fraction
 *                                 are one price tier, shared by capacity
 * @param probeShare               minimum share of batches of every healthy route of the cheapest
 *                                 price tier (probing: keeps its RTT and capacity estimates fresh
 *                                 and shows a failure); a route is given a batch when it was not
 *                                 chosen in the last {@code ceil(1/probeShare)} choices or for
 *                                 {@code probeInterval}; 0 turns probing off
 * @param costlyProbeShare         the same for healthy routes of costlier tiers; each probe is paid
 *                                 and counts against the spend cap, hence 0 (off) by default
 * @param probeInterval            a probed route gets at least one batch this often
 * @param completionTolerance      expected completions within this fraction of the earliest one are
 *                                 a tie (the estimates are not more precise), broken in favour of
 *                                 the route chosen least recently
 * @param estimators               estimator time constants of the routes' monitors
 */
public record RouteSchedulerSettings(
        double priorBytesPerSecond,
        Duration priorRtt,
        Duration queueAllowance,
        Optional<Duration> latencyTarget,
        SpendCap spendCap,
        Duration spendWindow,
        Duration relayLease,
        int downAfterFailures,
        int recoveryAcks,
        Duration probeBackoff,
        Duration maxProbeBackoff,
        Duration stallTimeout,
        double priceTolerance,
        double probeShare,
        double costlyProbeShare,
        Duration probeInterval,
        double completionTolerance,
        EstimatorSettings estimators) {

    public RouteSchedulerSettings {
        Objects.requireNonNull(latencyTarget, "latencyTarget");
        Objects.requireNonNull(spendCap, "spendCap");
        Objects.requireNonNull(estimators, "estimators");
        for (Duration d : new Duration[] {priorRtt, queueAllowance, spendWindow, relayLease, probeBackoff,
            maxProbeBackoff, stallTimeout, probeInterval}) {
            if (d == null || d.isNegative()) {
                throw new IllegalArgumentException("durations must be set and not negative, got " + d);
            }
        }
        if (!(priorBytesPerSecond > 0) || downAfterFailures < 1 || recoveryAcks < 1
                || !(priceTolerance >= 0) || spendWindow.isZero() || probeBackoff.isZero()) {
            throw new IllegalArgumentException("priorBytesPerSecond, downAfterFailures, "
                    + "recoveryAcks, spendWindow and probeBackoff must be positive, priceTolerance >= 0");
        }
        if (!(probeShare >= 0 && probeShare <= 0.5) || !(costlyProbeShare >= 0 && costlyProbeShare <= 0.5)
                || probeInterval.isZero()) {
            throw new IllegalArgumentException("probeShare and costlyProbeShare must be in [0, 0.5] and probeInterval"
                    + " positive, got " + probeShare + ", " + costlyProbeShare + ", " + probeInterval);
        }
        if (!(completionTolerance >= 0 && completionTolerance < 1)) {
            throw new IllegalArgumentException("completionTolerance must be in [0, 1), got " + completionTolerance);
        }
        if (probeBackoff.compareTo(maxProbeBackoff) > 0) {
            throw new IllegalArgumentException("probeBackoff " + probeBackoff + " exceeds maxProbeBackoff "
                    + maxProbeBackoff);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    public static RouteSchedulerSettings defaults() {
        return builder().build();
    }

    /** Mutable builder; {@link #build()} validates. */
    public static final class Builder {
        private double priorBytesPerSecond = 125e6;
        private Duration priorRtt = Duration.ofMillis(50);
        private Duration queueAllowance = Duration.ofMillis(50);
        private Duration latencyTarget;
        private SpendCap spendCap = SpendCap.none();
        private Duration spendWindow = Duration.ofHours(1);
        private Duration relayLease = Duration.ofMinutes(1);
        private int downAfterFailures = 3;
        private int recoveryAcks = 3;
        private Duration probeBackoff = Duration.ofMillis(500);
        private Duration maxProbeBackoff = Duration.ofSeconds(2);
        private Duration stallTimeout = Duration.ofSeconds(1);
        private double priceTolerance = 0.05;
        private double probeShare = 0.05;
        private double costlyProbeShare = 0;
        private Duration probeInterval = Duration.ofSeconds(1);
        private double completionTolerance = 0.25;
        private EstimatorSettings estimators = EstimatorSettings.defaults();

        private Builder() {
        }

        public Builder priorBytesPerSecond(double v) { priorBytesPerSecond = v; return this; }
        public Builder priorRtt(Duration v) { priorRtt = v; return this; }
        public Builder queueAllowance(Duration v) { queueAllowance = v; return this; }
        public Builder latencyTarget(Duration v) { latencyTarget = v; return this; }
        public Builder spendCap(SpendCap v) { spendCap = v; return this; }
        public Builder spendWindow(Duration v) { spendWindow = v; return this; }
        public Builder relayLease(Duration v) { relayLease = v; return this; }
        public Builder downAfterFailures(int v) { downAfterFailures = v; return this; }
        public Builder recoveryAcks(int v) { recoveryAcks = v; return this; }
        public Builder probeBackoff(Duration v) { probeBackoff = v; return this; }
        public Builder maxProbeBackoff(Duration v) { maxProbeBackoff = v; return this; }
        public Builder stallTimeout(Duration v) { stallTimeout = v; return this; }
        public Builder priceTolerance(double v) { priceTolerance = v; return this; }
        public Builder probeShare(double v) { probeShare = v; return this; }
        public Builder costlyProbeShare(double v) { costlyProbeShare = v; return this; }
        public Builder probeInterval(Duration v) { probeInterval = v; return this; }
        public Builder completionTolerance(double v) { completionTolerance = v; return this; }
        public Builder estimators(EstimatorSettings v) { estimators = v; return this; }

        public RouteSchedulerSettings build() {
            return new RouteSchedulerSettings(priorBytesPerSecond, priorRtt, queueAllowance,
                    Optional.ofNullable(latencyTarget), spendCap, spendWindow, relayLease,
                    downAfterFailures, recoveryAcks, probeBackoff, maxProbeBackoff, stallTimeout, priceTolerance,
                    probeShare, costlyProbeShare, probeInterval, completionTolerance, estimators);
        }
    }
}
