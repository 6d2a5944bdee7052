/**
 * End-to-end checks of a replication path: {@link io.jetstream.kafka.testkit.workload.Workload} produces a repeatable
 * stream of records (null keys and values, headers with null values, explicit timestamps, a sequence id in a header)
 * and records what the source acknowledged in a {@link io.jetstream.kafka.testkit.workload.ProducedLog};
 * {@link io.jetstream.kafka.testkit.workload.Verifier} consumes the destination and reports loss, duplicates, order
 * and content problems in a {@link io.jetstream.kafka.testkit.workload.VerificationReport}, whose
 * {@code summaryLine()} is the {@code events=… delivered=… lost=… duplicates=… order=…} part of the demo's RESULT line.
 */
package io.jetstream.kafka.testkit.workload;
