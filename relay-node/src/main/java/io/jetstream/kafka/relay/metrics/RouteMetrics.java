package io.jetstream.kafka.relay.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;

/** Pre-resolved series of one route of one destination; resolve once with {@link RelayMetrics#route}. */
public final class RouteMetrics {

    private final String destination;
    private final String route;
    private final CounterDataPoint bytesIn;
    private final CounterDataPoint bytesOut;
    private final CounterDataPoint batchesIn;
    private final CounterDataPoint batchesOut;
    private final DistributionDataPoint ackLatencySeconds;

    RouteMetrics(String destination, String route, CounterDataPoint bytesIn, CounterDataPoint bytesOut,
                 CounterDataPoint batchesIn, CounterDataPoint batchesOut, DistributionDataPoint ackLatencySeconds) {
        this.destination = destination;
        this.route = route;
        this.bytesIn = bytesIn;
        this.bytesOut = bytesOut;
        this.batchesIn = batchesIn;
        this.batchesOut = batchesOut;
        this.ackLatencySeconds = ackLatencySeconds;
    }

    public String destination() {
        return destination;
    }

    public String route() {
        return route;
    }

    /** Bytes of batches that arrived at this relay travelling on the route. */
    public CounterDataPoint bytesIn() {
        return bytesIn;
    }

    /** Bytes of batches this relay sent onto the route. */
    public CounterDataPoint bytesOut() {
        return bytesOut;
    }

    public CounterDataPoint batchesIn() {
        return batchesIn;
    }

    public CounterDataPoint batchesOut() {
        return batchesOut;
    }

    /** Forwarded onto the route to acknowledged (OK), in seconds: {@code route_ack_latency_seconds}. */
    public DistributionDataPoint ackLatencySeconds() {
        return ackLatencySeconds;
    }
}
