package io.jetstream.kafka.launcher;

import java.time.Duration;

/**
 * Options of {@code ./jetstream demo}, checked ({@link DemoArguments} reads them from the command line).
 *
 * @param events      events to replicate in total
 * @param routes      WAN routes, 1 to 3
 * @param linkRate    rate cap of each route's link, bytes/s
 * @param oneWayDelay one-way propagation delay of each link
 * @param rate        producer rate, events/s (0 = as fast as possible)
 * @param valueBytes  size of each value
 * @param timeout     longest wait for delivery
 * @param keepRunning keep everything running after the RESULT line
 * @param routing     the ingress relay's {@code routing.policy}, or null for the relay's default
 * @param avro        Avro records with a schema registry per site, ids translated ({@code --avro})
 */
record DemoOptions(int events, int routes, long linkRate, Duration oneWayDelay, int rate, int valueBytes,
                   Duration timeout, boolean keepRunning, String routing, boolean avro) {
}
