package io.jetstream.kafka.bench;

import java.util.List;
import java.util.Map;

/**
 * What one variant measured; written to the JSON result with snake_case names
 * ({@code throughputMbS} is {@code throughput_mb_s}). MB are 10^6 bytes; "records" bytes are key +
 * value + headers, "wire" bytes what the source hosts' WAN uplinks sent.
 *
 * @param id              variant id
 * @param title           one line for tables
 * @param replicator      {@code jetstream} or {@code mirrormaker2}
 * @param topic           source topic (site A)
 * @param destinationTopic topic written at site B
 * @param wireCodec       compression of the bytes on the WAN
 * @param latency         the latency phase (steady load)
 * @param backlog         the backlog phase (drain after a pause)
 * @param verification    completeness, duplicates and order over all of the variant's records
 * @param deployment      the configs deployed, task placement, relay configs
 * @param timeline        readings every 500 ms, for the report's plots
 * @param latencyCdf      points (ms, fraction) of the latency phase's CDF
 * @param latencyOverTime per second of the latency phase: (seconds since it started, median ms, max ms) of the
 *                        records that arrived in that second
 * @param error           why the variant failed, or null
 * @param steps           the varying-rate load's steps as measured (empty with the steady load)
 * @param events          cold-start and capacity-change: the load with timed events as measured; null otherwise
 * @param idle            the idle phase after the latency phase (no records offered), or null when the plan had none
 */
public record VariantResult(String id, String title, String replicator, String topic, String destinationTopic,
                            String wireCodec, LatencyPhase latency, BacklogPhase backlog, Verification verification,
                            Map<String, Object> deployment, Timeline timeline, List<double[]> latencyCdf,
                            List<double[]> latencyOverTime, String error, List<Step> steps,
                            EventsResult events, IdlePhase idle) {

    public VariantResult {
        steps = steps == null ? List.of() : List.copyOf(steps);
    }

    /** A result without an idle phase. */
    public VariantResult(String id, String title, String replicator, String topic, String destinationTopic,
                         String wireCodec, LatencyPhase latency, BacklogPhase backlog, Verification verification,
                         Map<String, Object> deployment, Timeline timeline, List<double[]> latencyCdf,
                         List<double[]> latencyOverTime, String error, List<Step> steps,
                         EventsResult events) {
        this(id, title, replicator, topic, destinationTopic, wireCodec, latency, backlog, verification, deployment,
                timeline, latencyCdf, latencyOverTime, error, steps, events, null);
    }

    /** A result of the steady load, without steps. */
    public VariantResult(String id, String title, String replicator, String topic, String destinationTopic,
                         String wireCodec, LatencyPhase latency, BacklogPhase backlog, Verification verification,
                         Map<String, Object> deployment, Timeline timeline, List<double[]> latencyCdf,
                         List<double[]> latencyOverTime, String error) {
        this(id, title, replicator, topic, destinationTopic, wireCodec, latency, backlog, verification, deployment,
                timeline, latencyCdf, latencyOverTime, error, List.of(), null);
    }

    /** A result without timed events (the steady load or the varying rate). */
    public VariantResult(String id, String title, String replicator, String topic, String destinationTopic,
                         String wireCodec, LatencyPhase latency, BacklogPhase backlog, Verification verification,
                         Map<String, Object> deployment, Timeline timeline, List<double[]> latencyCdf,
                         List<double[]> latencyOverTime, String error, List<Step> steps) {
        this(id, title, replicator, topic, destinationTopic, wireCodec, latency, backlog, verification, deployment,
                timeline, latencyCdf, latencyOverTime, error, steps, null);
    }

    /**
     * One step of the varying-rate load ({@link RateStep}) as one variant ran it.
     *
     * @param name            the step's name
     * @param burst           a burst (records produced unthrottled) rather than a rate step
     * @param records         records produced in the step (each timed at B)
     * @param offeredPerS     records/s offered: the step's rate, or a burst's records over the time producing them took
     * @param deliveredPerS   records/s delivered: the step's records over the time from the first to the last of
     *                        them arriving at B (at least the step's production time): near {@code offeredPerS} when
     *                        the replicator kept up, lower when it fell behind
     * @param keptUp          rate steps: delivered at least 95% of offered; bursts: always true (nothing to keep up with)
     * @param latencyP50Ms    median end-to-end latency of the step's records (arrival at B minus the time handed to
     *                        the producer at A)
     * @param latencyP99Ms    99th percentile, the figure of merit (docs/bench/scenarios.md, "Varying rate")
     * @param latencyMaxMs    largest
     * @param latencyMeanMs   mean
     * @param seconds         length of the step's window (from its start to the next step's start)
     * @param replicatorCores cores the replicator's JVMs used in the window
     * @param machineCores    cores busy on the machine in the window
     * @param wireMbS         MB/s the source uplinks sent in the window
     * @param recordsPerBatch records that arrived at B in the window over the batches the ingress relay sent onto
     *                        its routes in it (0 when it sent none, or for MirrorMaker 2): the batch size in use
     * @param decisions       JetStream: what the source-site tasks' batching policy decided in the window, from their
     *                        metrics ({@link TaskMetricsReader}); null where they could not be read
     */
    public record Step(String name, boolean burst, long records, double offeredPerS, double deliveredPerS,
                       boolean keptUp, long latencyP50Ms, long latencyP99Ms, long latencyMaxMs, double latencyMeanMs,
                       double seconds, double replicatorCores, double machineCores, double wireMbS,
                       double recordsPerBatch, TaskMetricsReader.Decisions decisions) {

        /** A step without the tasks' decisions. */
        public Step(String name, boolean burst, long records, double offeredPerS, double deliveredPerS,
                    boolean keptUp, long latencyP50Ms, long latencyP99Ms, long latencyMaxMs, double latencyMeanMs,
                    double seconds, double replicatorCores, double machineCores, double wireMbS,
                    double recordsPerBatch) {
            this(name, burst, records, offeredPerS, deliveredPerS, keptUp, latencyP50Ms, latencyP99Ms, latencyMaxMs,
                    latencyMeanMs, seconds, replicatorCores, machineCores, wireMbS, recordsPerBatch, null);
        }
    }

    /**
     * Steady load at {@code ratePerS} records/s: end-to-end latency of every record (arrival at the
     * probe at B minus the timestamp set when it was handed to the producer at A) and CPU at that load;
     * {@code jitCoresPerProcess} is the part of each process's cores its JIT compilers used, and
     * {@code binds} the resource that bound the phase ({@link Bottleneck}) and the longest JVM pauses;
     * {@code stopTheWorld} the stop-the-world pauses of each JVM during the phase ({@link JvmPauses}).
     */
    public record LatencyPhase(long records, double ratePerS, double seconds, long latencyP50Ms, long latencyP99Ms,
                               long latencyP999Ms, long latencyMaxMs, double latencyMeanMs,
                               Map<String, Double> coresPerProcess, Map<String, Double> jitCoresPerProcess,
                               double replicatorCores, double machineCores, double wireMbS,
                               Map<String, JvmPauses.Pauses> stopTheWorld, String binds) {
    }

    /**
     * The idle phase: every record of the latency phase arrived, then nothing offered for {@code seconds}; what
     * each process, the replicator's JVMs and the machine used meanwhile (heartbeats, polls, metadata, timers).
     */
    public record IdlePhase(double seconds, Map<String, Double> coresPerProcess, double replicatorCores,
                            double machineCores) {
    }

    /**
     * The backlog: produced while the replicator was paused, drained after it resumed. Throughput is
     * records drained over the time from the resume to the arrival of the last record at B; wire, CPU
     * and route figures are over the window from the resume to when the probe saw the last record.
     * {@code jitCoresPerProcess} and {@code binds} as in {@link LatencyPhase}.
     */
    public record BacklogPhase(long records, long recordBytes, double drainSeconds, double throughputMbS,
                               double eventsPerS, double wireMbS, Map<String, Double> wirePerUplinkMbS,
                               Map<String, Long> uplinkBytes, Map<String, Double> uplinkFill,
                               Map<String, Long> routeBytes, double wireBytesPerRecord,
                               Map<String, Double> coresPerProcess, Map<String, Double> jitCoresPerProcess,
                               double replicatorCores, double machineCores, double coreSecondsPerMb, String binds) {
    }

    /** Sums over the variant's runs (warm-up, latency, backlog). */
    public record Verification(long expected, long delivered, long lost, long duplicates, String order,
                               long fieldMismatches, List<String> runs) {
        public boolean ok() {
            return lost == 0 && duplicates == 0 && "ok".equals(order) && fieldMismatches == 0 && expected > 0;
        }
    }

    /**
     * Readings every 500 ms: seconds since the variant started and, per point, MB/s per uplink,
     * record MB/s arriving at B, cores per process and for the machine; {@code marks} are the phase
     * boundaries (seconds).
     */
    public record Timeline(List<Double> seconds, Map<String, List<Double>> uplinkMbS, List<Double> arrivalsMbS,
                           Map<String, List<Double>> cores, List<Double> machineCores, Map<String, Double> marks) {
    }

    public boolean ok() {
        return error == null && verification != null && verification.ok();
    }
}
