package io.jetstream.kafka.source;

import io.jetstream.kafka.core.environment.Binding;
import io.jetstream.kafka.core.environment.BindingConstraint;
import io.jetstream.kafka.core.environment.CpuLoad;
import io.jetstream.kafka.core.environment.GridCell;
import io.jetstream.kafka.core.environment.GridMatch;
import io.jetstream.kafka.core.environment.OperatingPoint;
import io.jetstream.kafka.core.environment.OperatingPointMonitor;
import io.jetstream.kafka.core.model.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * Where a source-site task runs, for an operator: its operating point ({@link OperatingPointMonitor},
 * which watches the task's batching policy), the constraint that binds it ({@link Binding}) with the
 * worker's CPU, and the environment grid's cell it resembles ({@link GridCell}). Read on demand by the
 * task's view ({@code operating_point}, {@code resembles_cell}, {@code binds}) and its gauges; names
 * are documented in docs/monitoring.md and docs/operations.md.
 *
 * <p>Thread-safe: everything it reads is.
 */
final class TaskEnvironment {

    /** One reading: the figures and what they mean. */
    record Reading(OperatingPoint point, CpuLoad cpu, boolean paused, Binding binds, GridMatch cell) {
    }

    private final OperatingPointMonitor monitor;
    private final Clock clock;
    private final BooleanSupplier paused;
    private final IntSupplier assignedPartitions;
    private final Supplier<CpuLoad> cpu;

    /**
     * @param paused             whether the task paused its partitions for backpressure
     * @param assignedPartitions the task's partitions, its coordinate on the grid's partition axis
     * @param cpu                the worker's CPU ({@link JvmCpu})
     */
    TaskEnvironment(OperatingPointMonitor monitor, Clock clock, BooleanSupplier paused,
                    IntSupplier assignedPartitions, Supplier<CpuLoad> cpu) {
        this.monitor = monitor;
        this.clock = clock;
        this.paused = paused;
        this.assignedPartitions = assignedPartitions;
        this.cpu = cpu;
    }

    /** The reading now. A link found binding is full: its rate is then the uplink, not only a lower bound. */
    Reading read() {
        OperatingPoint point = monitor.operatingPoint(clock.nanoTime());
        boolean pausedNow = paused.getAsBoolean();
        CpuLoad cpuNow = cpu.get();
        Binding binds = Binding.of(point, pausedNow, cpuNow);
        boolean linkFull = binds.constraint() == BindingConstraint.LINK;
        GridMatch cell = GridCell.nearest(GridCell.GRID, point.coordinates(linkFull, assignedPartitions.getAsInt()));
        return new Reading(point, cpuNow, pausedNow, binds, cell);
    }

    /** Registers the gauges, each computed on read. */
    void registerGauges(BatchingGauges.Registry registry) {
        registry.gauge("binding-constraint", "What binds the task now, measured from what it does:"
                + " 0 none (the load is below what the path carries), 1 link, 2 cpu, 3 round-trip (the in-flight"
                + " window), 4 partitions (per-batch costs).", () -> read().binds().constraint().code());
        registry.gauge("resembles-grid-cell", "The environment grid's cell the task resembles, as an index into"
                + " the list in docs/monitoring.md (0 default, 1 up10, 2 up200, 3 d5, 4 d75, 5 r100, 6 r16k,"
                + " 7 p1200, 8 up10-d75, 9 up200-p1200, 10 r100-p1200).", () -> read().cell().index());
        registry.gauge("resembles-grid-cell-distance", "Distance to that cell over the grid's axes in log2"
                + " ratios: 0 is the cell itself, 1 a factor 2 on one axis.", () -> read().cell().distance());
        registry.gauge("base-rtt-seconds", "Base round trip of the path, in seconds: the smallest time from a"
                + " batch's sending to the egress relay's receipt (else to its acknowledgement).",
                () -> point(p -> p.baseRttNanos() / 1e9));
        registry.gauge("delivered-peak-bytes-per-second", "The highest rate of acknowledged wire bytes in the"
                + " last minute: a lower bound of the path's capacity.",
                () -> point(OperatingPoint::peakDeliveredBytesPerSecond));
        registry.gauge("window-fullness", "How full the in-flight window was recently, by batches or bytes"
                + " (the fuller), averaged over time: 0 to 1.", () -> point(OperatingPoint::windowFullness));
    }

    private double point(ToDoubleFunction<OperatingPoint> figure) {
        return figure.applyAsDouble(monitor.operatingPoint(clock.nanoTime()));
    }

    // ---- the view's members

    /** {@code operating_point}: the measured figures and the worker's CPU. */
    static Map<String, Object> operatingPoint(Reading reading, int assignedPartitions) {
        OperatingPoint p = reading.point();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("base_rtt_ms", p.baseRttNanos() / 1e6);
        m.put("one_way_delay_ms", p.oneWayDelayMs());
        m.put("arrival_records_per_second", p.arrivalRecordsPerSecond());
        m.put("arrival_bytes_per_second", p.arrivalBytesPerSecond());
        m.put("mean_record_bytes", p.meanRecordBytes());
        m.put("sent_wire_bytes_per_second", p.sentWireBytesPerSecond());
        m.put("delivered_wire_bytes_per_second", p.deliveredWireBytesPerSecond());
        m.put("delivered_peak_bytes_per_second", p.peakDeliveredBytesPerSecond());
        m.put("path_throughput_bytes_per_second", p.pathThroughputBytesPerSecond());
        m.put("link_utilisation", p.linkUtilisation());
        m.put("records_per_batch", p.recordsPerBatch());
        m.put("active_partitions", p.activePartitions());
        m.put("assigned_partitions", assignedPartitions);
        m.put("in_flight_batches", p.inFlightBatches());
        m.put("in_flight_bytes", p.inFlightBytes());
        m.put("window_batches", p.windowBatches());
        m.put("window_bytes", p.windowBytes());
        m.put("window_fullness", p.windowFullness());
        m.put("backlog_records", p.backlogRecords());
        m.put("backlog_bytes", p.backlogBytes());
        m.put("records_wait", Binding.recordsWait(p, reading.paused()));
        m.put("jvm_cpu_cores", reading.cpu().processCores());
        m.put("available_cores", reading.cpu().availableCores());
        m.put("machine_cpu_load", reading.cpu().machineLoad());
        return m;
    }

    /** {@code resembles_cell}: the cell, its axes, the distance and what differs. */
    static Map<String, Object> resemblesCell(GridMatch match) {
        GridCell cell = match.cell();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", cell.name());
        m.put("index", match.index());
        m.put("moves", cell.moves());
        m.put("uplink_bits_per_second", cell.uplinkBitsPerSecond());
        m.put("one_way_delay_ms", cell.oneWayDelayMs());
        m.put("value_bytes", cell.valueBytes());
        m.put("partitions", cell.partitions());
        m.put("distance", match.distance());
        m.put("differs_on", match.differsOn());
        return m;
    }

    /** {@code binds}: the constraint's name and its evidence. */
    static Map<String, Object> binds(Binding binding) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", binding.constraint().label());
        m.put("evidence", binding.evidence());
        return m;
    }
}
