/**
 * Batch payload encoding: the values senders and sinks exchange ({@link
 * io.jetstream.kafka.core.batch.ReplicatedRecord}, {@link io.jetstream.kafka.core.batch.RecordBatch}),
 * the compact payload format with per-batch compression ({@link io.jetstream.kafka.core.batch.BatchEncoder},
 * {@link io.jetstream.kafka.core.batch.BatchDecoder}) and its integrity checks.
 *
 * <p>No Netty types here: payloads are {@code byte[]}/{@link java.nio.ByteBuffer}. The frame layer
 * ({@code core.protocol}) carries them in BATCH frames without decoding them.
 */
package io.jetstream.kafka.core.batch;
