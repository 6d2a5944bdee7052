/**
 * The exact origin-to-destination offset map: one entry per run of records of an origin partition
 * written in one destination transaction ({@link io.jetstream.kafka.core.offsets.OffsetMapEntry}),
 * its binary form in the map topic ({@link io.jetstream.kafka.core.offsets.OffsetMapCodec}), and the
 * translation of consumer positions in both directions
 * ({@link io.jetstream.kafka.core.offsets.OffsetTranslator}). No Kafka Connect types.
 */
package io.jetstream.kafka.core.offsets;
