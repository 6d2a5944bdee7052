package io.jetstream.kafka.source.sender;

import io.jetstream.kafka.core.model.BatchPolicy;
import java.time.Duration;
import java.util.List;

/**
 * Hands the relays' heartbeat round trips ({@link Relay#rttNanos()}) to the batching policy, at most
 * once per {@link #INTERVAL}: the operating point that watches it times the path with them (a base
 * round trip before any batch is acknowledged, and the jitter that tells a queue from noise). Not
 * thread-safe: runs in the sender's tick, under its lock.
 */
final class RttSampler {

    /** How often the relays' round trips are handed to the batching policy. */
    static final Duration INTERVAL = Duration.ofSeconds(1);

    private final List<Relay> relays;
    private final BatchPolicy policy;
    private final long intervalNanos = INTERVAL.toNanos();
    private long lastSampleNanos;

    RttSampler(List<Relay> relays, BatchPolicy policy) {
        this.relays = relays;
        this.policy = policy;
    }

    /** Samples every relay that knows its round trip, when the last sample is older than the interval. */
    void sample(long now) {
        if (now - lastSampleNanos <= intervalNanos) {
            return;
        }
        lastSampleNanos = now;
        for (int i = 0, n = relays.size(); i < n; i++) {
            long rtt = relays.get(i).rttNanos();
            if (rtt > 0) {
                policy.onRttSample(rtt, now);
            }
        }
    }
}
