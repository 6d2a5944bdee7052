package io.jetstream.kafka.relay.datapath;

import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.core.routing.NackReason;
import io.jetstream.kafka.core.routing.RouteScheduler;
import io.jetstream.kafka.core.routing.RouteSchedulerSettings;
import io.jetstream.kafka.relay.config.HopAddress;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.config.RouteSpec;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * The ingress relay's route choice driven by core's {@link RouteScheduler}: batches are split over
 * a destination's routes in proportion to their measured capacity (earliest expected completion),
 * costlier routes are used only when cheaper ones are saturated, a spend cap is honoured, and a
 * failing route loses its traffic within seconds. One scheduler per destination.
 *
 * <p>The scheduler may pick a route whose first hop is down right now (it learns that only from
 * {@link #onFailure}); such a pick is handed back as rejected and the scheduler asked again, at most
 * once per route. Thread-safe: the schedulers are.
 */
public final class SchedulingRouteChooser implements RouteChooser {

    private record Destination(RouteScheduler scheduler, Map<RouteSpec, io.jetstream.kafka.core.routing.RouteSpec> toCore,
                               Map<io.jetstream.kafka.core.routing.RouteSpec, RouteSpec> toRelay) {
    }

    private final Map<String, Destination> destinations = new HashMap<>();
    private final LongSupplier nanoClock;

    /** The scheduler settings a relay's configuration asks for. */
    public static RouteSchedulerSettings settings(RelayConfig config) {
        RouteSchedulerSettings.Builder builder = RouteSchedulerSettings.builder();
        if (config.spendCapPerHour() > 0) {
            builder.spendCap(io.jetstream.kafka.core.routing.SpendCap.perWindow(config.spendCapPerHour()))
                    .spendWindow(Duration.ofHours(1));
        }
        if (!config.routingLatencyTarget().isZero()) {
            builder.latencyTarget(config.routingLatencyTarget());
        }
        return builder.build();
    }

    /** The chooser a relay's configuration asks for: scheduling (adaptive) or round robin. */
    public static RouteChooser forConfig(RelayConfig config) {
        return config.adaptiveRouting()
                ? new SchedulingRouteChooser(config, settings(config), System::nanoTime)
                : new RoundRobinRouteChooser(config, System::nanoTime, DataPath.ROUTE_FAILURE_PENALTY);
    }

    public SchedulingRouteChooser(RelayConfig config, RouteSchedulerSettings settings, LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        for (String destination : config.destinations()) {
            List<RouteSpec> routes = config.routes(destination);
            Map<RouteSpec, io.jetstream.kafka.core.routing.RouteSpec> toCore = new HashMap<>();
            Map<io.jetstream.kafka.core.routing.RouteSpec, RouteSpec> toRelay = new HashMap<>();
            for (RouteSpec route : routes) {
                io.jetstream.kafka.core.routing.RouteSpec core = new io.jetstream.kafka.core.routing.RouteSpec(
                        route.name(), route.hops().stream().map(HopAddress::toString).toList(), route.pricePerGb(),
                        route.relayPricePerHour());
                toCore.put(route, core);
                toRelay.put(core, route);
            }
            RouteScheduler scheduler = new RouteScheduler(List.copyOf(toRelay.keySet()), settings);
            destinations.put(destination, new Destination(scheduler, toCore, toRelay));
        }
    }

    @Override
    public Optional<RouteSpec> choose(String destination, long batchBytes, Predicate<RouteSpec> usable) {
        Destination d = destinations.get(destination);
        if (d == null) {
            return Optional.empty();
        }
        int bytes = (int) Math.min(Integer.MAX_VALUE, batchBytes);
        for (int attempt = 0; attempt <= d.toCore().size(); attempt++) {
            long now = nanoClock.getAsLong();
            Optional<io.jetstream.kafka.core.routing.RouteSpec> choice = d.scheduler().choose(bytes, now);
            if (choice.isEmpty()) {
                return Optional.empty();
            }
            RouteSpec route = d.toRelay().get(choice.get());
            if (usable.test(route)) {
                return Optional.of(route);
            }
            // The scheduler counted the send: undo it, and tell it the route cannot take traffic now.
            d.scheduler().onNack(choice.get(), bytes, NackReason.REJECTED, now);
            d.scheduler().onFailure(choice.get(), now);
        }
        return Optional.empty();
    }

    @Override
    public void onAck(RouteSpec route, long batchBytes, Duration rtt) {
        Destination d = destinations.get(route.destination());
        io.jetstream.kafka.core.routing.RouteSpec core = d.toCore().get(route);
        long now = nanoClock.getAsLong();
        d.scheduler().onAcked(core, batchBytes, now - rtt.toNanos(), now);
    }

    @Override
    public void onNack(RouteSpec route, long batchBytes, AckReason reason) {
        Destination d = destinations.get(route.destination());
        io.jetstream.kafka.core.routing.RouteSpec core = d.toCore().get(route);
        NackReason mapped = switch (reason) {
            case TIMEOUT, NEXT_HOP_UNREACHABLE -> NackReason.TIMEOUT;
            case OVERLOADED -> NackReason.OVERLOADED;
            default -> NackReason.REJECTED;
        };
        d.scheduler().onNack(core, batchBytes, mapped, nanoClock.getAsLong());
    }

    @Override
    public void onFailure(RouteSpec route) {
        Destination d = destinations.get(route.destination());
        d.scheduler().onFailure(d.toCore().get(route), nanoClock.getAsLong());
    }

    /** The scheduler of a destination, for metrics. */
    public Optional<RouteScheduler> scheduler(String destination) {
        return Optional.ofNullable(destinations.get(destination)).map(Destination::scheduler);
    }
}
