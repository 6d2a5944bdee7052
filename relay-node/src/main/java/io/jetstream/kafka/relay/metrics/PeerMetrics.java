package io.jetstream.kafka.relay.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.GaugeDataPoint;

/**
 * Pre-resolved series of one peer (a connector task or another relay, by the id it announced).
 * Resolve once per connection with {@link RelayMetrics#peer(String)}, keep it in the handler, and
 * give it back with {@link RelayMetrics#release} when the connection closes. Each is a lease: the
 * connections of one peer hold distinct instances over the same data points.
 */
public final class PeerMetrics {

    private final String peer;
    private final CounterDataPoint bytesIn;
    private final CounterDataPoint bytesOut;
    private final CounterDataPoint batchesIn;
    private final CounterDataPoint batchesOut;
    private final GaugeDataPoint rttSeconds;

    PeerMetrics(String peer, CounterDataPoint bytesIn, CounterDataPoint bytesOut, CounterDataPoint batchesIn,
                CounterDataPoint batchesOut, GaugeDataPoint rttSeconds) {
        this.peer = peer;
        this.bytesIn = bytesIn;
        this.bytesOut = bytesOut;
        this.batchesIn = batchesIn;
        this.batchesOut = batchesOut;
        this.rttSeconds = rttSeconds;
    }

    /** Another lease on the same data points. */
    PeerMetrics lease() {
        return new PeerMetrics(peer, bytesIn, bytesOut, batchesIn, batchesOut, rttSeconds);
    }

    /** The {@code peer} label: the peer's id, or {@code (other)} for a peer beyond {@code metrics.peers.max}. */
    public String peer() {
        return peer;
    }

    /** Bytes read from the peer, frame headers included. */
    public CounterDataPoint bytesIn() {
        return bytesIn;
    }

    /** Bytes written to the peer, frame headers included. */
    public CounterDataPoint bytesOut() {
        return bytesOut;
    }

    public CounterDataPoint batchesIn() {
        return batchesIn;
    }

    public CounterDataPoint batchesOut() {
        return batchesOut;
    }

    /** Last measured heartbeat round trip, in seconds. */
    public GaugeDataPoint rttSeconds() {
        return rttSeconds;
    }
}
