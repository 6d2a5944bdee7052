package io.jetstream.kafka.core.environment;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One cell of the benchmarks' environment grid ({@code ./jetstream bench wan --scenario grid},
 * docs/bench/2026-12-06-environment-grid.md): an uplink, a one-way delay, a record size and a partition
 * count. The grid says how each batching setting and MirrorMaker 2 fare in each cell; {@link #nearest}
 * tells a running deployment which cell it resembles, so that its verdicts can be read for that deployment.
 *
 * <p>{@link #GRID} holds the same eleven cells as the bench's {@code EnvironmentGrid.cells(false)}, in
 * the same order (the {@code resembles-grid-cell} gauge is an index into it); the bench keeps its own
 * copy because it also plans runs from them.
 *
 * @param name                short id, as the bench names the cell
 * @param moves               what differs from the default cell, in words
 * @param uplinkBitsPerSecond every host's uplink cap
 * @param oneWayDelayMs       one-way delay between the sites
 * @param valueBytes          value size of every record
 * @param partitions          partitions of the topic
 */
public record GridCell(String name, String moves, long uplinkBitsPerSecond, int oneWayDelayMs, int valueBytes,
                       int partitions) {

    /**
     * An axis differs when the measured value is further than this factor either way from the cell's:
     * about a third of the closest step of the grid (25 to 75 ms, a factor 3, in log scale), so a value
     * that sits between two cells is said to differ from both.
     */
    public static final double DIFFERS_FACTOR = 1.5;

    private static final long MBIT = 1_000_000L;

    /** The eleven cells: the default cell, each axis moved alone, and three pairs where two constraints meet. */
    public static final List<GridCell> GRID = List.of(
            new GridCell("default", "-", 40 * MBIT, 25, 1024, 6),
            new GridCell("up10", "10 Mbit/s", 10 * MBIT, 25, 1024, 6),
            new GridCell("up200", "200 Mbit/s", 200 * MBIT, 25, 1024, 6),
            new GridCell("d5", "5 ms one way", 40 * MBIT, 5, 1024, 6),
            new GridCell("d75", "75 ms one way", 40 * MBIT, 75, 1024, 6),
            new GridCell("r100", "100 B records", 40 * MBIT, 25, 100, 6),
            new GridCell("r16k", "16 KiB records", 40 * MBIT, 25, 16 << 10, 6),
            new GridCell("p1200", "1,200 partitions", 40 * MBIT, 25, 1024, 1200),
            new GridCell("up10-d75", "10 Mbit/s, 75 ms one way", 10 * MBIT, 75, 1024, 6),
            new GridCell("up200-p1200", "200 Mbit/s, 1,200 partitions", 200 * MBIT, 25, 1024, 1200),
            new GridCell("r100-p1200", "100 B records, 1,200 partitions", 40 * MBIT, 25, 100, 1200));

    public GridCell {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(moves, "moves");
    }

    /**
     * Where a deployment stands on the grid's axes. A value not measured yet is NaN and counts on no
     * axis.
     *
     * @param uplinkBitsPerSecond the uplink, or a lower bound of it ({@code uplinkAtLeast})
     * @param uplinkAtLeast       the uplink is only known to be at least this much: the link was never
     *                            seen full, so the highest rate it delivered is all that is known
     * @param oneWayDelayMs       half the base round trip
     * @param recordBytes         mean record size (key, value and headers: the grid's axis is the value,
     *                            the rest weighs little on a log scale)
     * @param partitions          partitions the task replicates
     */
    public record Coordinates(double uplinkBitsPerSecond, boolean uplinkAtLeast, double oneWayDelayMs,
                              double recordBytes, double partitions) {
    }

    /**
     * The cell of {@code cells} nearest to {@code at}: the smallest Euclidean distance over the axes'
     * log2 ratios (so 10 to 40 Mbit/s is as far as 40 to 160, and a factor 2 on any axis counts 1). An
     * uplink known only as a lower bound is as close as it can be to every cell with at least that
     * uplink (distance 0 on that axis), further from the others. Ties go to the cell listed first, so
     * with nothing known of an axis the default cell's value is assumed.
     *
     * @param cells not empty, e.g. {@link #GRID}
     */
    public static GridMatch nearest(List<GridCell> cells, Coordinates at) {
        if (cells.isEmpty()) {
            throw new IllegalArgumentException("no cells to choose from");
        }
        int best = 0;
        double bestDistance = Double.POSITIVE_INFINITY;
        for (int i = 0; i < cells.size(); i++) {
            double distance = cells.get(i).distance(at);
            if (distance < bestDistance) {
                best = i;
                bestDistance = distance;
            }
        }
        GridCell cell = cells.get(best);
        return new GridMatch(cell, best, bestDistance, cell.differences(at));
    }

    /** The distance from {@code at} to this cell (see {@link #nearest}). */
    double distance(Coordinates at) {
        double uplink = log2(at.uplinkBitsPerSecond() / uplinkBitsPerSecond);
        if (at.uplinkAtLeast()) {
            uplink = Math.max(0, uplink); // a cell with more uplink than the bound is consistent with it
        }
        return Math.sqrt(square(uplink) + square(log2(at.oneWayDelayMs() / oneWayDelayMs))
                + square(log2(at.recordBytes() / valueBytes)) + square(log2(at.partitions() / partitions)));
    }

    /** The axes on which {@code at} is further than {@link #DIFFERS_FACTOR} from this cell, or unknown, in words. */
    List<String> differences(Coordinates at) {
        List<String> differs = new ArrayList<>();
        double uplinkMbit = at.uplinkBitsPerSecond() / MBIT;
        if (Double.isNaN(uplinkMbit)) {
            differs.add("uplink not measured yet");
        } else if (differs(at.uplinkBitsPerSecond(), uplinkBitsPerSecond)) {
            differs.add(String.format(Locale.ROOT, at.uplinkAtLeast() ? "uplink at least %s Mbit/s measured"
                    : "uplink %s Mbit/s measured", figure(uplinkMbit)));
        }
        if (Double.isNaN(at.oneWayDelayMs())) {
            differs.add("one-way delay not measured yet");
        } else if (differs(at.oneWayDelayMs(), oneWayDelayMs)) {
            differs.add("one-way delay " + figure(at.oneWayDelayMs()) + " ms measured");
        }
        if (Double.isNaN(at.recordBytes())) {
            differs.add("record size not measured yet");
        } else if (differs(at.recordBytes(), valueBytes)) {
            differs.add(String.format(Locale.ROOT, "records of %.0f B measured", at.recordBytes()));
        }
        if (!Double.isNaN(at.partitions()) && differs(at.partitions(), partitions)) {
            differs.add(String.format(Locale.ROOT, "%.0f partitions", at.partitions()));
        }
        return differs;
    }

    /** Uplink capacity in bytes per second. */
    public double uplinkBytesPerSecond() {
        return uplinkBitsPerSecond / 8.0;
    }

    private static boolean differs(double measured, double cell) {
        double ratio = measured / cell;
        return ratio > DIFFERS_FACTOR || ratio < 1 / DIFFERS_FACTOR;
    }

    /** log2 of a ratio; 0 (no evidence either way) when it is not a positive finite number. */
    private static double log2(double ratio) {
        return ratio > 0 && Double.isFinite(ratio) ? Math.log(ratio) / Math.log(2) : 0;
    }

    private static double square(double x) {
        return x * x;
    }

    /** 12, 3.5, 0.40: about two significant digits. */
    private static String figure(double value) {
        return String.format(Locale.ROOT, value >= 10 ? "%.0f" : value >= 1 ? "%.1f" : "%.2f", value);
    }
}
