package io.jetstream.kafka.core.routing;

/**
 * The health state machine of one route.
 *
 * <pre>
 *   UP --nack/timeout--&gt; DEGRADED --(downAfterFailures consecutive)--&gt; DOWN
 *   UP, DEGRADED --connection lost | stalled--&gt; DOWN
 *   DEGRADED --recoveryAcks consecutive acks--&gt; UP
 *   DOWN --after backoff, one probe batch--&gt; ack: UP | failure or probe timeout: DOWN, backoff doubled
 *   DOWN (only its connection was lost) --recovered--&gt; UP
 *   DOWN (disconnected after failures of its own) --recovered--&gt; DOWN, probe due at once
 * </pre>
 *
 * A route that went down only because its first hop's connection was lost (or was not connected
 * yet at start) comes back up as soon as the connection is back: waiting for a probe's
 * end-to-end acknowledgement would keep it idle for as long as the destination takes to answer,
 * while the other routes get the whole backlog.
 *
 * Invariants: at most one probe is in flight; a disconnected route is never probed; the backoff
 * stays within {@code [initial, max]}. Not thread-safe: the scheduler serialises calls.
 */
final class RouteHealth {

    private final int downAfterFailures;
    private final int recoveryAcks;
    private final long initialBackoffNanos;
    private final long maxBackoffNanos;
    private RouteState state = RouteState.UP;
    private int consecutiveFailures;
    private int consecutiveAcks;
    private boolean disconnected;
    /** Down because of its connection alone, with no failure of its own before. */
    private boolean downForConnectionOnly;
    private boolean probeInFlight;
    private long backoffNanos;
    private long probeAtNanos;
    private long probeSentAtNanos;
    private long transitions;

    RouteHealth(int downAfterFailures, int recoveryAcks, long initialBackoffNanos, long maxBackoffNanos) {
        this.downAfterFailures = downAfterFailures;
        this.recoveryAcks = recoveryAcks;
        this.initialBackoffNanos = initialBackoffNanos;
        this.maxBackoffNanos = maxBackoffNanos;
        this.backoffNanos = initialBackoffNanos;
    }

    void onAck() {
        consecutiveFailures = 0;
        consecutiveAcks++;
        probeInFlight = false;
        boolean probeSucceeded = state == RouteState.DOWN && !disconnected;
        boolean recoveredFromDegraded = state == RouteState.DEGRADED && consecutiveAcks >= recoveryAcks;
        if (probeSucceeded || recoveredFromDegraded) {
            moveTo(RouteState.UP);
            backoffNanos = initialBackoffNanos;
        }
    }

    void onFailure(long nowNanos) {
        consecutiveFailures++;
        consecutiveAcks = 0;
        // failures of batches sent before the route went down do not count as failed probes
        boolean down = state == RouteState.DOWN;
        boolean probeFailed = down && probeInFlight;
        boolean tooManyFailures = !down && consecutiveFailures >= downAfterFailures;
        if (probeFailed || tooManyFailures) {
            goDown(nowNanos);
        } else if (state == RouteState.UP) {
            moveTo(RouteState.DEGRADED);
        }
        probeInFlight = false;
    }

    void onConnectionLost(long nowNanos) {
        downForConnectionOnly = state == RouteState.UP || downForConnectionOnly && state == RouteState.DOWN;
        disconnected = true;
        probeInFlight = false;
        goDown(nowNanos);
    }

    void onRecovered(long nowNanos) {
        disconnected = false;
        probeInFlight = false;
        if (state == RouteState.DOWN && downForConnectionOnly) {
            downForConnectionOnly = false;
            consecutiveFailures = 0;
            backoffNanos = initialBackoffNanos;
            moveTo(RouteState.UP);
        } else if (state == RouteState.DOWN) {
            probeAtNanos = nowNanos;
        }
    }

    void onStalled(long nowNanos) {
        if (state != RouteState.DOWN) {
            goDown(nowNanos);
        }
    }

    private void goDown(long nowNanos) {
        if (!disconnected) {
            downForConnectionOnly = false;
        }
        // the first failure from a working state backs off briefly; each failed probe doubles it
        backoffNanos = state == RouteState.DOWN ? Math.min(maxBackoffNanos, backoffNanos * 2) : initialBackoffNanos;
        moveTo(RouteState.DOWN);
        probeAtNanos = nowNanos + backoffNanos;
    }

    private void moveTo(RouteState next) {
        if (next != state) {
            state = next;
            transitions++;
        }
    }

    /** Whether the route may take a batch: it is not down, or it is down and a probe is due. */
    boolean usable(long nowNanos) {
        return state != RouteState.DOWN || probeDue(nowNanos);
    }

    boolean probeDue(long nowNanos) {
        return state == RouteState.DOWN && !disconnected && !probeInFlight && nowNanos >= probeAtNanos;
    }

    void onSent(long nowNanos) {
        if (state == RouteState.DOWN) {
            probeInFlight = true;
            probeSentAtNanos = nowNanos;
        }
    }

    /** Whether a probe has been in flight for longer than {@code timeoutNanos}: it counts as failed. */
    boolean probeTimedOut(long nowNanos, long timeoutNanos) {
        return probeInFlight && nowNanos - probeSentAtNanos > timeoutNanos;
    }

    RouteState state() {
        return state;
    }

    /** State changes since creation; a measure of flapping. */
    long transitions() {
        return transitions;
    }
}
