package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EnvironmentGridTest {

    @TempDir
    Path dir;

    private static final EnvironmentGrid.Cell BASE = EnvironmentGrid.cells(false).get(0);

    @Test
    void theFullGridMovesEveryAxisToEachOfItsOtherValuesFromTheDefaultCell() {
        List<EnvironmentGrid.Cell> cells = EnvironmentGrid.cells(false);

        assertThat(cells).hasSizeBetween(10, 12);
        assertThat(BASE.name()).isEqualTo("default");
        assertThat(cells.stream().map(EnvironmentGrid.Cell::uplinkBitsPerSecond).collect(Collectors.toSet()))
                .containsExactlyInAnyOrder(10_000_000L, 40_000_000L, 200_000_000L);
        assertThat(cells.stream().map(EnvironmentGrid.Cell::oneWayDelayMs).collect(Collectors.toSet()))
                .containsExactlyInAnyOrder(5, 25, 75);
        assertThat(cells.stream().map(EnvironmentGrid.Cell::valueBytes).collect(Collectors.toSet()))
                .containsExactlyInAnyOrder(100, 1024, 16384);
        assertThat(cells.stream().map(EnvironmentGrid.Cell::partitions).collect(Collectors.toSet()))
                .containsExactlyInAnyOrder(6, 1200);
        // each non-default value also appears alone (every other axis at its default)
        for (EnvironmentGrid.Cell c : cells.subList(1, 8)) {
            int moved = (c.uplinkBitsPerSecond() != BASE.uplinkBitsPerSecond() ? 1 : 0)
                    + (c.oneWayDelayMs() != BASE.oneWayDelayMs() ? 1 : 0) + (c.valueBytes() != BASE.valueBytes() ? 1 : 0)
                    + (c.partitions() != BASE.partitions() ? 1 : 0);
            assertThat(moved).as(c.name()).isEqualTo(1);
        }
        assertThat(cells.stream().map(EnvironmentGrid.Cell::name).collect(Collectors.toSet())).hasSize(cells.size());
    }

    @Test
    void aCellsPlanOffersTenPercentOfTheLinkAtLowLoadAndABacklogSizedToTheLink() {
        BenchPlan base = BenchPlan.defaults("wan", false, dir, "./jetstream bench wan --scenario grid");
        EnvironmentGrid.Cell thin = EnvironmentGrid.cells(false).stream().filter(c -> c.name().equals("up10"))
                .findFirst().orElseThrow();

        BenchPlan plan = EnvironmentGrid.plan(thin, base, false, false);

        // 10% of 1.25 MB/s in records of 1,094 bytes: 114 records/s, long enough for 1,000 records
        assertThat(plan.latencyRate()).isEqualTo(114);
        assertThat(plan.latencyPhase().toSeconds()).isEqualTo(10L);
        assertThat(plan.warmup()).as("no settling steps: the grid must fit its hour").isLessThan(CompilerSettling.STEP);
        assertThat(plan.warmupBurstBytes()).isEqualTo(plan.backlogBytes() / 4);
        assertThat(plan.uplinkBitsPerSecond()).isEqualTo(10_000_000L);
        assertThat(plan.backlogBytes()).isEqualTo(21_250_000L);
        EnvironmentGrid.Cell fat = EnvironmentGrid.cells(false).stream().filter(c -> c.name().equals("up200"))
                .findFirst().orElseThrow();
        assertThat(EnvironmentGrid.plan(fat, base, false, false).backlogBytes())
                .as("10 s of a 200 Mbit/s uplink: a drain long enough that its start-up does not decide it")
                .isEqualTo(425_000_000L);
        assertThat(plan.idlePhase()).isZero();
        assertThat(plan.outputDir()).isEqualTo(dir.resolve("up10"));
        assertThat(plan.variants()).as("only the grid's first cell runs the warm-up rounds").containsExactly(
                "js-1route-fixed-large", "js-1route", "js-1route-fixed-medium", "js-1route-again", "mm2-tuned-once");
        BenchPlan first = EnvironmentGrid.plan(thin, base, false, true);
        assertThat(EnvironmentGrid.inOrder(first).stream().map(Variant::id).toList())
                .as("the run order: every warm-up round before what it warms, the defaults around fixed-medium")
                .containsExactly("js-warmup", "js-warmup-again", "js-1route-fixed-large", "js-1route",
                        "js-1route-fixed-medium", "js-1route-again", "mm2-warmup", "mm2-tuned-once");

        EnvironmentGrid.Cell small = EnvironmentGrid.cells(false).stream().filter(c -> c.name().equals("r100-p1200"))
                .findFirst().orElseThrow();
        BenchPlan smallPlan = EnvironmentGrid.plan(small, base, false, false);
        assertThat(smallPlan.valueBytes()).isEqualTo(100);
        assertThat(smallPlan.partitions()).isEqualTo(1200);
        assertThat(smallPlan.latencyPhase()).as("a p99 that one second's hump does not decide, at 1,200 partitions")
                .isEqualTo(Duration.ofSeconds(30));
        assertThat(smallPlan.recordsFor(smallPlan.backlogBytes())).isLessThanOrEqualTo(500_000);
        assertThat(smallPlan.variants())
                .as("MM2's tuning differs at 1,200 partitions: both run; fixed-medium runs twice there, as the defaults")
                .containsExactly("js-1route-fixed-large", "js-1route", "js-1route-fixed-medium", "js-1route-again",
                        "js-1route-fixed-medium-again", "mm2-tuned-once", "mm2-tuned-src");
        assertThat(EnvironmentGrid.inOrder(smallPlan).stream().map(Variant::id).toList())
                .containsExactly("js-1route-fixed-large", "js-1route", "js-1route-fixed-medium", "js-1route-again",
                        "js-1route-fixed-medium-again", "mm2-tuned-once", "mm2-tuned-src");
    }

    @Test
    void theVerdictComparesTheDefaultsWithTheBestFixedSettingAndMm2OnceWithMm2ForTheCell() {
        List<EnvironmentGrid.Row> rows = List.of(
                row("js-1route", 8.0, 120), row("js-1route-fixed-medium", 6.0, 100), row("js-1route-fixed-large", 8.5, 300),
                row("mm2-tuned-dst", 7.9, 110), row("mm2-tuned-once", 2.0, 4000), row("mm2-tuned-src", 7.0, 150));

        EnvironmentGrid.Verdict v = EnvironmentGrid.verdict("c", rows);

        assertThat(v.bestFixedThroughput()).isEqualTo("js-1route-fixed-large");
        assertThat(v.throughputVsBest()).isEqualTo(0.941);
        assertThat(v.bestFixedP99()).isEqualTo("js-1route-fixed-medium");
        assertThat(v.p99VsBest()).isEqualTo(0.833);
        assertThat(v.defaultsWithinTenPercent()).isFalse();
        assertThat(v.mm2OnceVsCell()).isEqualTo(0.286);
        assertThat(v.defaultsVsMm2Once()).isEqualTo(4.0);
        assertThat(v.allDelivered()).isTrue();
        assertThat(EnvironmentGrid.line(v)).startsWith("CELL cell=c defaults_record_mb_s=8.00 defaults_p99_ms=120 defaults_throughput_vs_best_fixed=0.94"
                + " (best js-1route-fixed-large) defaults_p99_vs_best_fixed=0.83 (best js-1route-fixed-medium)");
    }

    @Test
    void theDefaultsAreJudgedOnTheMeanOfTheirTwoRunsOrOnTheOneThatDelivered() {
        List<EnvironmentGrid.Row> rows = List.of(
                row("js-1route", 7.0, 130), row("js-1route-fixed-medium", 8.0, 100), row("js-1route-fixed-large", 7.5, 300),
                row("js-1route-again", 8.6, 104), row("mm2-tuned-once", 7.8, 90));

        EnvironmentGrid.Verdict v = EnvironmentGrid.verdict("c", rows);

        assertThat(v.defaultsRecordMbS()).isEqualTo(7.8, org.assertj.core.api.Assertions.within(1e-9));
        assertThat(v.defaultsP99Ms()).isEqualTo(117);
        assertThat(v.bestFixedThroughput()).isEqualTo("js-1route-fixed-medium");
        assertThat(v.throughputVsBest()).isEqualTo(0.975);
        assertThat(v.bestFixedP99()).isEqualTo("js-1route-fixed-medium");
        assertThat(v.p99VsBest()).isEqualTo(0.855);
        assertThat(v.defaultsVsMm2Once()).isEqualTo(1.0);
        assertThat(EnvironmentGrid.line(v)).startsWith("CELL cell=c defaults_record_mb_s=7.80 defaults_p99_ms=117 ");

        List<EnvironmentGrid.Row> oneFailed = new ArrayList<>(List.of(row("js-1route-fixed-medium", 8.0, 100),
                row("js-1route-again", 8.6, 104)));
        oneFailed.add(new EnvironmentGrid.Row("c", "js-1route", 0, 0, 0, 0, 0, 0, 0, 0, false, "-", "timeout"));
        EnvironmentGrid.Verdict second = EnvironmentGrid.verdict("c", oneFailed);
        assertThat(second.defaultsP99Ms()).as("the run that delivered").isEqualTo(104);
        assertThat(second.bestFixedThroughput()).isEqualTo("js-1route");
        assertThat(second.throughputVsBest()).isEqualTo(1.0);
        assertThat(second.allDelivered()).isFalse();
    }

    @Test
    void whereFixedMediumRanTwiceItIsJudgedOnTheMeanOfItsRunsAsTheDefaultsAre() {
        List<EnvironmentGrid.Row> rows = List.of(
                row("js-1route-fixed-large", 7.5, 300), row("js-1route", 8.0, 110), row("js-1route-fixed-medium", 8.0, 100),
                row("js-1route-again", 8.0, 250), row("js-1route-fixed-medium-again", 8.0, 240), row("mm2-tuned-once", 7.8, 90));

        EnvironmentGrid.Verdict v = EnvironmentGrid.verdict("c", rows);

        assertThat(v.defaultsP99Ms()).isEqualTo(180);
        assertThat(v.bestFixedP99()).isEqualTo("js-1route-fixed-medium");
        assertThat(v.p99VsBest()).as("170 ms (mean of 100 and 240) against 180, not 100 against 180").isEqualTo(0.944);
        assertThat(v.defaultsWithinTenPercent()).isTrue();
    }

    @Test
    void withoutMm2RetunedTheOnceTunedConfigurationIsTheCellsAndAFailedVariantCountsAsNotDelivered() {
        List<EnvironmentGrid.Row> rows = new ArrayList<>(List.of(row("js-1route", 8.0, 120), row("mm2-tuned-once", 7.0, 150)));
        rows.add(new EnvironmentGrid.Row("c", "js-1route-fixed-medium", 0, 0, 0, 0, 0, 0, 0, 0, false, "-", "timeout"));

        EnvironmentGrid.Verdict v = EnvironmentGrid.verdict("c", rows);

        assertThat(v.mm2OnceVsCell()).isEqualTo(1.0);
        assertThat(v.throughputVsBest()).as("the defaults are the only fixed setting that delivered").isEqualTo(1.0);
        assertThat(v.allDelivered()).isFalse();

        List<EnvironmentGrid.Row> retunedFailed = new ArrayList<>(List.of(row("js-1route", 8.0, 120),
                row("mm2-tuned-once", 3.0, 400)));
        retunedFailed.add(new EnvironmentGrid.Row("c", "mm2-tuned-src", 0, 0, 0, 0, 0, 0, 0, 0, false, "-", "timeout"));
        assertThat(EnvironmentGrid.verdict("c", retunedFailed).mm2OnceVsCell())
                .as("a failed retuned run is not replaced by MM2 once").isNaN();
    }

    @Test
    void rowsComeFromACellsRunAndTheReportWritesTheTablesAndALinePerRowAndCell() throws Exception {
        BenchResult run = Fixtures.result(List.of(Fixtures.variant("js-1route", "jetstream", "zstd", 8.0, 650, 0.061, 109),
                Fixtures.failed("mm2-tuned-once")));
        List<EnvironmentGrid.Row> rows = EnvironmentGrid.rows(BASE, run);
        assertThat(rows).hasSize(2);
        assertThat(rows.get(0).ok()).isTrue();
        assertThat(rows.get(0).p99Ms()).isEqualTo(109);
        assertThat(rows.get(0).binds()).startsWith("link:");
        assertThat(rows.get(0).steadyJitCores()).as("the latency phase's JIT cores, summed").isEqualTo(0.01);
        assertThat(rows.get(1).ok()).isFalse();

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<EnvironmentGrid.Verdict> verdicts = EnvironmentGrid.report(List.of(BASE), rows, dir, "cmd",
                new PrintStream(bytes, true, StandardCharsets.UTF_8));

        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertThat(printed).contains("GRID cell=default variant=js-1route record_mb_s=8.00",
                "GRID cell=default variant=mm2-tuned-once status=failed", "CELL cell=default");
        assertThat(verdicts).hasSize(1);
        assertThat(Files.readString(dir.resolve("grid.md"))).contains("| default | - | js-1route | 8.00 |",
                "failed: java.util.concurrent.TimeoutException");
        assertThat(Files.readString(dir.resolve("grid.json"))).contains("\"verdicts\"", "\"command_line\" : \"cmd\"");
    }

    @Test
    void theCellsAreTheOnesATaskComparesItselfWith() {
        // ./jetstream explain names the cell a running task resembles from core's copy of the grid
        assertThat(EnvironmentGrid.cells(false)).extracting(c -> c.name() + " " + c.uplinkBitsPerSecond() + " "
                + c.oneWayDelayMs() + " " + c.valueBytes() + " " + c.partitions())
                .containsExactlyElementsOf(io.jetstream.kafka.core.environment.GridCell.GRID.stream()
                        .map(c -> c.name() + " " + c.uplinkBitsPerSecond() + " " + c.oneWayDelayMs() + " "
                                + c.valueBytes() + " " + c.partitions()).toList());
    }

    @Test
    void cellsAreSelectedByNameInTheGridsOrder() {
        List<EnvironmentGrid.Cell> cells = EnvironmentGrid.cells(false);
        assertThat(EnvironmentGrid.select(cells, List.of("p1200", "d5")).stream().map(EnvironmentGrid.Cell::name))
                .containsExactly("d5", "p1200");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> EnvironmentGrid.select(cells, List.of("d7")))
                .hasMessageStartingWith("--cells: unknown [d7]; known: default, up10");
    }

    @Test
    void theQuickGridHasTwoSmallCellsOfTheDefaultsAndMm2Once() {
        List<EnvironmentGrid.Cell> cells = EnvironmentGrid.cells(true);
        BenchPlan base = BenchPlan.defaults("wan", true, dir, "x");

        assertThat(cells).hasSize(2);
        for (EnvironmentGrid.Cell c : cells) {
            BenchPlan plan = EnvironmentGrid.plan(c, base, true, c == cells.get(0));
            assertThat(plan.variants()).containsExactly("js-1route", "mm2-tuned-once");
            assertThat(plan.backlogBytes()).isLessThanOrEqualTo(8_000_000L);
        }
        assertThat(Set.of(cells.get(1).valueBytes(), cells.get(1).oneWayDelayMs())).containsExactlyInAnyOrder(100, 5);
    }

    private static EnvironmentGrid.Row row(String variant, double mbS, long p99) {
        return new EnvironmentGrid.Row("c", variant, mbS, mbS * 0.6, 0.05, 0.4, p99 / 2, p99, 0.3, 0.01, true, "link", null);
    }
}
