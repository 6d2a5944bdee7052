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
        long heartbeatIntervalNanos) {

    /** The brief's WAN: 4.7 MB/s uplink, 50 ms round trip, 1 KiB records compressing to 57%. */
    public static PathParams wan() {
        return new PathParams(4.7e6, SimLoop.millis(25), 0, 0, 1024, 0.57, 64, 150_000, 3.0, 0.5, 0,
                SimLoop.seconds(1));
    }

    /** A metro path: 12.5 MB/s (100 Mbit/s), 2 ms round trip, 256-byte records compressing to 57%. */
    public static PathParams metro() {
        return new PathParams(12.5e6, SimLoop.millis(1), 0, 0, 256, 0.57, 64, 150_000, 3.0, 0.5, 0,
                SimLoop.seconds(1));
    }

    public PathParams withNoise(long jitter, double service, double outlierChance) {
        return new PathParams(linkBytesPerSecond, oneWayDelayNanos, jitter, service, recordBytes, compressionRatio,
                overheadBytes, encodeFixedNanos, encodeNanosPerByte, decodeFactor, outlierChance,
                heartbeatIntervalNanos);
    }

    public long wireBytes(int records) {
        return overheadBytes + (long) Math.ceil(compressionRatio * recordBytes * (long) records);
    }

    public long encodeNanos(int records) {
        return encodeFixedNanos + (long) (encodeNanosPerByte * recordBytes * (long) records);
    }
}
