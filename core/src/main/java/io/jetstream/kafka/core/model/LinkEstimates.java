package io.jetstream.kafka.core.model;

/**
 * What {@link LinkMonitor} currently believes about one link (a route, or the sender's whole path
 * to its relays). Unknown values are {@link Double#NaN}.
 *
 * @param bytesPerSecond      sustained wire throughput, from acknowledged batches; NaN until
 *                            {@code warmupSamples} samples were taken
 * @param throughputSamples   samples behind {@code bytesPerSecond}
 * @param deliveredBytesPerSecond wire bytes acknowledged per second recently (a lower bound of
 *                            capacity, and the route's current load)
 * @param baseRttNanos        base round-trip time: the minimum over a window of heartbeat RTTs and
 *                            of ack latencies less transmission time
 * @param smoothedRttNanos    time-decayed mean of heartbeat RTT samples
 * @param ackLatencyNanos     time-decayed mean of send-to-ack times (includes queueing)
 * @param minAckLatencyNanos  smallest send-to-ack time in the RTT window (no queueing)
 * @param lastAckLatencyNanos send-to-ack time of the latest acknowledgement (the freshest sign of queueing)
 * @param inFlightBytes       wire bytes sent and neither acknowledged nor failed
 * @param inFlightBatches     batches sent and neither acknowledged nor failed
 * @param bytesSent           wire bytes sent in total
 * @param bytesAcked          wire bytes acknowledged in total
 * @param failures            negative acknowledgements and timeouts in total
 * @param consecutiveFailures failures since the last acknowledgement
 * @param lastProgressNanos   last ack, or the time the link last went from idle to busy
 */
public record LinkEstimates(
        double bytesPerSecond,
        long throughputSamples,
        double deliveredBytesPerSecond,
        double baseRttNanos,
        double smoothedRttNanos,
        double ackLatencyNanos,
        double minAckLatencyNanos,
        double lastAckLatencyNanos,
        long inFlightBytes,
        int inFlightBatches,
        long bytesSent,
        long bytesAcked,
        long failures,
        int consecutiveFailures,
        long lastProgressNanos) {

    public boolean throughputKnown() {
        return !Double.isNaN(bytesPerSecond);
    }
}
