package io.jetstream.kafka.core.model;

/**
 * Splits the end-to-end acknowledgement time of a batch into a part that does not depend on its
 * size and a part that does: {@code ack - sent = R + c + wireBytes / C}, with {@code R} the base
 * round-trip time, {@code c} a fixed delay at the far end (the destination acknowledges only after
 * its Kafka transaction commits, every 100-1000 ms in Connect's exactly-once mode, or after an
 * offset flush in at-least-once mode) and {@code C} the throughput of the path.
 *
 * <p>Fit: a time-decayed least-squares line ({@link LinearFit}) of {@code y = ack - sent - R} on the
 * batch's wire bytes; intercept = {@code c} (never negative), slope = {@code 1/C}. A commit
 * releases every batch written since the previous one, so {@code y} carries a wait uniform in
 * {@code [0, commit period)} that does not depend on the size: it is noise for the slope and
 * averages into {@code c}, which is what a record waits on average.
 *
 * <p>Why not {@code bytes / (ack - sent - R)} per batch: with a fixed delay {@code c} that ratio
 * grows with the batch size, so small batches look slow and large ones fast, and a model that takes
 * it for the path's throughput drives itself to small batches (docs/experiments.md).
 *
 * <p>When the sizes sampled hardly vary (relative spread below {@link #MIN_RELATIVE_SPREAD}), or the
 * slope's standard error exceeds {@link #MAX_SLOPE_ERROR} of it (a commit wait uniform over 100 ms
 * drowns the transmission time of kilobyte batches), the slope is not identifiable: {@link #nanosPerByte()} is NaN, so the owner keeps its other throughput
 * estimate (never this one, which would charge {@code c} to the bytes), and {@code c} is the mean
 * {@code y} less the transmission at the given throughput, never below the smallest {@code y}
 * recently seen.
 *
 * <p>The largest recent {@code y} ({@link #maxDelayNanos}) is kept for the in-flight window: a
 * batch holds its slot for up to {@code R + max y}, and the window must cover that much of the
 * arrival rate or the pipe runs dry while batches wait for a commit.
 *
 * <p>Not thread-safe: its owner ({@link AdaptiveBatchPolicy}) serialises calls.
 */
public final class AckTimeModel {

    /** Relative spread (coefficient of variation) of batch sizes needed to trust the slope. */
    static final double MIN_RELATIVE_SPREAD = 0.1;
    /** The slope is trusted only when its standard error is at most this fraction of it. */
    static final double MAX_SLOPE_ERROR = 0.25;
    /** Window of the smallest recent delay, the sign of a queue at the far end. */
    static final java.time.Duration QUEUE_WINDOW = java.time.Duration.ofMillis(1_500);
    /**
     * A far-end queue shorter than this, or than {@link #QUEUE_SPREAD_SHARE} of the recent spread
     * of delays (path jitter, commit waits), is not taken for a far end falling behind.
     */
    static final long MIN_QUEUE_NANOS = 5_000_000L;
    static final double QUEUE_SPREAD_SHARE = 0.5;

    private final LinearFit fit;
    private final WindowedMin minDelay;
    private final WindowedMin negatedMaxDelay;
    private final WindowedMin recentMinDelay;
    private final WindowedMin floorDelay;
    private final DecayingRate ackedBatches;
    private final DecayingRate ackedBytes;
    private final DecayingRatio farEndBatchCost;
    private final int warmupSamples;

    public AckTimeModel(EstimatorSettings settings) {
        this.fit = new LinearFit(settings.linkTimeConstant(), settings.clampFactor(), settings.warmupSamples());
        this.minDelay = new WindowedMin(settings.linkTimeConstant(), 8);
        this.negatedMaxDelay = new WindowedMin(settings.linkTimeConstant(), 8);
        this.recentMinDelay = new WindowedMin(QUEUE_WINDOW, 8);
        this.floorDelay = new WindowedMin(settings.minRttWindow(), 8);
        this.ackedBatches = new DecayingRate(settings.rateTimeConstant());
        this.ackedBytes = new DecayingRate(settings.rateTimeConstant());
        // no clamping: a far end that slows down must be followed at once
        this.farEndBatchCost = new DecayingRatio(settings.linkTimeConstant(), Double.POSITIVE_INFINITY, 1);
        this.warmupSamples = settings.warmupSamples();
    }

    /**
     * A batch of {@code wireBytes} sent at {@code sentAtNanos} was acknowledged at
     * {@code ackedAtNanos}, on a path whose base round trip is {@code baseRttNanos} (NaN: unknown,
     * the sample is dropped).
     */
    public void onAcked(long wireBytes, long sentAtNanos, long ackedAtNanos, double baseRttNanos) {
        long latency = ackedAtNanos - sentAtNanos;
        if (latency < 0 || wireBytes <= 0 || Double.isNaN(baseRttNanos)) {
            return;
        }
        ackedBatches.add(1, ackedAtNanos);
        ackedBytes.add(wireBytes, ackedAtNanos);
        double beyondRtt = Math.max(0, latency - baseRttNanos);
        fit.add(wireBytes, beyondRtt, ackedAtNanos);
        minDelay.add(beyondRtt, ackedAtNanos);
        negatedMaxDelay.add(-beyondRtt, ackedAtNanos);
        recentMinDelay.add(beyondRtt, ackedAtNanos);
        floorDelay.add(beyondRtt, ackedAtNanos);
    }

    /**
     * Queue at the far end: how far the smallest delay beyond {@code R} of the last
     * {@link #QUEUE_WINDOW} rose above its floor over the base-RTT window. The batch that reaches the
     * far end just before a commit waits for nothing, so the recent minimum is the transmission plus
     * any queue; a rise of it means batches queue behind each other at the far end (or the link):
     * the path does not keep up at the current batch size. 0 when unknown, or when the rise is within
     * {@link #MIN_QUEUE_NANOS} or {@link #QUEUE_SPREAD_SHARE} of the recent spread of delays.
     */
    public double farEndQueueNanos(long nowNanos) {
        double recent = recentMinDelay.min(nowNanos);
        double floor = floorDelay.min(nowNanos);
        if (Double.isNaN(recent) || Double.isNaN(floor)) {
            return 0;
        }
        double rise = recent - floor;
        double spread = maxDelayNanos(nowNanos) - floor;
        double threshold = Math.max(MIN_QUEUE_NANOS, Double.isFinite(spread) ? QUEUE_SPREAD_SHARE * spread : 0);
        return rise > threshold ? rise : 0;
    }

    /** Whether the slope (1/C) can be told from the intercept: enough samples of different sizes. */
    public boolean identified() {
        return fit.samples() >= warmupSamples && fit.slopeIdentified()
                && fit.relativeSpreadOfX() >= MIN_RELATIVE_SPREAD && fit.slope() > 0
                && fit.slopeStandardError() <= MAX_SLOPE_ERROR * fit.slope();
    }

    /** {@code 1/C} from the slope, in nanoseconds per wire byte; NaN unless {@link #identified()}. */
    public double nanosPerByte() {
        return identified() ? fit.slope() : Double.NaN;
    }

    /**
     * The fixed delay {@code c}: the intercept when identified, else the mean delay less the
     * transmission of the mean batch at {@code bytesPerSecond}, not below the smallest recent delay.
     * NaN before the first sample.
     */
    public double fixedDelayNanos(double bytesPerSecond, long nowNanos) {
        if (!fit.hasFit()) {
            return Double.NaN;
        }
        if (identified()) {
            return Math.max(0, fit.intercept());
        }
        double transmission = bytesPerSecond > 0 ? fit.meanX() / bytesPerSecond * 1e9 : 0;
        double floor = minDelay.min(nowNanos);
        double fromMean = Math.max(0, fit.meanY() - transmission);
        return Double.isNaN(floor) ? fromMean : Math.max(Math.min(floor, fit.meanY()), fromMean);
    }

    /** The largest {@code ack - sent - R} recently seen (the slot a batch may hold beyond R); NaN if none. */
    public double maxDelayNanos(long nowNanos) {
        double negated = negatedMaxDelay.min(nowNanos);
        return Double.isNaN(negated) ? Double.NaN : -negated;
    }

    /**
     * Serial cost of a batch at the far end besides its bytes ({@code k}: poll, hand-over to the
     * producer, ack sequencing): while a far-end queue persists, the far end serves batches as fast as
     * it can, so {@code k = 1 / (batches acked per second) - (mean wire bytes) / C}; without a queue
     * that value is an upper bound, and the estimate is lowered to it. Learnt only from queues, so
     * 0 until the far end has fallen behind once; kept (not decayed to 0) once learnt, so that
     * batches do not shrink back into the same queue. Call at each decision with the measured
     * throughput, or NaN when there is none: against the prior the whole service time of a batch
     * would be taken for {@code k}, and a far-end queue could as well be bytes (nothing is learnt).
     */
    public double farEndBatchNanos(double bytesPerSecond, long nowNanos) {
        double batchesPerSecond = ackedBatches.perSecond(nowNanos);
        double bytes = ackedBytes.perSecond(nowNanos);
        boolean measurable = batchesPerSecond > 0 && bytesPerSecond > 0 && Double.isFinite(bytesPerSecond);
        if (measurable) {
            double meanWire = bytes / batchesPerSecond;
            double bound = Math.max(0, 1e9 / batchesPerSecond - meanWire / bytesPerSecond * 1e9);
            boolean queued = farEndQueueNanos(nowNanos) > 0;
            if (queued) {
                farEndBatchCost.add(bound, 1, nowNanos);
            } else if (farEndBatchCost.hasValue() && farEndBatchCost.value() > bound) {
                farEndBatchCost.reset();
                farEndBatchCost.add(bound, 1, nowNanos);
            }
        }
        return farEndBatchCost.hasValue() ? farEndBatchCost.value() : 0;
    }

    public long samples() {
        return fit.samples();
    }
}
