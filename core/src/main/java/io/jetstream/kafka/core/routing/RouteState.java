package io.jetstream.kafka.core.routing;

/** Health of a route as the scheduler sees it. */
public enum RouteState {
    /** Carries traffic by capacity and price. */
    UP,
    /**
     * Recent negative acknowledgements or timeouts, fewer than needed to go down: used only when
     * no healthy route can take the batch; back to {@link #UP} after consecutive acknowledgements.
     */
    DEGRADED,
    /**
     * Lost its connection, stalled, or failed repeatedly: carries nothing except one probe batch
     * after a backoff that doubles with each failed probe (not while disconnected).
     */
    DOWN
}
