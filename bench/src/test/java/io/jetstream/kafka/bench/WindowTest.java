package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WindowTest {

    private static final long TICKS = 100;

    private static Reading reading(double seconds, long a1, long a2, long connectTicks, Long relayTicks, long busy,
                                   long atB) {
        Map<String, Long> processes = relayTicks == null ? Map.of("connect-A", connectTicks)
                : Map.of("connect-A", connectTicks, "relay-a1", relayTicks);
        // a tenth of connect-A's ticks are its JIT compilers'
        return new Reading((long) (seconds * 1e9), Map.of("a1", a1, "a2", a2), processes,
                Map.of("connect-A", connectTicks / 10), new ProcStat.MachineTicks(busy, busy * 2), atB);
    }

    @Test
    void ratesAreDeltasOverTheWindow() {
        Reading from = reading(10, 1_000_000, 0, 500, 100L, 10_000, 0);
        Reading to = reading(12, 11_000_000, 5_000_000, 650, 120L, 10_300, 20_000_000);
        Window window = Window.between(from, to, TICKS);

        assertThat(window.seconds()).isCloseTo(2.0, within(1e-9));
        assertThat(window.uplinkBytes()).containsEntry("a1", 10_000_000L).containsEntry("a2", 5_000_000L);
        assertThat(window.uplinkMbPerSecond().get("a1")).isCloseTo(5.0, within(1e-9));
        assertThat(window.wireMbPerSecond()).isCloseTo(7.5, within(1e-9));
        assertThat(window.wireBytes()).isEqualTo(15_000_000L);
        // 150 ticks at 100 ticks/s = 1.5 CPU seconds in 2 s = 0.75 cores
        assertThat(window.cores().get("connect-A")).isCloseTo(0.75, within(1e-9));
        assertThat(window.jitCores().get("connect-A")).isCloseTo(0.075, within(1e-9));
        assertThat(window.jitCores()).doesNotContainKey("relay-a1");
        assertThat(window.cpuSecondsOf(List.of("connect-A", "relay-a1", "not-running"))).isCloseTo(1.7, within(1e-9));
        assertThat(window.machineBusyCores()).isCloseTo(1.5, within(1e-9));
        assertThat(window.recordMbPerSecondAtB()).isCloseTo(10.0, within(1e-9));
    }

    @Test
    void aProcessStartedOrRestartedInTheWindowIsLeftOut() {
        Reading from = reading(0, 0, 0, 500, null, 0, 0);
        Reading to = reading(1, 0, 0, 100, 50L, 0, 0); // connect-A restarted: fewer ticks than before
        Window window = Window.between(from, to, TICKS);
        assertThat(window.cores()).isEmpty();
        assertThat(window.jitCores()).isEmpty();
    }

    @Test
    void timelinesPlotOnePointPerPairOfReadingsWithStoppedProcessesAtZero() {
        List<Reading> readings = List.of(
                reading(0, 0, 0, 0, 0L, 0, 0),
                reading(0.5, 2_500_000, 0, 25, 10L, 50, 1_000_000),
                reading(1.0, 5_000_000, 0, 50, null, 100, 2_000_000));
        VariantResult.Timeline timeline = Timelines.of(readings, 0, TICKS, Map.of("resumed", 0.5));

        assertThat(timeline.seconds()).containsExactly(0.5, 1.0);
        assertThat(timeline.uplinkMbS().get("a1")).containsExactly(5.0, 5.0);
        assertThat(timeline.arrivalsMbS()).containsExactly(2.0, 2.0);
        assertThat(timeline.cores().get("connect-A")).containsExactly(0.5, 0.5);
        assertThat(timeline.cores().get("relay-a1")).containsExactly(0.2, 0.0);
        assertThat(timeline.machineCores()).containsExactly(1.0, 1.0);
        assertThat(timeline.marks()).containsEntry("resumed", 0.5);
    }

    @Test
    void readingsTooCloseTogetherAreMergedIntoTheNextPoint() {
        List<Reading> readings = List.of(
                reading(0, 0, 0, 0, null, 0, 0),
                reading(0.5, 2_500_000, 0, 25, null, 50, 0),
                reading(0.51, 2_550_000, 0, 27, null, 52, 0), // a timer catching up: 10 ms later
                reading(1.0, 5_000_000, 0, 50, null, 100, 0));
        VariantResult.Timeline timeline = Timelines.of(readings, 0, TICKS, Map.of());

        assertThat(timeline.seconds()).containsExactly(0.5, 1.0);
        assertThat(timeline.cores().get("connect-A")).containsExactly(0.5, 0.5);
        assertThat(timeline.machineCores()).containsExactly(1.0, 1.0);
    }
}
