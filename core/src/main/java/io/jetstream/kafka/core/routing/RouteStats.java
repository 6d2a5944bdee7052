package io.jetstream.kafka.core.routing;

/**
 * One route in a {@link SchedulerSnapshot}: what metrics export per route.
 *
 * @param name                    route name
 * @param state                   health
 * @param capacityShare           the route's share of the capacity of the routes not down (its weight)
 * @param trafficShare            the route's share of the bytes recently sent (time-decayed)
 * @param bytesPerSecond          capacity estimate used for scheduling (measured, or the prior)
 * @param capacityMeasured        whether {@code bytesPerSecond} was measured (the route was busy)
 * @param deliveredBytesPerSecond bytes acknowledged per second recently
 * @param rttNanos                base round-trip time used for scheduling (measured, or the prior)
 * @param rankingRttNanos         round trip the route is ranked by: its heartbeat RTT where measured,
 *                                else the routes' common one, or its own recent one where that
 *                                really differs (a longer path, a delay that grew)
 * @param inFlightBytes           bytes sent and not yet received by the egress relay, acknowledged or failed
 * @param inFlightBatches         batches sent and not yet received by the egress relay, acknowledged or failed
 * @param awaitingAnswerBytes     bytes the route carried to its egress relay (receipts) whose
 *                                destination's answer is still due: what waits at the destination
 * @param bytesSent               bytes sent in total
 * @param bytesAcked              bytes acknowledged in total
 * @param failures                negative acknowledgements, timeouts and lost connections in total
 * @param consecutiveFailures     failures since the last acknowledgement
 * @param moneySpent              egress and relay money charged to this route in total
 * @param stateTransitions        health changes since start
 * @param queueDrains             queue drains since start: times new batches were kept off the route
 *                                until its own queue was gone, to measure its round trip without it
 */
public record RouteStats(
        String name,
        RouteState state,
        double capacityShare,
        double trafficShare,
        double bytesPerSecond,
        boolean capacityMeasured,
        double deliveredBytesPerSecond,
        double rttNanos,
        double rankingRttNanos,
        long inFlightBytes,
        int inFlightBatches,
        long awaitingAnswerBytes,
        long bytesSent,
        long bytesAcked,
        long failures,
        int consecutiveFailures,
        double moneySpent,
        long stateTransitions,
        long queueDrains) {
}
