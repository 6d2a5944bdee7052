/**
 * Netty transport shared by the connectors and the relays: frame decoding and encoding handlers
 * over {@link io.jetstream.kafka.core.protocol.codec.FrameCodec}, and the peer client (handshake,
 * heartbeats, reconnect with backoff, TLS) that connector tasks and relays use to reach a relay.
 */
package io.jetstream.kafka.transport;
