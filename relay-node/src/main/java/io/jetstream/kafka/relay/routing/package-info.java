/**
 * The ingress relay's route choice: {@link io.jetstream.kafka.relay.routing.RouteChooser} is what
 * the data path's router asks for each batch without a path, and tells what became of it;
 * {@link io.jetstream.kafka.relay.routing.RoundRobinRouteChooser} ({@code routing.policy=round-robin})
 * and {@link io.jetstream.kafka.relay.routing.SchedulingRouteChooser} ({@code adaptive}: core's
 * {@code RouteScheduler}, one per destination, scheduling the configured
 * {@link io.jetstream.kafka.relay.config.RouteSpec}s themselves) implement it.
 * {@link io.jetstream.kafka.relay.routing.RouteLabels} names the route series of frames that arrive
 * already routed. Knows nothing of Netty or of the data path's connections.
 */
package io.jetstream.kafka.relay.routing;
