package io.jetstream.kafka.core.model;

/**
 * The measured (or, before measurement, prior) quantities the {@link LatencyModel} is evaluated
 * with. Exposed in every {@link DecisionExplanation} so a metric shows what the decision saw.
 *
 * @param arrivalRecordsPerSecond   measured arrival rate {@code r}
 * @param effectiveRecordsPerSecond {@code r} plus the backlog beyond one batch divided by the drain time
 * @param meanRecordBytes           mean uncompressed record size {@code s}
 * @param compressionRatio          wire payload bytes per uncompressed byte {@code rho}
 * @param encodeFixedNanos          encode cost per batch {@code e0}
 * @param encodeNanosPerByte        encode cost per uncompressed byte {@code e1}
 * @param linkBytesPerSecond        throughput {@code C} of the path to the destination
 * @param rttNanos                  base round-trip time {@code R} of that path
 * @param ackLatencyNanos           mean time from sending a batch to its acknowledgement, {@code A}
 *                                  (a window slot is held this long; at least {@code R})
 * @param backlogRecords            records waiting at the sender
 * @param fixedDelayNanos           {@code c}: the part of a batch's ack time beyond {@code R} that does not
 *                                  depend on its size (commit interval at the destination); a latency every
 *                                  record pays, shared by all batches in flight, not a loss of throughput
 * @param maxAckDelayNanos          the largest recent ack time beyond {@code R}: a window slot is held up to
 *                                  {@code R} plus this long, so the window is sized for it
 * @param fittedLinkBytesPerSecond  {@code C} from the slope of the ack-time fit; NaN when the sizes sampled
 *                                  did not vary enough to tell the slope from {@code c}
 * @param farEndBatchNanos          {@code k}: serial cost of each batch at the far end besides its bytes,
 *                                  learnt when the far end fell behind (0: none seen)
 * @param streams                   {@code P}: partitions records currently arrive on, each filling batches
 *                                  of its own, so a batch of {@code b} records fills at {@code r / P}
 *                                  (at least 1)
 */
public record ModelInputs(
        double arrivalRecordsPerSecond,
        double effectiveRecordsPerSecond,
        double meanRecordBytes,
        double compressionRatio,
        double encodeFixedNanos,
        double encodeNanosPerByte,
        double linkBytesPerSecond,
        double rttNanos,
        double ackLatencyNanos,
        long backlogRecords,
        double fixedDelayNanos,
        double maxAckDelayNanos,
        double fittedLinkBytesPerSecond,
        double farEndBatchNanos,
        int streams) {

    public ModelInputs {
        if (streams < 1) {
            throw new IllegalArgumentException("streams must be at least 1, was " + streams);
        }
    }

    /** Inputs without a fixed delay at the far end (acknowledged as soon as written). */
    public ModelInputs(double arrivalRecordsPerSecond, double effectiveRecordsPerSecond, double meanRecordBytes,
                       double compressionRatio, double encodeFixedNanos, double encodeNanosPerByte,
                       double linkBytesPerSecond, double rttNanos, double ackLatencyNanos, long backlogRecords) {
        this(arrivalRecordsPerSecond, effectiveRecordsPerSecond, meanRecordBytes, compressionRatio, encodeFixedNanos,
                encodeNanosPerByte, linkBytesPerSecond, rttNanos, ackLatencyNanos, backlogRecords, 0, 0, Double.NaN, 0, 1);
    }

    /** The rate at which one stream (partition) fills its batch, records per second. */
    public double streamRecordsPerSecond(double recordsPerSecond) {
        return recordsPerSecond / streams;
    }

    /** The same inputs with another effective rate (a drain planned at what the path can carry). */
    public ModelInputs withEffectiveRate(double effective) {
        return new ModelInputs(arrivalRecordsPerSecond, effective, meanRecordBytes, compressionRatio, encodeFixedNanos,
                encodeNanosPerByte, linkBytesPerSecond, rttNanos, ackLatencyNanos, backlogRecords, fixedDelayNanos,
                maxAckDelayNanos, fittedLinkBytesPerSecond, farEndBatchNanos, streams);
    }
}
