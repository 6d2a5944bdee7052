package io.jetstream.kafka.core.model;

/**
 * Measures one link from the batches sent on it: throughput, round-trip time, failures and bytes in
 * flight (the "Monitor" of JetStream, route half). The route scheduler keeps one per route; the
 * source-site task's operating-point monitor keeps two for the sender's path (to the destination's
 * acknowledgements, and to the egress relay's receipts).
 *
 * <p><b>Throughput.</b> A link is modelled as a FIFO bottleneck plus a fixed latency {@code L}
 * outside it (propagation both ways, processing at the far end): batch {@code i} is acknowledged
 * at {@code ack_i = max(sent_i, ack_{i-1} - L) + service_i + L}. When a batch was queued behind the
 * previous one ({@code ack_{i-1} - L > sent_i}), its service time at the bottleneck is exactly the
 * gap between the two acks, whatever the bottleneck is (the uplink, a relay, the destination's
 * decoder). {@code L} is taken as the base RTT: the minimum heartbeat RTT, or without heartbeats
 * the minimum ack latency (an upper bound: it also holds a transmission, so short overlaps are
 * missed, never invented). With heartbeats the test adds four mean absolute deviations of their
 * RTT, so that path jitter on the previous ack's way back is not taken for queueing (a uniform
 * jitter's range is four such deviations). Ack latencies are not used for that margin: they vary
 * with the link's own queue, and a margin that grew with the queue would hide it. The estimate is
 * {@code sum(bytes) / sum(gaps)} over such busy periods, time-decayed ({@link DecayingRatio});
 * bytes of acks that arrive together (gap 0) are accumulated until at least
 * {@link #MIN_SAMPLE_NANOS} of gaps are covered. Batches that found the bottleneck idle give no
 * sample: their ack latency mixes transmission with processing at the far end, and the sender's
 * own pace says nothing of capacity. So the throughput is unknown ({@code NaN}) until the link has
 * been busy; the owner then uses a prior, and a link whose capacity matters soon becomes busy and
 * measured (as in BBR, capacity is learnt at the bottleneck). A throughput not re-measured for
 * three link time constants is forgotten: capacity seen long ago (or measured wrongly) must not
 * hold decisions back for ever.
 *
 * <p><b>Round-trip time.</b> The base RTT is the minimum of recent heartbeat RTTs
 * ({@link #onRttSample}); without heartbeats in the window, the minimum ack latency (an upper
 * bound: it includes transmission and far-end processing).
 *
 * <p>Invariants: in-flight counters never go negative; a throughput is reported only after
 * {@code warmupSamples} samples. Not thread-safe: the owner serialises calls.
 */
public final class LinkMonitor {

    /** A busy-period sample is emitted once it covers this much service time. */
    static final long MIN_SAMPLE_NANOS = 1_000_000L;
    /** A throughput not re-measured for this many link time constants is forgotten (reported unknown). */
    static final int EXPIRY_TIME_CONSTANTS = 3;
    /** Queueing must exceed this many mean absolute deviations of the heartbeat RTT (a uniform jitter's range). */
    static final double JITTER_MARGIN_DEVIATIONS = 4.0;
    /**
     * Acks closer than this arrived together: released at once by the far end (a transaction
     * commit acknowledges every batch written since the previous one), not served one after
     * another by a bottleneck (serving the smallest batch takes longer).
     */
    static final long RELEASED_TOGETHER_NANOS = 5_000L;

    private final int warmupSamples;
    private final DecayingRatio nanosPerByte;
    private final WindowedMin heartbeatRtt;
    private final WindowedMin minAckLatency;
    private final DecayingRatio smoothedRtt;
    private final DecayingRatio ackLatency;
    private final DecayingRatio heartbeatDeviation;
    private final DecayingRate delivered;
    private boolean acked;
    private long lastAckNanos;
    private long busyBytes;
    private long busyServiceNanos;
    private int busyBatches;
    private int busyReleasedTogether;
    private long inFlightBytes;
    private int inFlightBatches;
    private long bytesSent;
    private long bytesAcked;
    private long failures;
    private int consecutiveFailures;
    private long lastProgressNanos;
    private double lastAckLatencyNanos = Double.NaN;
    private long lastThroughputSampleNanos;
    private final long throughputExpiryNanos;

    public LinkMonitor(EstimatorSettings settings) {
        this.warmupSamples = settings.warmupSamples();
        this.throughputExpiryNanos = settings.linkTimeConstant().toNanos() * EXPIRY_TIME_CONSTANTS;
        this.nanosPerByte = new DecayingRatio(settings.linkTimeConstant(), settings.clampFactor(),
                settings.warmupSamples());
        this.heartbeatRtt = new WindowedMin(settings.minRttWindow(), 8);
        this.heartbeatDeviation = new DecayingRatio(settings.linkTimeConstant(), Double.POSITIVE_INFINITY, 1);
        this.minAckLatency = new WindowedMin(settings.minRttWindow(), 8);
        this.delivered = new DecayingRate(settings.linkTimeConstant());
        this.smoothedRtt = new DecayingRatio(settings.linkTimeConstant(), settings.clampFactor(),
                settings.warmupSamples());
        this.ackLatency = new DecayingRatio(settings.linkTimeConstant(), settings.clampFactor(),
                settings.warmupSamples());
    }

    public void onSent(long wireBytes, long nowNanos) {
        if (inFlightBatches == 0) {
            lastProgressNanos = nowNanos;
        }
        inFlightBytes += Math.max(0, wireBytes);
        inFlightBatches++;
        bytesSent += Math.max(0, wireBytes);
    }

    public void onAcked(long wireBytes, long sentAtNanos, long ackedAtNanos) {
        release(wireBytes);
        bytesAcked += Math.max(0, wireBytes);
        delivered.add(Math.max(0, wireBytes), ackedAtNanos, sentAtNanos);
        consecutiveFailures = 0;
        lastProgressNanos = Math.max(lastProgressNanos, ackedAtNanos);
        long latency = ackedAtNanos - sentAtNanos;
        if (latency < 0 || wireBytes <= 0) {
            return;
        }
        ackLatency.add(latency, 1, ackedAtNanos);
        minAckLatency.add(latency, ackedAtNanos);
        lastAckLatencyNanos = latency;
        sampleService(wireBytes, sentAtNanos, ackedAtNanos);
        acked = true;
        lastAckNanos = Math.max(lastAckNanos, ackedAtNanos);
    }

    private void sampleService(long wireBytes, long sentAtNanos, long ackedAtNanos) {
        // the base RTT bounds from above the part of a round trip spent outside the bottleneck's
        // queue; the margin covers path jitter, so an ack late on its way back is not taken for a
        // queue at the bottleneck
        double unqueuedLatency = baseRttNanos(ackedAtNanos);
        boolean heartbeatsSeen = smoothedRtt.hasValue();
        boolean jitterKnown = heartbeatDeviation.samples() >= warmupSamples;
        if (heartbeatsSeen && !jitterKnown) {
            return; // the path's jitter is not known yet: no sample rather than a wrong one
        }
        double margin = jitterKnown ? JITTER_MARGIN_DEVIATIONS * heartbeatDeviation.value() : 0;
        boolean queuedBehindPrevious = acked && lastAckNanos > sentAtNanos + unqueuedLatency + margin;
        if (!queuedBehindPrevious) {
            // the bottleneck was idle when this batch reached it: its ack latency mixes transmission
            // with processing at the far end, and the sender's own pace says nothing of capacity
            flushBusyPeriod(ackedAtNanos);
            return;
        }
        busyBytes += wireBytes;
        busyServiceNanos += ackedAtNanos - lastAckNanos;
        busyBatches++;
        if (ackedAtNanos - lastAckNanos < RELEASED_TOGETHER_NANOS) {
            busyReleasedTogether++;
        }
        if (busyServiceNanos >= MIN_SAMPLE_NANOS) {
            flushBusyPeriod(ackedAtNanos);
        }
    }

    private void flushBusyPeriod(long nowNanos) {
        // most acks of the period arrived together: the far end releases batches in groups (commits),
        // the gaps measure how often it releases them, i.e. the sender's own rate, not the capacity
        boolean releasedInGroups = busyBatches >= 3 && 2 * busyReleasedTogether > busyBatches;
        if (busyBytes > 0 && busyServiceNanos > 0 && !releasedInGroups) {
            boolean expired = nowNanos - lastThroughputSampleNanos > throughputExpiryNanos;
            if (expired) {
                nanosPerByte.reset();
            }
            nanosPerByte.add(busyServiceNanos, busyBytes, nowNanos);
            lastThroughputSampleNanos = nowNanos;
        }
        busyBytes = 0;
        busyServiceNanos = 0;
        busyBatches = 0;
        busyReleasedTogether = 0;
    }

    /** A heartbeat (or any out-of-band probe) measured a round trip of {@code rttNanos}. */
    public void onRttSample(long rttNanos, long nowNanos) {
        if (rttNanos < 0) {
            return;
        }
        heartbeatRtt.add(rttNanos, nowNanos);
        if (smoothedRtt.hasValue()) {
            heartbeatDeviation.add(Math.abs(rttNanos - smoothedRtt.value()), 1, nowNanos);
        }
        smoothedRtt.add(rttNanos, 1, nowNanos);
    }

    /** A batch was negatively acknowledged or timed out: it is no longer in flight. */
    public void onFailed(long wireBytes, long nowNanos) {
        release(wireBytes);
        failures++;
        consecutiveFailures++;
        flushBusyPeriod(nowNanos);
    }

    /** The connection was lost: every batch in flight is failed at once. */
    public void onConnectionLost(long nowNanos) {
        if (inFlightBatches > 0) {
            failures++;
            consecutiveFailures++;
        }
        inFlightBytes = 0;
        inFlightBatches = 0;
        busyBytes = 0;
        busyServiceNanos = 0;
        busyBatches = 0;
        busyReleasedTogether = 0;
    }

    private void release(long wireBytes) {
        inFlightBytes = Math.max(0, inFlightBytes - Math.max(0, wireBytes));
        inFlightBatches = Math.max(0, inFlightBatches - 1);
    }

    private double bytesPerSecond(long nowNanos) {
        boolean fresh = nowNanos - lastThroughputSampleNanos <= throughputExpiryNanos;
        boolean trusted = fresh && nanosPerByte.samples() >= warmupSamples && nanosPerByte.value() > 0;
        return trusted ? 1e9 / nanosPerByte.value() : Double.NaN;
    }

    /**
     * Heartbeat RTTs when there are any in the window; otherwise the smallest ack latency, which
     * also contains transmission and processing at the far end (an upper bound).
     */
    private double baseRttNanos(long nowNanos) {
        double fromHeartbeats = heartbeatRtt.min(nowNanos);
        return Double.isNaN(fromHeartbeats) ? minAckLatency.min(nowNanos) : fromHeartbeats;
    }

    public long inFlightBytes() {
        return inFlightBytes;
    }

    public int inFlightBatches() {
        return inFlightBatches;
    }

    public LinkEstimates estimates(long nowNanos) {
        return new LinkEstimates(bytesPerSecond(nowNanos), nanosPerByte.samples(), delivered.perSecond(nowNanos),
                baseRttNanos(nowNanos),
                smoothedRtt.value(), ackLatency.value(), minAckLatency.min(nowNanos), lastAckLatencyNanos, inFlightBytes, inFlightBatches, bytesSent, bytesAcked,
                failures, consecutiveFailures, lastProgressNanos);
    }
}
