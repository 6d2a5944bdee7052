package io.jetstream.kafka.core.model.sim;

/**
 * A simulated sender, path and destination.
 *
 * @param linkBytesPerSecond      bottleneck capacity of the path (wire bytes)
 * @param oneWayDelayNanos        propagation delay each way
 * @param jitterNanos             extra one-way delay, uniform in [0, jitter), re-drawn every 100 ms
 * @param serviceNoise            transmission times scaled by a factor uniform in [1 - noise, 1 + noise]
 * @param recordBytes             uncompressed size of every record
 * @param compressionRatio        wire payload bytes per uncompressed byte
 * @param overheadBytes           wire bytes added per batch
 * @param encodeFixedNanos        encode cost per batch
 * @param encodeNanosPerByte      encode cost per uncompressed byte
 * @param decodeFactor            decode cost at the destination as a fraction of the encode cost
 * @param encodeOutlierChance     probability that one encode takes 20 times longer (GC pause)
 * @param heartbeatIntervalNanos  heartbeat RTT samples to the policy (0: none)
 * @param commitPeriodNanos       the destination acknowledges (and makes visible) decoded batches only at
 *                                commit instants, multiples of this period, as Connect's exactly-once
 *                                transactions or at-least-once offset flushes do (0: ack at once)
 * @param destinationBatchNanos   serial cost of every batch at the destination besides decoding (poll,
 *                                hand-over to the producer, ack sequencing): it occupies the destination
 */
public record PathParams(
        double linkBytesPerSecond,
        long oneWayDelayNanos,
        long jitterNanos,
        double serviceNoise,
        int recordBytes,
        double compressionRatio,
        int overheadBytes,
        long encodeFixedNanos,
        double encodeNanosPerByte,
        double decodeFactor,
        double encodeOutlierChance,
        long heartbeatIntervalNanos,
        long commitPeriodNanos,
        long destinationBatchNanos) {

    /** The brief's WAN: 4.7 MB/s uplink, 50 ms round trip, 1 KiB records compressing to 57%. */
    public static PathParams wan() {
        return new PathParams(4.7e6, SimLoop.millis(25), 0, 0, 1024, 0.57, 64, 150_000, 3.0, 0.5, 0,
                SimLoop.seconds(1), 0, 0);
    }

    /** A metro path: 12.5 MB/s (100 Mbit/s), 2 ms round trip, 256-byte records compressing to 57%. */
    public static PathParams metro() {
        return new PathParams(12.5e6, SimLoop.millis(1), 0, 0, 256, 0.57, 64, 150_000, 3.0, 0.5, 0,
                SimLoop.seconds(1), 0, 0);
    }

    /**
     * The emulated WAN of the end-to-end demo: 1.5 MB/s rate cap, 25 ms one way, 1 KiB records
     * compressing to 57%, a 128-byte frame header per batch.
     */
    public static PathParams emulatedWan() {
        return new PathParams(1.5e6, SimLoop.millis(25), 0, 0, 1024, 0.57, 128, 150_000, 3.0, 0.5, 0,
                SimLoop.seconds(1), 0, 0);
    }

    public PathParams withNoise(long jitter, double service, double outlierChance) {
        return new PathParams(linkBytesPerSecond, oneWayDelayNanos, jitter, service, recordBytes, compressionRatio,
                overheadBytes, encodeFixedNanos, encodeNanosPerByte, decodeFactor, outlierChance,
                heartbeatIntervalNanos, commitPeriodNanos, destinationBatchNanos);
    }

    /** The same path, with a destination that acknowledges only at commits every {@code period}. */
    public PathParams withCommitPeriod(long periodNanos) {
        return new PathParams(linkBytesPerSecond, oneWayDelayNanos, jitterNanos, serviceNoise, recordBytes,
                compressionRatio, overheadBytes, encodeFixedNanos, encodeNanosPerByte, decodeFactor,
                encodeOutlierChance, heartbeatIntervalNanos, periodNanos, destinationBatchNanos);
    }

    /** The same path with another bottleneck capacity. */
    public PathParams withLinkBytesPerSecond(double capacity) {
        return new PathParams(capacity, oneWayDelayNanos, jitterNanos, serviceNoise, recordBytes,
                compressionRatio, overheadBytes, encodeFixedNanos, encodeNanosPerByte, decodeFactor,
                encodeOutlierChance, heartbeatIntervalNanos, commitPeriodNanos, destinationBatchNanos);
    }

    /** The same path, with a serial cost of {@code nanos} per batch at the destination. */
    public PathParams withDestinationBatchCost(long nanos) {
        return new PathParams(linkBytesPerSecond, oneWayDelayNanos, jitterNanos, serviceNoise, recordBytes,
                compressionRatio, overheadBytes, encodeFixedNanos, encodeNanosPerByte, decodeFactor,
                encodeOutlierChance, heartbeatIntervalNanos, commitPeriodNanos, nanos);
    }

    /** When a batch decoded at {@code decodedNanos} is committed (acknowledged and visible). */
    public long committedAt(long decodedNanos) {
        if (commitPeriodNanos <= 0) {
            return decodedNanos;
        }
        return Math.floorDiv(decodedNanos + commitPeriodNanos - 1, commitPeriodNanos) * commitPeriodNanos;
    }

    public long wireBytes(int records) {
        return overheadBytes + (long) Math.ceil(compressionRatio * recordBytes * (long) records);
    }

    public long encodeNanos(int records) {
        return encodeFixedNanos + (long) (encodeNanosPerByte * recordBytes * (long) records);
    }
}
