/**
 * The JetStream frame protocol: frame values ({@link io.jetstream.kafka.core.protocol.Frame} and its
 * records), enumerated wire fields, routing, share ownership ({@link io.jetstream.kafka.core.protocol.Shares})
 * and batch ids. Encoding lives in {@code core.protocol.codec}; the full specification is
 * {@code docs/protocol.md}.
 *
 * <p>This package and its subpackages are the only part of core allowed to use Netty types
 * (ByteBuf for zero-copy payloads); the architecture test enforces it.
 */
package io.jetstream.kafka.core.protocol;
