package io.jetstream.kafka.core.environment;

/**
 * Where a source-site task runs now, as {@link OperatingPointMonitor} measured it from the sender's
 * events: what arrives, what leaves, what the path delivered at best, how full the in-flight window
 * is, what waits. The inputs of {@link Binding#of} and of the grid cell it resembles
 * ({@link #coordinates}). Figures not measured yet are NaN.
 *
 * @param baseRttNanos                 the path's base round trip: the smallest time from a batch's
 *                                     sending to the egress relay's receipt, else to its end-to-end
 *                                     acknowledgement, else the relays' heartbeat round trip
 * @param arrivalRecordsPerSecond      records handed to the sender per second
 * @param meanRecordBytes              mean uncompressed record size (key, value, headers)
 * @param sentWireBytesPerSecond       wire bytes of batches sent per second
 * @param deliveredWireBytesPerSecond  wire bytes acknowledged per second
 * @param peakDeliveredBytesPerSecond  the highest acknowledged rate in the recent window
 *                                     ({@link OperatingPointMonitor#PEAK_WINDOW}): a lower bound of the
 *                                     path's capacity
 * @param pathThroughputBytesPerSecond the path's throughput measured at its bottleneck while batches
 *                                     queued there (receipts, else acknowledgements); NaN while nothing
 *                                     queued recently
 * @param recordsPerBatch              mean records per sent batch, recently
 * @param activePartitions             partitions records arrived on recently
 * @param inFlightBatches              batches sent and not answered, now
 * @param inFlightBytes                their wire bytes
 * @param windowBatches                the in-flight window in batches of the caps in force
 * @param windowBytes                  the in-flight window in wire bytes of the caps in force
 * @param windowFullness               how full the window was, by batches or bytes (the fuller),
 *                                     averaged over time recently: 0 to 1 (above 1 while the caps shrank)
 * @param backlogRecords               records waiting at the sender, in open batches or for the window
 * @param backlogBytes                 their uncompressed bytes
 * @param lingerNanos                  the linger of the caps in force
 * @param maxBatchBytes                the batch byte cap in force
 */
public record OperatingPoint(
        double baseRttNanos,
        double arrivalRecordsPerSecond,
        double meanRecordBytes,
        double sentWireBytesPerSecond,
        double deliveredWireBytesPerSecond,
        double peakDeliveredBytesPerSecond,
        double pathThroughputBytesPerSecond,
        double recordsPerBatch,
        int activePartitions,
        int inFlightBatches,
        long inFlightBytes,
        int windowBatches,
        long windowBytes,
        double windowFullness,
        long backlogRecords,
        long backlogBytes,
        long lingerNanos,
        int maxBatchBytes) {

    /** Uncompressed record bytes handed to the sender per second. */
    public double arrivalBytesPerSecond() {
        return arrivalRecordsPerSecond * meanRecordBytes;
    }

    /** Half the base round trip, in milliseconds. */
    public double oneWayDelayMs() {
        return baseRttNanos / 2e6;
    }

    /**
     * What the path is known to carry: its throughput measured at the bottleneck, never below the
     * highest rate it delivered; the latter alone while nothing queued (then a lower bound).
     */
    public double pathCapacityBytesPerSecond() {
        double peak = Double.isNaN(peakDeliveredBytesPerSecond) ? 0 : peakDeliveredBytesPerSecond;
        return Double.isNaN(pathThroughputBytesPerSecond) ? peak : Math.max(pathThroughputBytesPerSecond, peak);
    }

    /** Whether {@link #pathCapacityBytesPerSecond} was measured at the bottleneck, not only a rate seen delivered. */
    public boolean pathMeasuredAtBottleneck() {
        return !Double.isNaN(pathThroughputBytesPerSecond);
    }

    /** The sending rate over {@link #pathCapacityBytesPerSecond}; NaN before anything was delivered. */
    public double linkUtilisation() {
        double capacity = pathCapacityBytesPerSecond();
        return capacity > 0 ? sentWireBytesPerSecond / capacity : Double.NaN;
    }

    /**
     * The uncompressed bytes the open batches hold without any queueing: a linger's worth of arrivals,
     * at most a full batch per active partition. A backlog well above it waits for more than its batch.
     */
    public double openBatchBytes() {
        double byLinger = arrivalBytesPerSecond() * lingerNanos / 1e9;
        double byCaps = (double) Math.max(1, activePartitions) * maxBatchBytes;
        return Double.isNaN(byLinger) ? byCaps : Math.min(byLinger, byCaps);
    }

    /**
     * The grid coordinates of this point: the path's capacity as the uplink (only a lower bound
     * unless {@code linkFull}), half the base round trip, the mean record, {@code partitions}.
     *
     * @param linkFull   the link was seen full ({@link Binding} found it binding), so the rate it
     *                   carries is its capacity, not only a lower bound of it
     * @param partitions the task's assigned partitions (or the connector's, when known); the active
     *                   ones when 0 is given
     */
    public GridCell.Coordinates coordinates(boolean linkFull, int partitions) {
        double capacity = pathCapacityBytesPerSecond();
        return new GridCell.Coordinates(capacity > 0 ? capacity * 8 : Double.NaN, !linkFull, oneWayDelayMs(),
                meanRecordBytes, partitions > 0 ? partitions : activePartitions > 0 ? activePartitions : Double.NaN);
    }
}
