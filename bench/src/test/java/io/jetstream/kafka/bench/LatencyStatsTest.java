package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class LatencyStatsTest {

    @Test
    void percentilesUseTheNearestRank() {
        int[] values = new int[1000];
        for (int i = 0; i < values.length; i++) {
            values[i] = 1000 - i; // 1..1000, unsorted
        }
        LatencyStats stats = LatencyStats.of(values);
        assertThat(stats.count()).isEqualTo(1000);
        assertThat(stats.p50()).isEqualTo(500);
        assertThat(stats.p99()).isEqualTo(990);
        assertThat(stats.p999()).isEqualTo(999);
        assertThat(stats.max()).isEqualTo(1000);
        assertThat(stats.mean()).isEqualTo(500.5);
    }

    @Test
    void smallSamplesTakeTheLargestValueForHighPercentiles() {
        LatencyStats stats = LatencyStats.of(new int[] {30, 10, 20});
        assertThat(stats.p50()).isEqualTo(20);
        assertThat(stats.p99()).isEqualTo(30);
        assertThat(stats.p999()).isEqualTo(30);
        assertThat(LatencyStats.percentile(new int[] {7}, 50)).isEqualTo(7);
    }

    @Test
    void noValuesGiveZeros() {
        assertThat(LatencyStats.of(new int[0])).isEqualTo(LatencyStats.EMPTY);
        assertThat(LatencyStats.cdf(new int[0], 10)).isEmpty();
    }

    @Test
    void theCdfRisesToOneAtTheMaximum() {
        int[] values = {5, 1, 4, 2, 3, 10, 9, 8, 7, 6};
        List<double[]> cdf = LatencyStats.cdf(values, 5);
        assertThat(cdf).hasSize(5);
        assertThat(cdf.get(0)).containsExactly(2.0, 0.2);
        assertThat(cdf.get(cdf.size() - 1)).containsExactly(10.0, 1.0);
        for (int i = 1; i < cdf.size(); i++) {
            assertThat(cdf.get(i)[0]).isGreaterThanOrEqualTo(cdf.get(i - 1)[0]);
            assertThat(cdf.get(i)[1]).isGreaterThan(cdf.get(i - 1)[1]);
        }
    }

    @Test
    void latencyOverTimeGivesTheMedianAndMaximumOfEachSecond() {
        long start = 10_000;
        long[] arrivals = {10_100, 10_500, 10_900, 11_200, 11_300, 13_050};
        int[] latencies = {50, 70, 60, 300, 100, 40};
        List<double[]> points = LatencyStats.overTime(arrivals, latencies, start, 1000);

        assertThat(points).hasSize(3);
        assertThat(points.get(0)).containsExactly(1.0, 60.0, 70.0);
        assertThat(points.get(1)).containsExactly(2.0, 100.0, 300.0);
        assertThat(points.get(2)).containsExactly(4.0, 40.0, 40.0);
    }
}
