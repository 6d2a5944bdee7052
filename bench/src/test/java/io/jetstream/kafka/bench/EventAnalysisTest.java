package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class EventAnalysisTest {

    private static TaskMetricsReader.Sample sample(long millis, String task, double records, double batches) {
        return new TaskMetricsReader.Sample(millis, "js-source-x", task,
                Map.of("records-in-total", records, "batches-sent-total", batches));
    }

    @Test
    void recordsPerBatchSumsTheTasksPerWindowAndCountsARestartedTaskFromZero() {
        List<TaskMetricsReader.Sample> samples = List.of(
                sample(0, "0", 0, 0), sample(500, "0", 100, 10), sample(1000, "0", 200, 20),
                sample(0, "1", 0, 0), sample(500, "1", 300, 10), sample(1000, "1", 600, 20),
                // task 0 restarted: its counters start again at 0
                sample(1500, "0", 40, 1), sample(2000, "0", 80, 2),
                new TaskMetricsReader.Sample(1500, "other-connector", "0", Map.of("records-in-total", 9e9,
                        "batches-sent-total", 1.0)));

        List<double[]> series = EventAnalysis.recordsPerBatch(samples, "js-source-x", 0, 1000);

        // window 0: the deltas at 500 ms (100/10 and 300/10); window 1: at 1000 and 1500 ms; window 2: 2000 ms
        assertThat(series).hasSize(3);
        assertThat(series.get(0)[1]).isEqualTo(400 / 20.0);
        assertThat(series.get(1)[1]).isEqualTo((100 + 300 + 40) / 21.0, within(1e-9));
        assertThat(series.get(2)[0]).isEqualTo(2.0);
        assertThat(series.get(2)[1]).isEqualTo(40.0);
    }

    private static List<double[]> steadyThen(double steady, double... after) {
        List<double[]> series = new ArrayList<>();
        for (int s = 0; s < 10; s++) {
            series.add(new double[] {s, steady, 10});
        }
        for (int i = 0; i < after.length; i++) {
            series.add(new double[] {10 + i, after[i], 10});
        }
        return series;
    }

    @Test
    void recoveryIsTheFirstOfTwoWindowsBackWithinTwentyPercentOfTheSteadyValue() {
        // event at 10 s: small batches, one window back in the band alone, then back for good from 14 s
        EventAnalysis.Recovery r = EventAnalysis.recovery(steadyThen(10, 2, 5, 9, 3, 9, 11, 10), 10, 17, 1);

        assertThat(r.before()).isEqualTo(10.0);
        assertThat(r.rightAfter()).isEqualTo(2.0);
        assertThat(r.recoveryS()).isEqualTo(4.0);
        assertThat(r.after()).isEqualTo(10.0);
    }

    @Test
    void batchesThatNeverComeBackHaveNoRecoveryTime() {
        EventAnalysis.Recovery r = EventAnalysis.recovery(steadyThen(10, 40, 30, 20, 15), 10, 14, 1);

        assertThat(r.recoveryS()).isNull();
        assertThat(r.rightAfter()).isEqualTo(40.0);
        assertThat(EventAnalysis.recovery(List.of(), 10, 14, 1).before()).isNull();
    }

    @Test
    void theWindowAnEventFallsInIsItsFirstNotPartOfTheSteadyValueBeforeIt() {
        // applied 4 ms after its second; the backlog it causes drains within that second's window
        EventAnalysis.Recovery r = EventAnalysis.recovery(steadyThen(5, 40, 5, 5), 10.004, 13.002, 1);

        assertThat(r.before()).isEqualTo(5.0);
        assertThat(r.rightAfter()).isEqualTo(40.0);
        assertThat(r.recoveryS()).isEqualTo(1.0);
        assertThat(r.after()).isEqualTo(5.0);
    }

    @Test
    void aGapBetweenWindowsBreaksTheStableRun() {
        List<double[]> series = steadyThen(10);
        series.add(new double[] {11, 10, 10});
        series.add(new double[] {13, 10, 10});
        series.add(new double[] {14, 10, 10});

        assertThat(EventAnalysis.recovery(series, 10, 20, 1).recoveryS()).isEqualTo(3.0);
    }

    @Test
    void routeSharesComeFromTheCounterDeltasAndSkipReadingsWithoutTheRelay() {
        List<EventAnalysis.RoutePoint> points = List.of(
                new EventAnalysis.RoutePoint(0, Map.of("direct", 0L, "via-a2", 0L)),
                new EventAnalysis.RoutePoint(500, Map.of("direct", 100L, "via-a2", 100L)),
                new EventAnalysis.RoutePoint(1000, Map.of()),
                new EventAnalysis.RoutePoint(1500, Map.of("direct", 400L, "via-a2", 100L)),
                new EventAnalysis.RoutePoint(2000, Map.of("direct", 700L, "via-a2", 200L)));

        TreeMap<Double, Map<String, Double>> shares = EventAnalysis.routeShares(points, 0, 1000);

        assertThat(shares.get(0.0)).containsEntry("direct", 0.5).containsEntry("via-a2", 0.5);
        // 1000 ms broke the chain; 1500 -> 2000 lands in window 2
        assertThat(shares).doesNotContainKey(1.0);
        assertThat(shares.get(2.0).get("direct")).isEqualTo(0.75);
        // over two trailing windows: window 2 also holds window 0's bytes (window 1 had none)
        TreeMap<Double, Map<String, Double>> smooth = EventAnalysis.routeShares(points, 0, 1000, 3);
        assertThat(smooth.get(2.0).get("direct")).isEqualTo(400 / 600.0, within(1e-9));
    }

    @Test
    void theBestStaticSplitIsProportionalToTheCapsAndMatchIsOneMinusTotalVariation() {
        Map<String, Double> best = EventAnalysis.proportional(Map.of("direct", 40L, "via-a2", 10L, "via-a3", 40L));
        assertThat(best.get("via-a2")).isEqualTo(0.111);
        assertThat(EventAnalysis.match(Map.of("a", 0.5, "b", 0.5), Map.of("a", 0.5, "b", 0.5))).isEqualTo(1.0);
        assertThat(EventAnalysis.match(Map.of("a", 1.0), Map.of("b", 1.0))).isEqualTo(0.0);
        assertThat(EventAnalysis.match(Map.of("a", 0.6, "b", 0.4), Map.of("a", 0.5, "b", 0.5)))
                .isEqualTo(0.9, within(1e-9));
    }

    @Test
    void theBestStaticSplitAfterADelayFillsTheShorterRoutesToTheirHeadroomFirst() {
        Map<String, Long> caps = Map.of("direct", 5L, "via-a2", 5L, "via-a3", 5L);
        // 9 of 15 carried: direct and via-a2 take 80% of their 5 each, the delayed via-a3 the 1 left
        assertThat(EventAnalysis.fastestFirst(caps, Map.of("via-a3", 40L), 9, 0.8))
                .containsEntry("direct", 0.444).containsEntry("via-a2", 0.444).containsEntry("via-a3", 0.111);
        // equal delays, or a load the shorter routes cannot carry with headroom: in proportion to the caps
        assertThat(EventAnalysis.fastestFirst(Map.of("direct", 40L, "via-a2", 10L, "via-a3", 40L), Map.of(), 30, 0.8))
                .isEqualTo(EventAnalysis.proportional(Map.of("direct", 40L, "via-a2", 10L, "via-a3", 40L)));
        assertThat(EventAnalysis.fastestFirst(caps, Map.of("via-a3", 40L), 13, 0.8)).containsEntry("via-a3", 0.333);
        // a light load stays off the delayed route; three delays fill in their order
        assertThat(EventAnalysis.fastestFirst(caps, Map.of("via-a3", 40L), 6, 0.8)).containsEntry("via-a3", 0.0);
        assertThat(EventAnalysis.fastestFirst(caps, Map.of("via-a2", 10L, "via-a3", 40L), 10, 0.8))
                .containsEntry("direct", 0.4).containsEntry("via-a2", 0.4).containsEntry("via-a3", 0.2);
    }

    @Test
    void timeToMatchNeedsTwoConsecutiveWindowsAtNinetyFivePercent() {
        Map<String, Double> best = Map.of("a", 0.8, "b", 0.2);
        TreeMap<Double, Map<String, Double>> shares = new TreeMap<>();
        shares.put(10.0, Map.of("a", 0.5, "b", 0.5));
        shares.put(11.0, Map.of("a", 0.78, "b", 0.22));
        shares.put(12.0, Map.of("a", 0.6, "b", 0.4));
        shares.put(13.0, Map.of("a", 0.79, "b", 0.21));
        shares.put(14.0, Map.of("a", 0.81, "b", 0.19));

        assertThat(EventAnalysis.timeToMatch(shares, best, 10, 20, 1)).isEqualTo(3.0);
        assertThat(EventAnalysis.timeToMatch(shares, best, 10, 14, 1)).isNull();
        assertThat(EventAnalysis.meanShare(shares, "a", 13, 15)).isEqualTo(0.8);
        assertThat(EventAnalysis.meanMatch(shares, best, 13, 15)).isEqualTo(0.99);
    }

    @Test
    void aFlapIsAMoveBeyondTheBandAgainstThePreviousMove() {
        assertThat(EventAnalysis.flaps(List.of(0.33, 0.25, 0.15, 0.11, 0.12, 0.10, 0.11))).isZero();
        assertThat(EventAnalysis.flaps(List.of(0.33, 0.11, 0.25, 0.10, 0.11))).isEqualTo(2);
        assertThat(EventAnalysis.flaps(List.of(0.33, 0.11, 0.19, 0.11))).as("within the band").isZero();
        assertThat(EventAnalysis.flaps(List.of())).isZero();
    }
}
