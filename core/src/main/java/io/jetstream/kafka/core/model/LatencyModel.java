package io.jetstream.kafka.core.model;

/**
 * Predicts a record's mean latency and the sender's capacity for a batch size {@code b}, from
 * measured {@link ModelInputs}. Pure and stateless; the formulas are the reconstructed model of
 * {@code docs/model.md} (section "Latency model"), not the paper's own equations.
 *
 * <pre>
 *   wire(b)    = h + rho * s * b                          bytes of one batch on the wire
 *   W_batch(b) = (b - 1) P / (2 r)                        mean wait for the batch to fill (P partitions)
 *   e(b)       = e0 + e1 * s * b,   d(b) = delta * e(b)   encode, decode
 *   T(b)       = R / 2 + wire(b) / C                      one-way transfer
 *   c, c_max                                              fixed delay at the far end (commit), mean and recent max
 *   P(b)       = max(R + c_max, A) + wire/C               time a batch holds a window slot (A: ack latency)
 *   N(b)       = ceil((P / (wire/C) + 1) * (1 + eps) * 1.5)   window that fills the pipe, capped by memory
 *   C_eff(b)   = min(C, N * wire / P)                     what that window can carry
 *   u_link     = r * wire(b) / b / C_eff,  u_enc = r * e(b) / b / threads,  u_far = r * k / b
 *   Q(b)       = sum over link, encoder, far end of  service * u / (1 - u) * (1/b + cs2) / 2   (Kingman)
 *   L(b)       = W_batch + e + Q + T + d + c              c: the same for every b, shared by the window
 *   keeps up  &lt;=&gt;  u_link, u_enc, u_far &lt;= 1 - eps  and one batch fits the memory budget
 * </pre>
 *
 * The Kingman term uses {@code 1/b} as the squared coefficient of variation of batch inter-arrival
 * times (Poisson records grouped by {@code b}) and {@code cs2} for service times.
 */
public final class LatencyModel {

    private static final double MIN_RATE = 1e-6;
    /** The window covers 1.5 times the measured pipe, for ack latencies above their mean. */
    private static final double WINDOW_SLACK = 1.5;

    private final int batchOverheadBytes;
    private final double decodeCostFactor;
    private final int encoderThreads;
    private final double headroom;
    private final double serviceVariability;
    private final long maxInFlightBytes;
    private final int maxInFlightBatches;

    public LatencyModel(int batchOverheadBytes, double decodeCostFactor, int encoderThreads, double headroom,
                        double serviceVariability, long maxInFlightBytes, int maxInFlightBatches) {
        this.batchOverheadBytes = batchOverheadBytes;
        this.decodeCostFactor = decodeCostFactor;
        this.encoderThreads = encoderThreads;
        this.headroom = headroom;
        this.serviceVariability = serviceVariability;
        this.maxInFlightBytes = maxInFlightBytes;
        this.maxInFlightBatches = maxInFlightBatches;
    }

    public static LatencyModel from(AdaptiveBatchSettings settings) {
        return new LatencyModel(settings.batchOverheadBytes(), settings.decodeCostFactor(),
                settings.encoderThreads(), settings.headroom(), settings.serviceVariability(),
                settings.maxInFlightBytes(), settings.maxInFlightBatches());
    }

    public LatencyPrediction predict(ModelInputs in, int batchRecords) {
        int b = Math.max(1, batchRecords);
        double rate = Math.max(in.effectiveRecordsPerSecond(), MIN_RATE);
        double rawBytes = in.meanRecordBytes() * b;
        double wire = batchOverheadBytes + in.compressionRatio() * rawBytes;
        double rtt = in.rttNanos();
        // each partition fills batches of its own: a batch of b records fills at r / P
        double batching = (b - 1) / (2 * in.streamRecordsPerSecond(rate)) * 1e9;
        double encode = in.encodeFixedNanos() + in.encodeNanosPerByte() * rawBytes;
        double decode = decodeCostFactor * encode;
        double transmission = wire / in.linkBytesPerSecond() * 1e9;

        long windowByMemory = Math.min(maxInFlightBatches, (long) Math.floor(maxInFlightBytes / wire));
        boolean fitsInMemory = windowByMemory >= 1;
        // a window slot is held from send to ack, up to R plus the longest recent wait for a commit:
        // the fixed delay overlaps between the batches in flight, the window must cover it
        double fixedDelay = finiteOrZero(in.fixedDelayNanos());
        double holdBeyondRtt = Math.max(fixedDelay, finiteOrZero(in.maxAckDelayNanos()));
        double slotNanos = Math.max(rtt + holdBeyondRtt, in.ackLatencyNanos()) + transmission;
        double pipeBatches = slotNanos / transmission + 1;
        double wanted = Math.ceil(pipeBatches * (1 + headroom) * WINDOW_SLACK);
        int window = (int) Math.max(1, Math.min(Math.max(1, windowByMemory), wanted));
        double usableBytesPerSecond = Math.min(in.linkBytesPerSecond(), window * wire * 1e9 / slotNanos);

        double linkUtilisation = rate * wire / b / usableBytesPerSecond;
        double encoderUtilisation = rate * encode / b / 1e9 / encoderThreads;
        double farEnd = finiteOrZero(in.farEndBatchNanos());
        double farEndUtilisation = rate * farEnd / b / 1e9;
        boolean linkKeepsUp = linkUtilisation <= 1 - headroom;
        boolean encoderKeepsUp = encoderUtilisation <= 1 - headroom;
        boolean farEndKeepsUp = farEndUtilisation <= 1 - headroom;
        boolean keepsUp = fitsInMemory && linkKeepsUp && encoderKeepsUp && farEndKeepsUp;

        double variability = (1.0 / b + serviceVariability) / 2;
        double queueing = waiting(wire / usableBytesPerSecond * 1e9, linkUtilisation, variability)
                + waiting(encode / encoderThreads, encoderUtilisation, variability)
                + (farEnd > 0 ? waiting(farEnd, farEndUtilisation, variability) : 0);
        double capacity = fitsInMemory
                ? Math.min(Math.min(usableBytesPerSecond * b / wire,
                        encode > 0 ? encoderThreads * 1e9 * b / encode : Double.MAX_VALUE),
                        farEnd > 0 ? 1e9 * b / farEnd : Double.MAX_VALUE)
                : 0;
        return new LatencyPrediction(b, wire, window, batching, encode, queueing, rtt / 2, transmission, decode,
                linkUtilisation, encoderUtilisation, capacity, keepsUp, fixedDelay, farEndUtilisation);
    }

    private static double finiteOrZero(double v) {
        return Double.isFinite(v) && v > 0 ? v : 0;
    }

    /** Kingman's G/G/1 waiting time; infinite at or above saturation. */
    private static double waiting(double serviceNanos, double utilisation, double variability) {
        if (utilisation >= 1) {
            return Double.POSITIVE_INFINITY;
        }
        return serviceNanos * utilisation / (1 - utilisation) * variability;
    }

    /** Whether the prediction is below saturation (it may still lack the headroom). */
    static boolean stable(LatencyPrediction p) {
        return p.linkUtilisation() < 1 && p.encoderUtilisation() < 1 && p.farEndUtilisation() < 1
                && p.capacityRecordsPerSecond() > 0;
    }
}
