package io.jetstream.kafka.bench.wan;

import java.util.List;

/**
 * The {@code tc tbf} parameters that cap one host's WAN uplink at a rate. The bucket lets a burst of about 32 KiB
 * leave back to back (as a real uplink's line rate would, and enough for tbf to keep up at these rates), and its queue
 * holds about 50 ms of traffic at the rate: a sender that outruns the cap sees queueing delay first, then tail drops,
 * like at a real bottleneck, while a bufferbloat of seconds (which would distort latency figures) cannot build up.
 *
 * <ul>
 *   <li>burst = max(2 full frames, min(32 KiB, 100 ms at the rate), 1 ms at the rate): 32 KiB from 2.7 to 262 Mbit/s,
 *       less on slow links (so the burst stays a small part of a second), more on fast ones (tbf needs a bucket of at
 *       least one timer tick at the rate);</li>
 *   <li>limit = max(50 ms at the rate, burst + 2 full frames): 250,000 bytes at 40 Mbit/s.</li>
 * </ul>
 *
 * @param rateBitsPerSecond the cap, counted on whole Ethernet frames
 * @param burstBytes        the bucket size
 * @param limitBytes        the queue size in front of the bucket
 */
record TokenBucket(long rateBitsPerSecond, long burstBytes, long limitBytes) {

    static final long FULL_FRAME_BYTES = 1514;
    static final long MAX_DEFAULT_BURST_BYTES = 32 * 1024;

    static TokenBucket forRate(long rateBitsPerSecond) {
        WanSpec.requireUplinkRate(rateBitsPerSecond);
        long bytesPerSecond = rateBitsPerSecond / 8;
        long burst = Math.max(2 * FULL_FRAME_BYTES,
                Math.max(Math.min(MAX_DEFAULT_BURST_BYTES, bytesPerSecond / 10), bytesPerSecond / 1000));
        long limit = Math.max(bytesPerSecond / 20, burst + 2 * FULL_FRAME_BYTES);
        return new TokenBucket(rateBitsPerSecond, burst, limit);
    }

    /** The words after {@code tc qdisc add|change|replace dev IF root}: {@code tbf rate ... burst ... limit ...}. */
    List<String> tcArguments() {
        return List.of("tbf", "rate", rateBitsPerSecond + "bit", "burst", Long.toString(burstBytes),
                "limit", Long.toString(limitBytes));
    }
}
