/**
 * Netty-free wire primitives shared by the frame protocol ({@code core.protocol}) and the batch
 * payload encoding ({@code core.batch}): the single decoding exception with its error kinds, and the
 * frame-length rule every transport applies before allocating.
 */
package io.jetstream.kafka.core.wire;
