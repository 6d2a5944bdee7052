package io.jetstream.kafka.core.environment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class GridCellTest {

    private static final double MBIT = 1e6;

    private static GridMatch nearest(double uplinkMbit, boolean atLeast, double delayMs, double recordBytes,
                                     double partitions) {
        return GridCell.nearest(GridCell.GRID, new GridCell.Coordinates(uplinkMbit * MBIT, atLeast, delayMs,
                recordBytes, partitions));
    }

    @Test
    void theGridHoldsTheBenchsElevenCellsInItsOrder() {
        assertThat(GridCell.GRID).extracting(GridCell::name).containsExactly("default", "up10", "up200", "d5", "d75",
                "r100", "r16k", "p1200", "up10-d75", "up200-p1200", "r100-p1200");
        assertThat(GridCell.GRID.get(4)).isEqualTo(new GridCell("d75", "75 ms one way", 40_000_000L, 75, 1024, 6));
        assertThat(GridCell.GRID.get(0).uplinkBytesPerSecond()).isEqualTo(5e6);
    }

    @Test
    void everyCellMeasuredExactlyIsItsOwnNearestAtDistanceZeroDifferingOnNothing() {
        for (int i = 0; i < GridCell.GRID.size(); i++) {
            GridCell cell = GridCell.GRID.get(i);
            GridMatch match = GridCell.nearest(GridCell.GRID, new GridCell.Coordinates(cell.uplinkBitsPerSecond(),
                    false, cell.oneWayDelayMs(), cell.valueBytes(), cell.partitions()));
            assertThat(match.cell()).as(cell.name()).isEqualTo(cell);
            assertThat(match.index()).isEqualTo(i);
            assertThat(match.distance()).isZero();
            assertThat(match.differsOn()).isEmpty();
        }
    }

    @Test
    void sixteenKibRecordsOver75MsOneWayResembleTheLargeRecordsCellAndDifferOnTheDelay() {
        // the record axis moves 4 steps of log2 from d75, the delay axis 1.6 from r16k
        GridMatch match = nearest(40, false, 75, 16 << 10, 6);

        assertThat(match.cell().name()).isEqualTo("r16k");
        assertThat(match.distance()).isCloseTo(Math.log(3) / Math.log(2), within(1e-9));
        assertThat(match.differsOn()).containsExactly("one-way delay 75 ms measured");

        GridMatch lowLoad = nearest(12, true, 75, 16 << 10, 6);
        assertThat(lowLoad.cell().name()).as("an uplink of at least 12 Mbit/s fits 40").isEqualTo("r16k");
        assertThat(lowLoad.differsOn()).containsExactly("uplink at least 12 Mbit/s measured",
                "one-way delay 75 ms measured");
    }

    @Test
    void anUplinkKnownOnlyAsALowerBoundFitsEveryCellWithAtLeastThatMuchAndPrefersTheDefault() {
        GridMatch lightLoad = nearest(4, true, 25, 1024, 6);
        assertThat(lightLoad.cell().name()).as("not up10: 4 Mbit/s delivered says nothing against 40")
                .isEqualTo("default");
        assertThat(lightLoad.distance()).isZero();
        assertThat(lightLoad.differsOn()).containsExactly("uplink at least 4.0 Mbit/s measured");

        assertThat(nearest(4, false, 25, 1024, 6).cell().name()).as("a link seen full at 4 Mbit/s")
                .isEqualTo("up10");
        assertThat(nearest(90, true, 25, 1024, 6).cell().name()).as("at least 90 Mbit/s rules 40 out")
                .isEqualTo("up200");
        assertThat(nearest(12, true, 75, 1024, 6).differsOn()).as("the brief's example")
                .containsExactly("uplink at least 12 Mbit/s measured");
    }

    @Test
    void pairsOfMovedAxesFindTheirPairCells() {
        assertThat(nearest(9, false, 80, 1100, 6).cell().name()).isEqualTo("up10-d75");
        assertThat(nearest(40, false, 25, 130, 1000).cell().name()).isEqualTo("r100-p1200");
        assertThat(nearest(180, false, 25, 1024, 1200).cell().name()).isEqualTo("up200-p1200");
        GridMatch between = nearest(40, false, 25, 1024, 80);
        assertThat(between.cell().name()).as("80 partitions: log2 3.7 from 6, 3.9 from 1,200").isEqualTo("default");
        assertThat(between.differsOn()).containsExactly("80 partitions");
    }

    @Test
    void axesNotMeasuredYetCountForNothingAndAreSaidSo() {
        GridMatch match = nearest(Double.NaN, true, Double.NaN, Double.NaN, 6);

        assertThat(match.cell().name()).isEqualTo("default");
        assertThat(match.distance()).isZero();
        assertThat(match.differsOn()).containsExactly("uplink not measured yet", "one-way delay not measured yet",
                "record size not measured yet");
    }

    @Test
    void aSmallerListIsSearchedAsGiven() {
        List<GridCell> two = List.of(GridCell.GRID.get(3), GridCell.GRID.get(4));
        GridMatch match = GridCell.nearest(two, new GridCell.Coordinates(40 * MBIT, false, 30, 1024, 6));
        assertThat(match.cell().name()).as("30 ms is a factor 2.5 from 75, 6 from 5").isEqualTo("d75");
        assertThat(match.index()).isOne();
        assertThat(match.differsOn()).containsExactly("one-way delay 30 ms measured");
    }
}
