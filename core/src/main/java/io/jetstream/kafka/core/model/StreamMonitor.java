package io.jetstream.kafka.core.model;

/**
 * Measures one stream at the sender: arrival rate, record size and the backlog, from the events the
 * sender reports (the "Monitor" of JetStream, stream half; the operating point's arrivals).
 *
 * <p>Which event feeds which estimator:
 * <ul>
 *   <li>{@link #onRecordsArrived}: arrival rate and mean record size ({@link DecayingRatio} of
 *       bytes over records). The rate comes from a {@link DecayingRate} with the configured time
 *       constant and a {@link RecentRate} over the last 16 arrivals. When the recent one is above
 *       the slow one by more than Poisson noise (four standard deviations) and by half, the rate
 *       has stepped up: the slow one restarts from the recent one. So a step up is seen within a
 *       few arrivals, noise and chunked arrivals do not bias the rate upwards, and a fall is
 *       followed as fast as the slow one forgets;</li>
 *   <li>{@link #onBacklog}: the sender's waiting records and bytes (latest value wins).</li>
 * </ul>
 *
 * <p>Not thread-safe: its owner ({@code environment.OperatingPointMonitor}) serialises calls.
 */
public final class StreamMonitor {

    /** The fast rate is measured over this many recent arrivals (calls). */
    private static final int RECENT_ARRIVALS = 16;
    private static final double RISE_SIGMAS = 4.0;
    private static final double RISE_RATIO = 1.5;

    private final DecayingRate arrivals;
    private final RecentRate recentArrivals;
    private final DecayingRatio recordSize;
    private long backlogRecords;
    private long backlogBytes;

    public StreamMonitor(EstimatorSettings settings) {
        this.arrivals = new DecayingRate(settings.rateTimeConstant());
        this.recentArrivals = new RecentRate(RECENT_ARRIVALS);
        this.recordSize = new DecayingRatio(settings.sampleTimeConstant(), settings.clampFactor(),
                settings.warmupSamples());
    }

    public void onRecordsArrived(int records, long bytes, long nowNanos) {
        if (records <= 0) {
            return;
        }
        arrivals.add(records, nowNanos);
        recentArrivals.add(records, nowNanos);
        recordSize.add(Math.max(0, bytes), records, nowNanos);
    }

    public void onBacklog(long records, long bytes) {
        backlogRecords = Math.max(0, records);
        backlogBytes = Math.max(0, bytes);
    }

    /**
     * The slow estimate, unless the recent one is above it by more than four Poisson standard
     * deviations (of the records the slow rate predicts in the recent window) and by half: then
     * the rate has stepped up, and the slow estimate restarts from the recent one so that it does
     * not lag behind the step for a time constant.
     */
    private double arrivalRate(long nowNanos) {
        double slow = arrivals.perSecond(nowNanos);
        double recent = recentArrivals.perSecond(nowNanos);
        double window = recentArrivals.windowSeconds(nowNanos);
        if (Double.isNaN(recent) || !(window > 0)) {
            return slow;
        }
        double expectedRecords = Math.max(slow * window, 1.0);
        double noise = Math.sqrt(expectedRecords) / window;
        boolean steppedUp = recent > slow + RISE_SIGMAS * noise && recent > slow * RISE_RATIO;
        if (steppedUp) {
            arrivals.restart(recent, nowNanos);
            return recent;
        }
        return slow;
    }

    public StreamEstimates estimates(long nowNanos) {
        return new StreamEstimates(arrivalRate(nowNanos), recordSize.value(), backlogRecords, backlogBytes);
    }
}
