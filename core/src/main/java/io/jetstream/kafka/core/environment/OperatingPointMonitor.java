package io.jetstream.kafka.core.environment;

import io.jetstream.kafka.core.model.BatchDecision;
import io.jetstream.kafka.core.model.BatchPolicy;
import io.jetstream.kafka.core.model.DecayingRate;
import io.jetstream.kafka.core.model.DecayingRatio;
import io.jetstream.kafka.core.model.EstimatorSettings;
import io.jetstream.kafka.core.model.LinkEstimates;
import io.jetstream.kafka.core.model.LinkMonitor;
import io.jetstream.kafka.core.model.StreamEstimates;
import io.jetstream.kafka.core.model.StreamMonitor;
import io.jetstream.kafka.core.model.WindowedMin;
import java.time.Duration;
import java.util.Objects;

/**
 * A {@link BatchPolicy} that forwards every call to the policy it wraps and measures, from the same
 * calls, where the task runs ({@link OperatingPoint}): so the task can say which constraint binds it
 * and which grid cell it resembles, although its batching policy (fixed caps) measures nothing.
 *
 * <p>It measures with the model's monitors: a {@link StreamMonitor} for arrivals, record size and
 * backlog; a {@link LinkMonitor} for acknowledgements (delivered rate, in-flight batches and bytes,
 * throughput at the bottleneck, heartbeats) and one for the egress relay's receipts (base round trip
 * and throughput without the destination's delays); the highest delivered rate over
 * {@link #PEAK_WINDOW} from a {@link WindowedMin}; sent bytes and records per batch as time-decayed
 * rates and means; the window's fullness as a time-weighted mean against the caps of the decision in
 * force (the last one the wrapped policy gave).
 *
 * <p>Thread-safe: the wrapped policy is called outside this monitor's lock (it states its own
 * thread-safety); the measurements are synchronized. Costs a few arithmetic operations per batch.
 */
public final class OperatingPointMonitor implements BatchPolicy {

    /**
     * The highest delivered rate is kept this long: a lower bound of the uplink that outlives a burst
     * by a minute, so a deployment at 10% load still remembers what its path carried when it was full.
     */
    public static final Duration PEAK_WINDOW = Duration.ofSeconds(60);
    private static final int PEAK_BUCKETS = 12;
    /** The delivered rate joins the peak at most this often: it is a rate decaying over seconds. */
    private static final long PEAK_SAMPLE_NANOS = 100_000_000L;

    private final BatchPolicy policy;
    private final long settleNanos;
    private final StreamMonitor stream;
    private final LinkMonitor acked;
    private final LinkMonitor received;
    private final DecayingRate sentWire;
    private final DecayingRatio recordsPerBatch;
    /** Negated delivered rates: the windowed minimum is the peak. */
    private final WindowedMin deliveredPeak;
    /** The window's fullness integrated over time: its rate per second is the time-weighted mean. */
    private final DecayingRate fullnessSeconds;
    private volatile BatchDecision inForce;
    private volatile int activePartitions;
    private long receipts;
    /**
     * The path's round trip as receipts or acknowledgements last measured it: their window forgets an idle
     * path, and the heartbeats left then reach only the first relay, often on the task's own host.
     */
    private double lastPathRttNanos = Double.NaN;
    private boolean acknowledged;
    private long firstAckNanos;
    private boolean peakSampled;
    private long lastPeakSampleNanos;
    private boolean fullnessStarted;
    private long fullnessSinceNanos;
    private double fullness;

    /** @param settings the time constants of the monitors ({@link EstimatorSettings#defaults()}, by default) */
    public OperatingPointMonitor(BatchPolicy policy, EstimatorSettings settings) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.settleNanos = settings.linkTimeConstant().toNanos();
        this.stream = new StreamMonitor(settings);
        this.acked = new LinkMonitor(settings);
        this.received = new LinkMonitor(settings);
        this.sentWire = new DecayingRate(settings.linkTimeConstant());
        this.recordsPerBatch = new DecayingRatio(settings.sampleTimeConstant(), Double.POSITIVE_INFINITY, 1);
        this.deliveredPeak = new WindowedMin(PEAK_WINDOW, PEAK_BUCKETS);
        this.fullnessSeconds = new DecayingRate(settings.linkTimeConstant());
    }

    public OperatingPointMonitor(BatchPolicy policy) {
        this(policy, EstimatorSettings.defaults());
    }

    /** The policy that decides; this monitor only watches it. */
    public BatchPolicy policy() {
        return policy;
    }

    @Override
    public void onRecordsArrived(int records, long bytes, long nowNanos) {
        policy.onRecordsArrived(records, bytes, nowNanos);
        synchronized (this) {
            stream.onRecordsArrived(records, bytes, nowNanos);
        }
    }

    @Override
    public void onActiveStreams(int partitions, long nowNanos) {
        policy.onActiveStreams(partitions, nowNanos);
        activePartitions = partitions;
    }

    @Override
    public void onBatchSent(int records, long uncompressedBytes, long wireBytes, long encodeNanos, long nowNanos) {
        policy.onBatchSent(records, uncompressedBytes, wireBytes, encodeNanos, nowNanos);
        synchronized (this) {
            integrateFullness(nowNanos);
            sentWire.add(Math.max(0, wireBytes), nowNanos);
            recordsPerBatch.add(records, 1, nowNanos);
            acked.onSent(wireBytes, nowNanos);
            received.onSent(wireBytes, nowNanos);
            fullness = fullnessNow();
        }
    }

    @Override
    public void onBatchAcked(int records, long wireBytes, long sentAtNanos, long ackedAtNanos,
                             long oldestRecordArrivalNanos) {
        policy.onBatchAcked(records, wireBytes, sentAtNanos, ackedAtNanos, oldestRecordArrivalNanos);
        synchronized (this) {
            integrateFullness(ackedAtNanos);
            acked.onAcked(wireBytes, sentAtNanos, ackedAtNanos);
            if (!acknowledged) {
                acknowledged = true;
                firstAckNanos = ackedAtNanos;
            }
            if (!peakSampled || ackedAtNanos - lastPeakSampleNanos >= PEAK_SAMPLE_NANOS) {
                samplePeak(ackedAtNanos);
            }
            fullness = fullnessNow();
        }
    }

    @Override
    public void onBatchReceived(int records, long wireBytes, long sentAtNanos, long receivedAtNanos) {
        policy.onBatchReceived(records, wireBytes, sentAtNanos, receivedAtNanos);
        synchronized (this) {
            receipts++;
            received.onAcked(wireBytes, sentAtNanos, receivedAtNanos);
        }
    }

    @Override
    public void onBatchFailed(int records, long wireBytes, long sentAtNanos, long nowNanos) {
        policy.onBatchFailed(records, wireBytes, sentAtNanos, nowNanos);
        synchronized (this) {
            integrateFullness(nowNanos);
            acked.onFailed(wireBytes, nowNanos);
            received.onFailed(wireBytes, nowNanos);
            fullness = fullnessNow();
        }
    }

    @Override
    public void onBacklog(long records, long bytes, long nowNanos) {
        policy.onBacklog(records, bytes, nowNanos);
        synchronized (this) {
            stream.onBacklog(records, bytes);
        }
    }

    @Override
    public void onRttSample(long rttNanos, long nowNanos) {
        policy.onRttSample(rttNanos, nowNanos);
        synchronized (this) {
            acked.onRttSample(rttNanos, nowNanos);
        }
    }

    @Override
    public BatchDecision decision(long nowNanos) {
        BatchDecision decision = policy.decision(nowNanos);
        inForce = decision;
        return decision;
    }

    /**
     * The operating point at {@code nowNanos}: the caps in force are those the policy last gave (asked
     * for now if it was never asked).
     */
    public synchronized OperatingPoint operatingPoint(long nowNanos) {
        integrateFullness(nowNanos);
        samplePeak(nowNanos);
        StreamEstimates arrivals = stream.estimates(nowNanos);
        LinkEstimates path = acked.estimates(nowNanos);
        LinkEstimates toEgress = receipts > 0 ? received.estimates(nowNanos) : null;
        double throughput = toEgress != null && toEgress.throughputKnown() ? toEgress.bytesPerSecond()
                : path.throughputKnown() ? path.bytesPerSecond() : Double.NaN;
        BatchDecision caps = inForce != null ? inForce : decision(nowNanos);
        double peak = -deliveredPeak.min(nowNanos);
        double pathRtt = pathRttNanos(path, toEgress);
        if (!Double.isNaN(pathRtt)) {
            lastPathRttNanos = pathRtt;
        }
        double baseRtt = !Double.isNaN(lastPathRttNanos) ? lastPathRttNanos : path.baseRttNanos();
        return new OperatingPoint(baseRtt, arrivals.recordsPerSecond(),
                arrivals.meanRecordBytes(), sentWire.perSecond(nowNanos), path.deliveredBytesPerSecond(),
                Double.isNaN(peak) ? 0 : Math.max(0, peak), throughput, recordsPerBatch.value(),
                activePartitions, path.inFlightBatches(), path.inFlightBytes(), caps.maxInFlightBatches(),
                caps.maxInFlightBytes(), fullnessSeconds.perSecond(nowNanos), arrivals.backlogRecords(),
                arrivals.backlogBytes(), caps.linger().toNanos(), caps.maxBytes());
    }

    /**
     * Receipts time the path to the egress relay (the WAN round trip plus a transmission); without
     * them, the end-to-end acknowledgements (plus the destination's write); NaN when neither was seen
     * within their window. The heartbeats come last (in {@link #operatingPoint}, and only while the
     * path was never measured), for they reach only the first relay, often on the task's own host: an
     * idle task matched the metro cell from its 0.1 ms hop to the ingress relay.
     */
    private static double pathRttNanos(LinkEstimates path, LinkEstimates toEgress) {
        if (toEgress != null && !Double.isNaN(toEgress.minAckLatencyNanos())) {
            return toEgress.minAckLatencyNanos();
        }
        return path.minAckLatencyNanos();
    }

    /**
     * The delivered rate joins the peak once a link time constant has passed since the first
     * acknowledgement: before that the decaying rate averages over too little time, and a first burst
     * of acknowledgements would read as a capacity the path never had.
     */
    private void samplePeak(long nowNanos) {
        if (acknowledged && nowNanos - firstAckNanos >= settleNanos) {
            peakSampled = true;
            lastPeakSampleNanos = nowNanos;
            deliveredPeak.add(-acked.estimates(nowNanos).deliveredBytesPerSecond(), nowNanos);
        }
    }

    /** Adds the fullness held since the last change, weighted by how long it was held. */
    private void integrateFullness(long nowNanos) {
        if (!fullnessStarted) {
            fullnessStarted = true;
            fullnessSinceNanos = nowNanos;
        }
        long held = Math.max(0, nowNanos - fullnessSinceNanos);
        fullnessSeconds.add(fullness * held / 1e9, nowNanos);
        fullnessSinceNanos = Math.max(fullnessSinceNanos, nowNanos);
    }

    /** In-flight batches or bytes over the window of the caps in force, the fuller of the two. */
    private double fullnessNow() {
        BatchDecision caps = inForce;
        if (caps == null) {
            return 0;
        }
        return Math.max((double) acked.inFlightBatches() / caps.maxInFlightBatches(),
                (double) acked.inFlightBytes() / caps.maxInFlightBytes());
    }
}
