package io.jetstream.kafka.relay.metrics;

/** Pre-resolved series of one route of one destination; resolve once with {@link RelayMetrics#route}. */
public final class RouteMetrics {

    private final String destination;
    private final String route;
    private final Counter bytesIn;
    private final Counter bytesOut;
    private final Counter batchesIn;
    private final Counter batchesOut;

    RouteMetrics(String destination, String route, Counter bytesIn, Counter bytesOut, Counter batchesIn,
                 Counter batchesOut) {
        this.destination = destination;
        this.route = route;
        this.bytesIn = bytesIn;
        this.bytesOut = bytesOut;
        this.batchesIn = batchesIn;
        this.batchesOut = batchesOut;
    }

    public String destination() {
        return destination;
    }

    public String route() {
        return route;
    }

    /** Bytes of batches that arrived at this relay travelling on the route. */
    public Counter bytesIn() {
        return bytesIn;
    }

    /** Bytes of batches this relay sent onto the route. */
    public Counter bytesOut() {
        return bytesOut;
    }

    public Counter batchesIn() {
        return batchesIn;
    }

    public Counter batchesOut() {
        return batchesOut;
    }
}
