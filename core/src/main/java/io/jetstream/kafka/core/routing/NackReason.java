package io.jetstream.kafka.core.routing;

/** Why a batch sent on a route was not acknowledged; every reason counts as a failure of the route. */
public enum NackReason {
    /** No acknowledgement within the sender's timeout. */
    TIMEOUT,
    /** A hop or the destination refused the batch (negative acknowledgement). */
    REJECTED,
    /** A hop had no room for the batch. */
    OVERLOADED
}
