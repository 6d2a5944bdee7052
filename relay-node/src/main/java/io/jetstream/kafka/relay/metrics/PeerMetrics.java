package io.jetstream.kafka.relay.metrics;

/**
 * Pre-resolved series of one peer (a connector task or another relay, by the id it announced).
 * Resolve once per connection with {@link RelayMetrics#peer(String)} and keep it in the handler.
 */
public final class PeerMetrics {

    private final String peer;
    private final Counter bytesIn;
    private final Counter bytesOut;
    private final Counter batchesIn;
    private final Counter batchesOut;
    private final DoubleGauge rttMillis;

    PeerMetrics(String peer, Counter bytesIn, Counter bytesOut, Counter batchesIn, Counter batchesOut,
                DoubleGauge rttMillis) {
        this.peer = peer;
        this.bytesIn = bytesIn;
        this.bytesOut = bytesOut;
        this.batchesIn = batchesIn;
        this.batchesOut = batchesOut;
        this.rttMillis = rttMillis;
    }

    public String peer() {
        return peer;
    }

    /** Bytes read from the peer, frame headers included. */
    public Counter bytesIn() {
        return bytesIn;
    }

    /** Bytes written to the peer, frame headers included. */
    public Counter bytesOut() {
        return bytesOut;
    }

    public Counter batchesIn() {
        return batchesIn;
    }

    public Counter batchesOut() {
        return batchesOut;
    }

    /** Last measured heartbeat round trip, in milliseconds. */
    public DoubleGauge rttMillis() {
        return rttMillis;
    }
}
