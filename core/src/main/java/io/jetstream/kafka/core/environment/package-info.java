/**
 * Where a running source-site task stands: its operating point, measured from the sender's events by
 * {@link io.jetstream.kafka.core.environment.OperatingPointMonitor}, which watches the batching policy; the
 * constraint that binds it ({@link io.jetstream.kafka.core.environment.Binding}); and the cell of the
 * benchmarks' environment grid it resembles ({@link io.jetstream.kafka.core.environment.GridCell}), so
 * that an operator can read the grid's verdicts for that cell. Pure functions and monitors only: no
 * Kafka Connect types, no clock of their own.
 */
package io.jetstream.kafka.core.environment;
