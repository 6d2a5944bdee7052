package io.jetstream.kafka.relay.routing;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.routing.RouteScheduler;
import io.jetstream.kafka.core.routing.RouteSchedulerSettings;
import io.jetstream.kafka.core.routing.RouteStats;
import io.jetstream.kafka.core.routing.SchedulerSnapshot;
import io.jetstream.kafka.core.routing.SpendCap;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.config.RouteSpec;
import io.jetstream.kafka.relay.metrics.RelayMetrics;

/**
 * The ingress relay's route choice driven by core's {@link RouteScheduler}: batches are split over
 * a destination's routes by capacity (earliest expected completion, every healthy route probed with
 * a minimum share), costlier routes are used only when cheaper ones are saturated, a spend cap is
 * honoured, and a failing route loses its traffic within about a second. One scheduler per
 * destination, scheduling the configured {@link RouteSpec}s themselves.
 *
 * <p>What the scheduler is told, so that its bytes in flight per route are exactly the bytes handed
 * to the route's first hop and not yet answered (whatever waits at later hops included):
 * <ul>
 *   <li>{@link #choose} charges the batch to the chosen route. The ingress then hands the frame
 *       over ({@link #onSent}, on the same thread, before the next choice) or not: its first hop
 *       was still connecting (the frame waits and is routed again), was down, or the frame is too
 *       large once its path is added. A choice not followed by {@code onSent} on the same thread is
 *       released at that thread's next choice, so at most one choice per event loop is ever
 *       counted without being on the wire.</li>
 *   <li>An ACK ends the batch with its round trip; a NACK of the path ({@code TIMEOUT},
 *       {@code NEXT_HOP_UNREACHABLE}) is a failure of the route; any other NACK is the
 *       destination's answer (no subscriber yet, write failed, ...) and only releases the batch,
 *       since every route would get it; the answer travelled the whole route, so it also shows the
 *       route works. {@code OVERLOADED} counts as the destination's too: the
 *       destination task's buffer is the usual source, and a relay that is full on one route
 *       already shows as bytes in flight that do not drain.</li>
 *   <li>A first hop found down takes the route down ({@link #onFailure}); once the ingress reports
 *       it usable again, the scheduler is told it recovered and probes it with the next batch.
 *       (Before, a route reported down never came back.)</li>
 * </ul>
 * The scheduler may pick a route whose first hop is down right now; such a pick is released, the
 * route reported down and the scheduler asked again, at most once per route.
 *
 * <p>Thread-safe: the schedulers are; the recovery set is concurrent; the pending choice is per thread.
 */
public final class SchedulingRouteChooser implements RouteChooser {

    /** One destination's scheduler, its number of routes, and its routes reported down. */
    private record Destination(RouteScheduler<RouteSpec> scheduler, int routeCount, Set<RouteSpec> down) {
    }

    /** A choice not yet followed by {@link #onSent} on its thread. */
    private record PendingChoice(Destination destination, RouteSpec route, long bytes) {
    }

    private final Map<String, Destination> destinations = new HashMap<>();
    private final Clock clock;
    private final ThreadLocal<PendingChoice> pending = new ThreadLocal<>();

    /** The scheduler settings a relay's configuration asks for. */
    public static RouteSchedulerSettings settings(RelayConfig config) {
        RouteSchedulerSettings.Builder builder = RouteSchedulerSettings.builder()
                .probeShare(config.routingProbeShare())
                .costlyProbeShare(config.routingCostlyProbeShare());
        if (config.spendCapPerHour() > 0) {
            builder.spendCap(SpendCap.perWindow(config.spendCapPerHour()))
                    .spendWindow(Duration.ofHours(1));
        }
        if (!config.routingLatencyTarget().isZero()) {
            builder.latencyTarget(config.routingLatencyTarget());
        }
        return builder.build();
    }

    /** The chooser a relay's configuration asks for: scheduling (adaptive) or round robin. */
    public static RouteChooser forConfig(RelayConfig config, Clock clock) {
        return config.adaptiveRouting()
                ? new SchedulingRouteChooser(config, settings(config), clock)
                : new RoundRobinRouteChooser(config, clock, RoundRobinRouteChooser.FAILURE_PENALTY);
    }

    public SchedulingRouteChooser(RelayConfig config, RouteSchedulerSettings settings, Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        for (String destination : config.destinations()) {
            RouteScheduler<RouteSpec> scheduler = new RouteScheduler<>(config.routes(destination), settings);
            destinations.put(destination, new Destination(scheduler, config.routes(destination).size(),
                    ConcurrentHashMap.newKeySet()));
        }
    }

    @Override
    public Optional<RouteSpec> choose(String destination, long batchBytes, Predicate<RouteSpec> usable) {
        releaseUnsentChoice();
        Destination d = destinations.get(destination);
        if (d == null) {
            return Optional.empty();
        }
        reportRecoveries(d, usable);
        int bytes = (int) Math.min(Integer.MAX_VALUE, batchBytes);
        for (int attempt = 0; attempt <= d.routeCount(); attempt++) {
            long now = clock.nanoTime();
            Optional<RouteSpec> choice = d.scheduler().choose(bytes, now);
            if (choice.isEmpty()) {
                return Optional.empty();
            }
            RouteSpec route = choice.get();
            if (usable.test(route)) {
                pending.set(new PendingChoice(d, route, bytes));
                return choice;
            }
            // The scheduler counted the send: undo it, and tell it the route cannot take traffic now.
            d.scheduler().onReleased(route, bytes, now);
            markDown(d, route, now);
        }
        return Optional.empty();
    }

    @Override
    public boolean atInFlightCap(String destination, long batchBytes) {
        Destination d = destinations.get(destination);
        return d != null && d.scheduler().atInFlightCap((int) Math.min(Integer.MAX_VALUE, batchBytes),
                clock.nanoTime());
    }

    /** The previous choice on this thread was not handed over: its bytes are not in flight. */
    private void releaseUnsentChoice() {
        PendingChoice unsent = pending.get();
        if (unsent != null) {
            pending.remove();
            unsent.destination().scheduler().onReleased(unsent.route(), unsent.bytes(), clock.nanoTime());
        }
    }

    /** Routes reported down whose first hop the ingress now finds usable have recovered. */
    private void reportRecoveries(Destination d, Predicate<RouteSpec> usable) {
        if (d.down().isEmpty()) {
            return;
        }
        for (RouteSpec route : d.down()) {
            if (usable.test(route) && d.down().remove(route)) {
                d.scheduler().onRecovered(route, clock.nanoTime());
            }
        }
    }

    private void markDown(Destination d, RouteSpec route, long now) {
        d.down().add(route);
        d.scheduler().onFailure(route, now);
    }

    @Override
    public void onSent(RouteSpec route, long batchBytes) {
        PendingChoice choice = pending.get();
        if (choice != null && choice.route().equals(route)) {
            pending.remove();
        }
    }

    @Override
    public void onAck(RouteSpec route, long batchBytes, Duration rtt) {
        long now = clock.nanoTime();
        schedulerOf(route).onAcked(route, batchBytes, now - rtt.toNanos(), now);
    }

    @Override
    public void onReceived(RouteSpec route, long batchBytes, Duration transfer) {
        long now = clock.nanoTime();
        schedulerOf(route).onReceived(route, batchBytes, now - transfer.toNanos(), now);
    }

    @Override
    public void onSettled(RouteSpec route, long batchBytes, boolean written) {
        schedulerOf(route).onSettled(route, batchBytes, written, clock.nanoTime());
    }

    @Override
    public void onNack(RouteSpec route, long batchBytes, AckReason reason) {
        long now = clock.nanoTime();
        boolean routeFault = reason == AckReason.TIMEOUT || reason == AckReason.NEXT_HOP_UNREACHABLE;
        if (routeFault) {
            schedulerOf(route).onNack(route, batchBytes, now);
        } else {
            schedulerOf(route).onAnswered(route, batchBytes, now); // the destination's answer: every route would get it
        }
    }

    private RouteScheduler<RouteSpec> schedulerOf(RouteSpec route) {
        return destinations.get(route.destination()).scheduler();
    }

    @Override
    public void onFailure(RouteSpec route) {
        Destination d = destinations.get(route.destination());
        PendingChoice choice = pending.get();
        if (choice != null && choice.route().equals(route)) {
            pending.remove(); // the scheduler fails every batch in flight on the route, this one included
        }
        markDown(d, route, clock.nanoTime());
    }

    /** Writes each scheduler's current view of its routes into the relay's decision metrics. */
    public void exportTo(RelayMetrics metrics) {
        long now = clock.nanoTime();
        destinations.forEach((destination, d) -> {
            SchedulerSnapshot snapshot = d.scheduler().snapshot(now);
            metrics.spendCapReached(destination, snapshot.spentTotal() >= snapshot.cap().total()
                    || snapshot.spentInWindow() >= snapshot.cap().perWindow());
            for (RouteStats route : snapshot.routes()) {
                metrics.decision(RelayMetrics.ROUTE_WEIGHT, destination, route.name()).set(route.capacityShare());
                metrics.decision(RelayMetrics.ROUTE_TRAFFIC_SHARE, destination, route.name()).set(route.trafficShare());
                metrics.decision(RelayMetrics.ROUTE_CAPACITY, destination, route.name()).set(route.bytesPerSecond());
                metrics.decision(RelayMetrics.ROUTE_DELIVERED, destination, route.name())
                        .set(route.deliveredBytesPerSecond());
                metrics.decision(RelayMetrics.ROUTE_RTT, destination, route.name()).set(route.rttNanos() / 1e9);
                metrics.decision(RelayMetrics.ROUTE_RANKING_RTT, destination, route.name())
                        .set(route.rankingRttNanos() / 1e9);
                metrics.decision(RelayMetrics.ROUTE_IN_FLIGHT, destination, route.name()).set(route.inFlightBytes());
                metrics.decision(RelayMetrics.ROUTE_AWAITING_ANSWER, destination, route.name())
                        .set(route.awaitingAnswerBytes());
                metrics.decision(RelayMetrics.ROUTE_STATE, destination, route.name()).set(route.state().ordinal());
                metrics.spent(destination, route.name(), route.moneySpent());
                metrics.queueDrains(destination, route.name(), route.queueDrains());
            }
        });
    }

    /** The scheduler of a destination, for metrics. */
    public Optional<RouteScheduler<RouteSpec>> scheduler(String destination) {
        return Optional.ofNullable(destinations.get(destination)).map(Destination::scheduler);
    }
}
