package io.jetstream.kafka.core.routing;

import java.util.List;
import java.util.Optional;

/**
 * A consistent view of a {@link RouteScheduler} at one instant, for metrics and tests.
 *
 * @param takenAtNanos  when
 * @param routes        one entry per route, in configuration order
 * @param spentTotal    money spent since start
 * @param spentInWindow money spent over the trailing spend window
 * @param cap           the spend cap in force
 */
public record SchedulerSnapshot(long takenAtNanos, List<RouteStats> routes, double spentTotal, double spentInWindow,
                                SpendCap cap) {

    public SchedulerSnapshot {
        routes = List.copyOf(routes);
    }

    public Optional<RouteStats> route(String name) {
        return routes.stream().filter(r -> r.name().equals(name)).findFirst();
    }
}
