package io.jetstream.kafka.core.model;

/**
 * Measures one stream at the sender: arrival rate, record size, compression ratio and encode cost,
 * from the events the sender reports (the "Monitor" of JetStream, stream half).
 *
 * <p>Which event feeds which estimator:
 * <ul>
 *   <li>{@link #onRecordsArrived}: arrival rate and mean record size ({@link DecayingRatio} of
 *       bytes over records). The rate is the larger of two {@link DecayingRate}s, one with the
 *       configured time constant and one twenty times faster: a rise is seen within a fraction of a
 *       second (falling behind is costly), a fall only as fast as the slow one forgets (shrinking
 *       batches late costs little);</li>
 *   <li>{@link #onBatchSent}: compression ratio ({@code (wire - overhead) / raw}) and the encode
 *       cost line {@code e0 + e1 * rawBytes} ({@link LinearFit} of encode nanos on raw bytes);</li>
 *   <li>{@link #onBatchAcked}: end-to-end time of the oldest record of the batch (for metrics);</li>
 *   <li>{@link #onBacklog}: the sender's waiting records and bytes (latest value wins).</li>
 * </ul>
 *
 * <p>Not thread-safe: its owner ({@link AdaptiveBatchPolicy}) serialises calls.
 */
public final class StreamMonitor {

    /** The fast rate estimator forgets this many times faster than the configured one. */
    private static final int FAST_RATE_DIVISOR = 20;

    private final int batchOverheadBytes;
    private final DecayingRate arrivals;
    private final DecayingRate recentArrivals;
    private final DecayingRatio recordSize;
    private final DecayingRatio compression;
    private final LinearFit encodeCost;
    private final DecayingRatio endToEnd;
    private long backlogRecords;
    private long backlogBytes;
    private long batchesSent;

    /** @param batchOverheadBytes wire bytes a batch adds besides its records (header, metadata) */
    public StreamMonitor(EstimatorSettings settings, int batchOverheadBytes) {
        this.batchOverheadBytes = Math.max(0, batchOverheadBytes);
        this.arrivals = new DecayingRate(settings.rateTimeConstant());
        this.recentArrivals = new DecayingRate(settings.rateTimeConstant().dividedBy(FAST_RATE_DIVISOR));
        this.recordSize = new DecayingRatio(settings.sampleTimeConstant(), settings.clampFactor(),
                settings.warmupSamples());
        this.compression = new DecayingRatio(settings.sampleTimeConstant(), settings.clampFactor(),
                settings.warmupSamples());
        this.encodeCost = new LinearFit(settings.sampleTimeConstant(), settings.clampFactor(),
                settings.warmupSamples());
        this.endToEnd = new DecayingRatio(settings.linkTimeConstant(), settings.clampFactor(),
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

    public void onBatchSent(int records, long uncompressedBytes, long wireBytes, long encodeNanos, long nowNanos) {
        batchesSent++;
        if (uncompressedBytes <= 0) {
            return;
        }
        long payloadWireBytes = Math.max(1, wireBytes - batchOverheadBytes);
        compression.add(payloadWireBytes, uncompressedBytes, nowNanos);
        encodeCost.add(uncompressedBytes, Math.max(0, encodeNanos), nowNanos);
    }

    public void onBatchAcked(long ackedAtNanos, long oldestRecordArrivalNanos) {
        long endToEndNanos = ackedAtNanos - oldestRecordArrivalNanos;
        if (endToEndNanos >= 0) {
            endToEnd.add(endToEndNanos, 1, ackedAtNanos);
        }
    }

    public void onBacklog(long records, long bytes) {
        backlogRecords = Math.max(0, records);
        backlogBytes = Math.max(0, bytes);
    }

    public long backlogRecords() {
        return backlogRecords;
    }

    public StreamEstimates estimates(long nowNanos) {
        boolean encodeKnown = encodeCost.hasFit();
        return new StreamEstimates(
                Math.max(arrivals.perSecond(nowNanos), recentArrivals.perSecond(nowNanos)),
                recordSize.value(),
                compression.value(),
                encodeKnown ? encodeCost.intercept() : Double.NaN,
                encodeKnown ? encodeCost.slope() : Double.NaN,
                endToEnd.value(),
                backlogRecords,
                backlogBytes,
                arrivals.observedNanos(nowNanos),
                batchesSent);
    }
}
