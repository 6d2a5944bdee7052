package io.jetstream.kafka.relay.routing;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.core.protocol.AckReason;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.config.RouteSpec;

/**
 * The default route choice: round robin over the usable routes of a destination, skipping routes
 * that failed within the last {@code penalty} (first hop down, or a batch nacked
 * {@code NEXT_HOP_UNREACHABLE} or {@code TIMEOUT} on them) as long as another route is usable. With
 * a single route it always returns it while usable. Thread-safe, lock-free.
 */
public final class RoundRobinRouteChooser implements RouteChooser {

    /** A route whose first hop failed is avoided this long while others are usable. */
    public static final Duration FAILURE_PENALTY = Duration.ofSeconds(1);

    private final RelayConfig config;
    private final Clock clock;
    private final long penaltyNanos;
    private final ConcurrentHashMap<String, AtomicInteger> next = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<RouteSpec, Long> failedAtNanos = new ConcurrentHashMap<>();

    /**
     * @param config    routes per destination
     * @param clock     the relay's clock
     * @param penalty   how long a failed route is avoided
     */
    public RoundRobinRouteChooser(RelayConfig config, Clock clock, Duration penalty) {
        this.config = config;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.penaltyNanos = penalty.toNanos();
    }

    @Override
    public Optional<RouteSpec> choose(String destination, long batchBytes, Predicate<RouteSpec> usable) {
        List<RouteSpec> routes = config.routes(destination);
        if (routes.isEmpty()) {
            return Optional.empty();
        }
        int start = Math.floorMod(next.computeIfAbsent(destination, d -> new AtomicInteger()).getAndIncrement(),
                routes.size());
        long now = clock.nanoTime();
        RouteSpec recentlyFailed = null;
        for (int i = 0; i < routes.size(); i++) {
            RouteSpec route = routes.get((start + i) % routes.size());
            if (!usable.test(route)) {
                continue;
            }
            Long failedAt = failedAtNanos.get(route);
            boolean healthy = failedAt == null || now - failedAt > penaltyNanos;
            if (healthy) {
                return Optional.of(route);
            }
            if (recentlyFailed == null) {
                recentlyFailed = route;
            }
        }
        return Optional.ofNullable(recentlyFailed);
    }

    @Override
    public void onNack(RouteSpec route, AckReason reason) {
        if (reason == AckReason.NEXT_HOP_UNREACHABLE || reason == AckReason.TIMEOUT) {
            onFailure(route);
        }
    }

    @Override
    public void onAck(RouteSpec route, long batchBytes, Duration rtt) {
        failedAtNanos.remove(route);
    }

    @Override
    public void onReceived(RouteSpec route, long batchBytes, Duration transfer) {
        failedAtNanos.remove(route);
    }

    @Override
    public void onFailure(RouteSpec route) {
        failedAtNanos.put(route, clock.nanoTime());
    }
}
