package io.jetstream.kafka.relay.server;

import java.time.Duration;

/**
 * User event fired into every open data channel when a graceful shutdown begins
 * ({@code ChannelPipeline.fireUserEventTriggered}), on the channel's event loop.
 *
 * <p>Data-path handlers should react like an HTTP/2 GOAWAY: take no new batches (nack them with
 * reason {@code draining} so the sender moves them to another route), keep forwarding and
 * acknowledging the batches already held, and tell peers the relay is going away. The server
 * closes every connection once the relay holds no batch or when {@link #gracePeriod()} is over.
 *
 * @param gracePeriod time left before connections are closed regardless
 */
public record DrainStartedEvent(Duration gracePeriod) {
}
