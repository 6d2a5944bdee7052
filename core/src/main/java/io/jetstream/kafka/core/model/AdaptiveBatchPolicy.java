package io.jetstream.kafka.core.model;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The "Batch Oracle": picks the batch size and in-flight window that minimise the predicted mean
 * latency of a record while the sender keeps up with the arrival rate with headroom, from what its
 * monitors measure. See {@code docs/model.md} for the model and the procedure.
 *
 * <p>Decision procedure, at most every {@code recomputeInterval} (fifty times as often while more
 * than two batches wait at the sender):
 * <ol>
 *   <li>Until {@code warmup} of arrivals has been observed, the configured initial caps apply.</li>
 *   <li>Inputs: the measured rate plus the backlog beyond one batch over {@code backlogDrainTime}
 *       (so a backlog grows batches until it drains), record size, compression, encode cost, path
 *       throughput and RTT, with priors for what is not measured yet. The path throughput is never
 *       taken below what the path recently delivered.</li>
 *   <li>Search {@code b} over a geometric grid up to the caps (records, frame bytes, and the batch
 *       that fills within {@code maxLinger}); take the lowest predicted latency among sizes that
 *       keep up; if none, the lowest among sizes below saturation; if none, the highest capacity.</li>
 *   <li>If the drain rate asks for more than the path can carry, the drain is planned at the
 *       highest capacity less headroom instead, and the search repeated.</li>
 *   <li>Hysteresis: the caps change only if the sender would fall behind with the current ones and
 *       the candidate carries more, or {@code minDwell} has passed since the last change and the
 *       candidate cuts the predicted latency by at least {@code minGain}, or the candidate halves
 *       the predicted latency (after a backlog drained, large batches must not linger).</li>
 * </ol>
 *
 * <p>Invariants: {@code maxRecords <= maxBatchRecords}, {@code maxBytes <= maxBatchBytes},
 * {@code linger <= maxLinger}, {@code maxInFlightBatches <= maxInFlightBatches},
 * {@code maxInFlightBytes <= maxInFlightBytes} of the settings.
 *
 * <p>Thread-safe: every method is synchronized, so the task thread may report arrivals and ask for
 * decisions while a network thread reports acknowledgements. Calls are cheap (the search evaluates
 * about a hundred candidates, at most once per {@code recomputeInterval}).
 */
public final class AdaptiveBatchPolicy implements BatchPolicy {

    /** Grid step of the batch size search. */
    private static final double GRID_RATIO = 1.06;
    /** When falling behind, recompute this many times more often than {@code recomputeInterval}. */
    private static final int URGENT_RECOMPUTE_DIVISOR = 50;
    /** A candidate predicted this much faster (fraction of the latency in force) is adopted without dwell. */
    private static final double LARGE_GAIN_FRACTION = 0.5;
    /** Linger as a multiple of the expected fill time, so it only cuts batches when the rate drops. */
    private static final double LINGER_FILL_FACTOR = 1.5;
    /**
     * A kept size's linger is set anew when the partitions' rate moves it by more than this factor either
     * way: a task's partitions halved or doubled, not the noise of the rate estimate.
     */
    private static final double LINGER_REFRESH_RATIO = 1.5;
    /** Guard rail: no batch so small that its frame header takes more than this share of the path. */
    static final double MAX_OVERHEAD_SHARE = 0.05;

    private final AdaptiveBatchSettings settings;
    private final StreamMonitor stream;
    private final LinkMonitor link;
    private final AckTimeModel ackTime;
    private final LatencyModel model;
    private BatchDecision current;
    private long lastComputedNanos;
    private long lastChangeNanos;
    private long changes;
    /** Whether the last inputs had a measured path throughput (else the prior). */
    private boolean throughputMeasured;
    /**
     * The path as far as the egress relay, timed by receipts (sent to received): throughput and
     * round trip free of the destination's delays. Idle until the first receipt.
     */
    private final LinkMonitor carried;
    private long receipts;
    /** Highest delivered rate in the base-RTT window (negated: a windowed minimum). */
    private final WindowedMin deliveredPeak;
    private double peakDeliveredBytesPerSecond;
    /** Partitions records arrive on, each filling batches of its own ({@link #onActiveStreams}). */
    private int streams = 1;

    public AdaptiveBatchPolicy(AdaptiveBatchSettings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.stream = new StreamMonitor(settings.estimators(), settings.batchOverheadBytes());
        this.link = new LinkMonitor(settings.estimators());
        this.carried = new LinkMonitor(settings.estimators());
        this.ackTime = new AckTimeModel(settings.estimators());
        this.deliveredPeak = new WindowedMin(settings.estimators().minRttWindow(), 8);
        this.model = LatencyModel.from(settings);
    }

    @Override
    public synchronized void onRecordsArrived(int records, long bytes, long nowNanos) {
        stream.onRecordsArrived(records, bytes, nowNanos);
    }

    @Override
    public synchronized void onActiveStreams(int partitions, long nowNanos) {
        streams = Math.max(1, partitions);
    }

    @Override
    public synchronized void onBatchSent(int records, long uncompressedBytes, long wireBytes, long encodeNanos,
                                         long nowNanos) {
        stream.onBatchSent(records, uncompressedBytes, wireBytes, encodeNanos, nowNanos);
        link.onSent(wireBytes, nowNanos);
        carried.onSent(wireBytes, nowNanos);
    }

    @Override
    public synchronized void onBatchReceived(int records, long wireBytes, long sentAtNanos, long receivedAtNanos) {
        receipts++;
        carried.onAcked(wireBytes, sentAtNanos, receivedAtNanos);
    }

    @Override
    public synchronized void onBatchAcked(int records, long wireBytes, long sentAtNanos, long ackedAtNanos,
                                          long oldestRecordArrivalNanos) {
        link.onAcked(wireBytes, sentAtNanos, ackedAtNanos);
        ackTime.onAcked(wireBytes, sentAtNanos, ackedAtNanos, link.estimates(ackedAtNanos).baseRttNanos());
        stream.onBatchAcked(ackedAtNanos, oldestRecordArrivalNanos);
    }

    @Override
    public synchronized void onBatchFailed(int records, long wireBytes, long sentAtNanos, long nowNanos) {
        link.onFailed(wireBytes, nowNanos);
        carried.onFailed(wireBytes, nowNanos);
    }

    @Override
    public synchronized void onBacklog(long records, long bytes, long nowNanos) {
        stream.onBacklog(records, bytes);
    }

    @Override
    public synchronized void onRttSample(long rttNanos, long nowNanos) {
        // not for the receipts' monitor: heartbeats go to the first relay only, and a round trip
        // shorter than the path's would make every receipt look queued behind the previous one
        link.onRttSample(rttNanos, nowNanos);
    }

    @Override
    public synchronized BatchDecision decision(long nowNanos) {
        long sinceComputed = nowNanos - lastComputedNanos;
        long interval = settings.recomputeInterval().toNanos();
        boolean intervalElapsed = sinceComputed >= interval;
        // more than two batches wait: the sender is falling behind now, do not wait a whole interval
        boolean fallingBehind = current != null && stream.backlogRecords() > 2L * current.maxRecords()
                && sinceComputed >= interval / URGENT_RECOMPUTE_DIVISOR;
        boolean due = current == null || intervalElapsed || fallingBehind;
        if (due) {
            lastComputedNanos = nowNanos;
            BatchDecision next = decide(nowNanos);
            // a change is one of the batch size: the dwell is between sizes, and a linger set anew
            // for the partitions' rate is neither flapping nor a reason to hold the next size back
            if (current != null && next.maxRecords() != current.maxRecords()) {
                changes++;
                lastChangeNanos = nowNanos;
            } else if (current == null) {
                lastChangeNanos = nowNanos;
            }
            current = next;
        }
        return current;
    }

    private BatchDecision decide(long nowNanos) {
        StreamEstimates measured = stream.estimates(nowNanos);
        boolean warmingUp = measured.observedNanos() < settings.warmup().toNanos()
                || measured.recordsPerSecond() <= 0 || Double.isNaN(measured.meanRecordBytes());
        if (warmingUp) {
            return settings.initial();
        }
        ModelInputs inputs = inputs(measured, link.estimates(nowNanos), carriedEstimates(nowNanos), nowNanos);
        BatchSizeSearch.Result search = BatchSizeSearch.run(model, inputs, minBatchRecords(inputs),
                maxBatchRecords(inputs), GRID_RATIO);
        boolean drainingFasterThanPossible = inputs.effectiveRecordsPerSecond() > inputs.arrivalRecordsPerSecond()
                && !search.best().keepsUp();
        if (drainingFasterThanPossible) {
            // plan the drain at what the path can carry with headroom, not faster: asking for more
            // would only pick the largest batches, and their latency, without draining any sooner
            double carried = Math.max(inputs.arrivalRecordsPerSecond(),
                    search.maxCapacityRecordsPerSecond() * (1 - settings.headroom()));
            inputs = inputs.withEffectiveRate(Math.min(inputs.effectiveRecordsPerSecond(), carried));
            search = BatchSizeSearch.run(model, inputs, minBatchRecords(inputs), maxBatchRecords(inputs), GRID_RATIO);
        }
        LatencyPrediction best = search.best();
        // the initial caps carry no explanation, whatever their reason (the connector passes its
        // configured caps as FIXED): the first model decision replaces them without hysteresis
        boolean modelNotYetInForce = current == null || current.explanation().isEmpty();
        if (modelNotYetInForce) {
            return adopt(best, inputs, nowNanos, search.evaluated());
        }
        LatencyPrediction inForce = model.predict(inputs, current.maxRecords());
        boolean dwellElapsed = nowNanos - lastChangeNanos >= settings.minDwell().toNanos();
        boolean inForceFallsBehind = !inForce.keepsUp();
        boolean candidateCarriesMore = best.capacityRecordsPerSecond()
                > inForce.capacityRecordsPerSecond() * (1 + settings.minGain());
        boolean candidateClearlyFaster = best.totalNanos() < inForce.totalNanos() * (1 - settings.minGain());
        boolean differentSize = best.batchRecords() != inForce.batchRecords();
        boolean candidateFarFaster = best.keepsUp() && best.totalNanos() < inForce.totalNanos() * LARGE_GAIN_FRACTION;
        boolean mustGrow = inForceFallsBehind && candidateCarriesMore;
        boolean worthChanging = dwellElapsed && differentSize && (best.keepsUp() || inForceFallsBehind)
                && candidateClearlyFaster;
        boolean tooSlowToKeep = differentSize && candidateFarFaster;
        if (mustGrow || worthChanging || tooSlowToKeep) {
            return adopt(best, inputs, nowNanos, search.evaluated());
        }
        DecisionExplanation why = new DecisionExplanation(nowNanos, inputs, inForce, best, differentSize,
                search.evaluated(), minBatchRecords(inputs));
        // the size stays; its linger follows the rate each partition fills it at now: one set for a
        // faster partition rate (a task's partitions halved after a rebalance) closes batches early,
        // smaller than the size in force, and one set for a slower rate holds a trickle back
        long linger = lingerNanos(current.maxRecords(), inputs);
        long inForceLinger = Math.max(1, current.linger().toNanos());
        boolean lingerMoved = linger > inForceLinger * LINGER_REFRESH_RATIO
                || linger * LINGER_REFRESH_RATIO < inForceLinger;
        return new BatchDecision(current.maxRecords(), current.maxBytes(),
                lingerMoved ? Duration.ofNanos(linger) : current.linger(),
                current.maxInFlightBatches(), current.maxInFlightBytes(), current.reason(), Optional.of(why),
                Math.max(current.maxRecords(), settings.maxBatchRecords()),
                Math.max(current.maxBytes(), settings.maxBatchBytes()));
    }

    /**
     * The path throughput {@code C}: the busy-period estimate of the link monitor when it has one,
     * else the slope of the ack-time fit when the sizes sampled make it identifiable, else the
     * optimistic prior; never below what the path recently delivered. Never
     * {@code bytes / (ack - sent - R)} of single batches: a fixed delay {@code c} at the destination
     * would make small batches look slow (docs/experiments.md).
     */
    private ModelInputs inputs(StreamEstimates measured, LinkEstimates path, LinkEstimates toEgress, long nowNanos) {
        long openBatch = current == null ? 0 : (long) current.maxRecords() * streams;
        double rate = measured.recordsPerSecond();
        // records queued at the far end (it does not keep up with the batches one by one) are a
        // backlog as much as the sender's own: drain them with larger batches
        double farEndBacklog = ackTime.farEndQueueNanos(nowNanos) / 1e9 * rate;
        double excessBacklog = Math.max(0, measured.backlogRecords() + farEndBacklog - openBatch);
        double drainRate = excessBacklog / (settings.backlogDrainTime().toNanos() / 1e9);
        double fitted = 1e9 / ackTime.nanosPerByte();
        // batch sizes follow the queue (a backlog closes larger batches), which biases the slope
        // upwards: a fitted throughput no higher than what the path delivered is no evidence
        boolean fittedAboveDelivered = fitted > path.deliveredBytesPerSecond() * (1 + settings.minGain());
        fitted = fittedAboveDelivered ? fitted : Double.NaN;
        // receipts time the path without the destination: their busy periods measure it even when
        // the answers come in commit groups (which measure nothing)
        boolean carriedKnown = toEgress != null && toEgress.throughputKnown();
        double throughput = carriedKnown ? toEgress.bytesPerSecond()
                : path.throughputKnown() ? path.bytesPerSecond()
                : Double.isFinite(fitted) ? fitted : settings.priorLinkBytesPerSecond();
        throughput = Math.max(throughput, path.deliveredBytesPerSecond());
        throughputMeasured = carriedKnown || path.throughputKnown() || Double.isFinite(fitted);
        deliveredPeak.add(-path.deliveredBytesPerSecond(), nowNanos);
        peakDeliveredBytesPerSecond = Math.max(0, -deliveredPeak.min(nowNanos));
        return new ModelInputs(rate, rate + drainRate, measured.meanRecordBytes(),
                orElse(measured.compressionRatio(), settings.priorCompressionRatio()),
                orElse(measured.encodeFixedNanos(), 0), orElse(measured.encodeNanosPerByte(), 0),
                throughput,
                toEgress != null && !Double.isNaN(toEgress.baseRttNanos()) ? toEgress.baseRttNanos()
                        : orElse(path.baseRttNanos(), settings.priorRtt().toNanos()),
                orElse(path.ackLatencyNanos(), settings.priorRtt().toNanos()), measured.backlogRecords(),
                orElse(ackTime.fixedDelayNanos(throughput, nowNanos), 0), orElse(ackTime.maxDelayNanos(nowNanos), 0),
                Double.isFinite(fitted) ? fitted : Double.NaN,
                ackTime.farEndBatchNanos(throughputMeasured ? throughput : Double.NaN, nowNanos), streams);
    }

    /** The receipts' view of the path, or null before the first receipt. */
    private LinkEstimates carriedEstimates(long nowNanos) {
        return receipts == 0 ? null : carried.estimates(nowNanos);
    }

    private static double orElse(double measured, double prior) {
        return Double.isNaN(measured) ? prior : measured;
    }

    /**
     * Guard rail against collapse: no batch so small that its frame header takes more than
     * {@link #MAX_OVERHEAD_SHARE} of the path's capacity at the current (effective) rate,
     * {@code r / b * h / C_guard <= share}. {@code C_guard} is the measured throughput; while there
     * is only the prior (acks released in commit groups measure no capacity), the most the path is
     * known to carry: the highest rate it delivered in the base-RTT window, and at least the
     * payload now offered ({@code r rho s}; then the header is at most 5% of the bytes), so an
     * optimistic prior cannot talk the policy into tiny batches. Never above the largest batch
     * allowed at the current rate (record, frame and linger caps).
     */
    private int minBatchRecords(ModelInputs in) {
        double offeredPayload = in.effectiveRecordsPerSecond() * in.compressionRatio() * in.meanRecordBytes();
        double guardCapacity = throughputMeasured ? in.linkBytesPerSecond()
                : Math.max(offeredPayload, peakDeliveredBytesPerSecond);
        double min = Math.ceil(in.effectiveRecordsPerSecond() * settings.batchOverheadBytes() / guardCapacity
                / MAX_OVERHEAD_SHARE);
        return (int) Math.max(1, Math.min(maxBatchRecords(in), Double.isFinite(min) ? min : 1));
    }

    /** The largest batch allowed by the record cap, the frame cap and the latency (linger) cap. */
    private int maxBatchRecords(ModelInputs in) {
        double byFrame = settings.maxBatchBytes() / Math.max(1.0, in.meanRecordBytes());
        double byLinger = 1 + settings.maxLinger().toNanos() / 1e9 * in.streamRecordsPerSecond(
                in.effectiveRecordsPerSecond());
        return (int) Math.max(1, Math.min(settings.maxBatchRecords(), Math.min(byFrame, byLinger)));
    }

    private BatchDecision adopt(LatencyPrediction chosen, ModelInputs in, long nowNanos, int evaluated) {
        int records = chosen.batchRecords();
        long lingerNanos = lingerNanos(records, in);
        // records vary in size: allow twice the mean before the byte cap closes a batch
        long bytes = (long) Math.min(settings.maxBatchBytes(), Math.ceil(2 * records * in.meanRecordBytes()));
        DecisionReason reason = !LatencyModel.stable(chosen) ? DecisionReason.SATURATED
                : !chosen.keepsUp() ? DecisionReason.NO_HEADROOM
                : in.effectiveRecordsPerSecond() > in.arrivalRecordsPerSecond() * 1.05 ? DecisionReason.DRAIN_BACKLOG
                : DecisionReason.LATENCY_OPTIMAL;
        DecisionExplanation why = new DecisionExplanation(nowNanos, in, chosen, chosen, false, evaluated,
                minBatchRecords(in));
        int maxBytes = (int) Math.max(1, bytes);
        return new BatchDecision(records, maxBytes, Duration.ofNanos(lingerNanos), settings.maxInFlightBatches(),
                windowBytes(chosen), reason, Optional.of(why), Math.max(records, settings.maxBatchRecords()),
                Math.max(maxBytes, settings.maxBatchBytes()));
    }

    /** {@link #LINGER_FILL_FACTOR} times the time one partition's batch of {@code records} takes to fill, within the settings. */
    private long lingerNanos(int records, ModelInputs in) {
        double fillNanos = records / in.streamRecordsPerSecond(in.effectiveRecordsPerSecond()) * 1e9
                * LINGER_FILL_FACTOR;
        return (long) Math.min(settings.maxLinger().toNanos(), Math.max(settings.minLinger().toNanos(), fillNanos));
    }

    /**
     * The in-flight window, in wire bytes: the model's window of {@code N(b)} batches of {@code b}
     * records ({@link LatencyModel}: the pipe's bytes, {@code C} times the time a batch holds its
     * slot, with slack), within the memory cap. In bytes, not batches: the bytes in the pipe are what
     * the window is for, and a count of batches would turn every change of the batch size into a
     * stall (grown caps, with many small batches still in flight, admit nothing until most of them are
     * acknowledged) or a flood (shrunk caps, with a few large ones). An empty window admits any batch
     * ({@link BatchDecision#admits}), so a batch of records that arrived together never waits for room.
     */
    private long windowBytes(LatencyPrediction chosen) {
        double pipe = Math.ceil(chosen.window() * chosen.wireBytes());
        return (long) Math.max(1, Math.min(settings.maxInFlightBytes(), pipe));
    }

    /**
     * Times the batch size changed since creation; a measure of stability (a linger set anew for the
     * partitions' rate, the size kept, is not counted).
     */
    public synchronized long decisionChanges() {
        return changes;
    }

    public AdaptiveBatchSettings settings() {
        return settings;
    }
}
