package io.jetstream.kafka.core.environment;

import java.util.Locale;
import java.util.Objects;

/**
 * The constraint that binds a source-site task and the figures that show it, for an operator who
 * asks why it does not go faster ({@code ./jetstream explain}, the {@code binding-constraint} gauge),
 * read from what happens (no model predicts it).
 *
 * <p>The rules, first match wins:
 * <ol>
 *   <li>{@code cpu}: the worker's JVM keeps at least {@link #CPU_BUSY} of the cores available to it
 *       busy, or the machine is that busy. First, because a starved sender also sends at the most
 *       it ever delivered while records wait, which would read as a full link.</li>
 *   <li>{@code link}: records wait ({@link #recordsWait}) while the task sends at least
 *       {@link #LINK_FULL} of what the path is known to carry. Behind a full window this counts only
 *       when the path's throughput was measured at its bottleneck (batches queued there): a window
 *       that caps the rate also caps the highest rate ever delivered.</li>
 *   <li>{@code round-trip}, or {@code partitions}: records wait while the in-flight window is at
 *       least {@link #WINDOW_FULL} full on average, so the window over the round trip limits the
 *       rate. When the count of batches is what fills it and {@code partitions} holds, the batches
 *       are too small for the window: {@code partitions}.</li>
 *   <li>{@code partitions}: more than {@link #MANY_PARTITIONS} partitions active with fewer than
 *       {@link #FEW_RECORDS_PER_BATCH} records per batch on average: each batch's fixed costs (its
 *       header, encoding, acknowledgement, write at the destination) dominate.</li>
 *   <li>{@code none}: the load is below what the path carries; latency is the linger plus the round
 *       trip.</li>
 * </ol>
 *
 * @param constraint what binds
 * @param evidence   the figures that show it, in words
 */
public record Binding(BindingConstraint constraint, String evidence) {

    /** A JVM (or machine) this busy has no CPU to spare: the bench calls a machine this busy CPU-bound too. */
    public static final double CPU_BUSY = 0.90;
    /** Sending this much of the path's known capacity is sending all it carries (a shaper lets 97-99% through). */
    public static final double LINK_FULL = 0.90;
    /** A window this full on average admits batches only as answers free it. */
    public static final double WINDOW_FULL = 0.90;
    /** Partitions active at once above which per-batch costs can dominate (the grid's many-partition cells have 1,200). */
    public static final int MANY_PARTITIONS = 100;
    /** Mean records per batch below which a batch's fixed costs outweigh its records'. */
    public static final double FEW_RECORDS_PER_BATCH = 4;
    /**
     * Records wait when the backlog holds more than this many times what the open batches hold without
     * queueing ({@link OperatingPoint#openBatchBytes}): sealed batches queue for the window, or batches
     * fill faster than they leave.
     */
    public static final double WAITING_FACTOR = 2;

    public Binding {
        Objects.requireNonNull(constraint, "constraint");
        Objects.requireNonNull(evidence, "evidence");
    }

    /**
     * What binds at {@code point}.
     *
     * @param paused whether the task paused its partitions for backpressure (its buffer is full)
     * @param cpu    the CPU of the worker's JVM and of the machine, {@link CpuLoad#UNKNOWN} if not known
     */
    public static Binding of(OperatingPoint point, boolean paused, CpuLoad cpu) {
        boolean jvmBusy = cpu.processLoad() >= CPU_BUSY;
        boolean machineBusy = cpu.machineLoad() >= CPU_BUSY;
        if (jvmBusy || machineBusy) {
            return new Binding(BindingConstraint.CPU, String.format(Locale.ROOT,
                    "worker JVM busy %.2f of %d cores (%s), machine %s", cpu.processCores(), cpu.availableCores(),
                    percent(cpu.processLoad()), percent(cpu.machineLoad())));
        }
        boolean waiting = recordsWait(point, paused);
        boolean nearCapacity = point.linkUtilisation() >= LINK_FULL;
        boolean windowFull = point.windowFullness() >= WINDOW_FULL;
        boolean linkFull = waiting && nearCapacity && (!windowFull || point.pathMeasuredAtBottleneck());
        boolean perBatchCosts = point.activePartitions() > MANY_PARTITIONS
                && point.recordsPerBatch() < FEW_RECORDS_PER_BATCH;
        if (linkFull) {
            return new Binding(BindingConstraint.LINK, String.format(Locale.ROOT,
                    "sending %s, %s of the %s the path carries (%s), %s", rate(point.sentWireBytesPerSecond()),
                    percent(point.linkUtilisation()), rate(point.pathCapacityBytesPerSecond()),
                    point.pathMeasuredAtBottleneck() ? "measured at its bottleneck" : "the most it delivered",
                    waitingWords(point, paused)));
        }
        if (waiting && windowFull) {
            boolean fullByBatches = batchShare(point) >= byteShare(point);
            return fullByBatches && perBatchCosts ? partitions(point, "; their batches fill the window")
                    : new Binding(BindingConstraint.ROUND_TRIP, String.format(Locale.ROOT,
                    "window %s full (%s) at %s, path peak %s, RTT %s", percent(point.windowFullness()),
                    fullByBatches ? point.inFlightBatches() + "/" + point.windowBatches() + " batches"
                            : bytes(point.inFlightBytes()) + " of " + bytes(point.windowBytes()),
                    rate(point.sentWireBytesPerSecond()), rate(point.peakDeliveredBytesPerSecond()),
                    millis(point.baseRttNanos() / 1e6)));
        }
        if (perBatchCosts) {
            return partitions(point, "");
        }
        return new Binding(BindingConstraint.NONE, String.format(Locale.ROOT,
                "sending %s, path peak %s; latency is the linger (%s) plus the round trip (%s)",
                rate(point.sentWireBytesPerSecond()), rate(point.peakDeliveredBytesPerSecond()),
                millis(point.lingerNanos() / 1e6), millis(point.baseRttNanos() / 1e6)));
    }

    /**
     * Whether records wait for more than their batch: the partitions are paused for backpressure, or
     * the backlog holds more than {@link #WAITING_FACTOR} times what the open batches hold.
     */
    public static boolean recordsWait(OperatingPoint point, boolean paused) {
        return paused || point.backlogBytes() > WAITING_FACTOR * point.openBatchBytes();
    }

    private static Binding partitions(OperatingPoint point, String more) {
        return new Binding(BindingConstraint.PARTITIONS, String.format(Locale.ROOT,
                "%,d partitions active at %.1f records per batch: each batch's fixed costs dominate%s",
                point.activePartitions(), point.recordsPerBatch(), more));
    }

    private static String waitingWords(OperatingPoint point, boolean paused) {
        return paused ? "partitions paused for backpressure" : bytes(point.backlogBytes()) + " waiting";
    }

    private static double batchShare(OperatingPoint point) {
        return point.windowBatches() > 0 ? (double) point.inFlightBatches() / point.windowBatches() : 0;
    }

    private static double byteShare(OperatingPoint point) {
        return point.windowBytes() > 0 ? (double) point.inFlightBytes() / point.windowBytes() : 0;
    }

    /** 4.9 MB/s: decimal megabytes, as the benchmarks and {@code ./jetstream explain} write rates. */
    static String rate(double bytesPerSecond) {
        if (Double.isNaN(bytesPerSecond)) {
            return "?";
        }
        double mb = bytesPerSecond / 1e6;
        return String.format(Locale.ROOT, mb >= 10 ? "%.0f MB/s" : mb >= 0.1 ? "%.1f MB/s" : "%.3f MB/s", mb);
    }

    /** 12 MiB, 512 KiB, 900 B */
    static String bytes(double n) {
        if (n >= 1 << 20) {
            return String.format(Locale.ROOT, "%.0f MiB", n / (1 << 20));
        }
        return n >= 1 << 10 ? String.format(Locale.ROOT, "%.0f KiB", n / (1 << 10))
                : String.format(Locale.ROOT, "%.0f B", n);
    }

    private static String millis(double ms) {
        return Double.isNaN(ms) ? "?" : String.format(Locale.ROOT, ms < 10 ? "%.1f ms" : "%.0f ms", ms);
    }

    private static String percent(double fraction) {
        return Double.isNaN(fraction) ? "?" : String.format(Locale.ROOT, "%.0f%%", 100 * fraction);
    }
}
