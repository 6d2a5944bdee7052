package io.jetstream.kafka.core.model;

/**
 * Measures one link from the batches sent on it: throughput, round-trip time, failures and bytes in
 * flight (the "Monitor" of JetStream, route half). The route scheduler keeps one per route; the
 * batching policy keeps one for the sender's path to its relays.
 *
 * <p><b>Throughput.</b> A link is modelled as a FIFO bottleneck of capacity {@code C} plus a round
 * trip {@code R}: batch {@code i} is acknowledged at
 * {@code ack_i = max(sent_i + R, ack_{i-1}) + bytes_i / C}. So its service time at the bottleneck is
 * {@code ack_i - max(sent_i + R, ack_{i-1})}: the gap between acks when the link is busy, the ack
 * latency less the round trip when it is idle. The estimate is
 * {@code sum(bytes) / sum(service time)} over time-decayed samples ({@link DecayingRatio}), so back
 * to back acks that arrive together (service 0) cost nothing: the bytes of a busy period are
 * accumulated until at least {@link #MIN_SAMPLE_NANOS} of service time is covered. An idle link
 * measured this way under-estimates {@code C} by the destination's processing time; a busy one is
 * measured exactly. That bias is on the safe side (batches a little larger than needed).
 *
 * <p><b>Round-trip time.</b> The base RTT is the minimum of recent heartbeat RTTs
 * ({@link #onRttSample}); without heartbeats in the window, the minimum of ack latencies less
 * transmission time. Without heartbeats an idle link's capacity cannot be told from its RTT when
 * all batches have one size (any split of the ack latency fits), so idle-link throughput is only
 * trustworthy with heartbeats; busy periods are measured exactly either way.
 *
 * <p>Invariants: in-flight counters never go negative; a throughput is reported only after
 * {@code warmupSamples} samples. Not thread-safe: the owner serialises calls.
 */
public final class LinkMonitor {

    /** A busy-period sample is emitted once it covers this much service time. */
    static final long MIN_SAMPLE_NANOS = 1_000_000L;

    private final int warmupSamples;
    private final DecayingRatio nanosPerByte;
    private final WindowedMin heartbeatRtt;
    private final WindowedMin ackDerivedRtt;
    private final DecayingRatio smoothedRtt;
    private final DecayingRatio ackLatency;
    private boolean acked;
    private long lastAckNanos;
    private long busyBytes;
    private long busyServiceNanos;
    private long inFlightBytes;
    private int inFlightBatches;
    private long bytesSent;
    private long bytesAcked;
    private long failures;
    private int consecutiveFailures;
    private long lastProgressNanos;

    public LinkMonitor(EstimatorSettings settings) {
        this.warmupSamples = settings.warmupSamples();
        this.nanosPerByte = new DecayingRatio(settings.linkTimeConstant(), settings.clampFactor(),
                settings.warmupSamples());
        this.heartbeatRtt = new WindowedMin(settings.minRttWindow(), 8);
        this.ackDerivedRtt = new WindowedMin(settings.minRttWindow(), 8);
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
        consecutiveFailures = 0;
        lastProgressNanos = Math.max(lastProgressNanos, ackedAtNanos);
        long latency = ackedAtNanos - sentAtNanos;
        if (latency < 0 || wireBytes <= 0) {
            return;
        }
        ackLatency.add(latency, 1, ackedAtNanos);
        double throughput = bytesPerSecond();
        double transmissionNanos = Double.isNaN(throughput) ? 0 : wireBytes * 1e9 / throughput;
        ackDerivedRtt.add(Math.max(0, latency - transmissionNanos), ackedAtNanos);
        sampleService(wireBytes, sentAtNanos, ackedAtNanos);
        acked = true;
        lastAckNanos = Math.max(lastAckNanos, ackedAtNanos);
    }

    private void sampleService(long wireBytes, long sentAtNanos, long ackedAtNanos) {
        long rtt = (long) baseRttNanos(ackedAtNanos);
        long reachedBottleneckFreeAt = sentAtNanos + rtt;
        boolean queuedBehindPrevious = acked && lastAckNanos > reachedBottleneckFreeAt;
        long serviceStart = queuedBehindPrevious ? lastAckNanos : reachedBottleneckFreeAt;
        long service = ackedAtNanos - serviceStart;
        if (!queuedBehindPrevious) {
            flushBusyPeriod(ackedAtNanos);
        }
        busyBytes += wireBytes;
        busyServiceNanos += Math.max(0, service);
        boolean enoughToMeasure = busyServiceNanos >= MIN_SAMPLE_NANOS;
        if (enoughToMeasure || !queuedBehindPrevious) {
            flushBusyPeriod(ackedAtNanos);
        }
    }

    private void flushBusyPeriod(long nowNanos) {
        if (busyBytes > 0 && busyServiceNanos > 0) {
            nanosPerByte.add(busyServiceNanos, busyBytes, nowNanos);
        }
        busyBytes = 0;
        busyServiceNanos = 0;
    }

    /** A heartbeat (or any out-of-band probe) measured a round trip of {@code rttNanos}. */
    public void onRttSample(long rttNanos, long nowNanos) {
        if (rttNanos < 0) {
            return;
        }
        heartbeatRtt.add(rttNanos, nowNanos);
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
    }

    private void release(long wireBytes) {
        inFlightBytes = Math.max(0, inFlightBytes - Math.max(0, wireBytes));
        inFlightBatches = Math.max(0, inFlightBatches - 1);
    }

    private double bytesPerSecond() {
        boolean trusted = nanosPerByte.samples() >= warmupSamples && nanosPerByte.value() > 0;
        return trusted ? 1e9 / nanosPerByte.value() : Double.NaN;
    }

    /**
     * Heartbeat RTTs when there are any in the window: ack-derived ones depend on the throughput
     * estimate, and an under-estimated throughput would otherwise drag the RTT down with it.
     */
    private double baseRttNanos(long nowNanos) {
        double fromHeartbeats = heartbeatRtt.min(nowNanos);
        return Double.isNaN(fromHeartbeats) ? ackDerivedRtt.min(nowNanos) : fromHeartbeats;
    }

    public long inFlightBytes() {
        return inFlightBytes;
    }

    public LinkEstimates estimates(long nowNanos) {
        return new LinkEstimates(bytesPerSecond(), nanosPerByte.samples(), baseRttNanos(nowNanos),
                smoothedRtt.value(), ackLatency.value(), inFlightBytes, inFlightBatches, bytesSent, bytesAcked,
                failures, consecutiveFailures, lastProgressNanos);
    }
}
