/**
 * End-to-end integrity: {@link io.jetstream.kafka.core.protocol.integrity.FrameSigner} computes and
 * checks the MACs the connectors put on BATCH, TOPIC_METADATA and ACK frames with a key the relays
 * never hold (see {@code docs/security.md}).
 *
 * <p>Part of the protocol layer because a batch's MAC covers its payload, which is a Netty
 * {@code ByteBuf}; it reads the payload in place.
 */
package io.jetstream.kafka.core.protocol.integrity;
