package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CompilerSettlingTest {

    /** A 10 s window in which each process used {@code jitSeconds} of JIT CPU (and twice that in all). */
    private static Window step(Map<String, Double> jitSeconds) {
        Map<String, Double> cpu = new java.util.TreeMap<>();
        jitSeconds.forEach((process, seconds) -> cpu.put(process, 2 * seconds + 1));
        return new Window(10, Map.of(), cpu, jitSeconds, 1.0, 0);
    }

    @Test
    void aWatchedProcessCompilingAtOrAboveTheThresholdIsNotSettled() {
        CompilerSettling settling = new CompilerSettling(List.of("connect-A", "broker-B"));

        Map<String, Double> busy = settling.stillCompiling(step(Map.of("connect-A", 1.5, "broker-B", 0.2,
                "bench-jvm", 3.0)));

        // 0.15 cores compiling in connect-A; broker-B's 0.02 is at the threshold; the bench's own JVM is not watched
        assertThat(busy).containsOnlyKeys("connect-A", "broker-B").containsEntry("connect-A", 0.15);
    }

    @Test
    void processesUnderTheThresholdOrNotSampledAreSettled() {
        CompilerSettling settling = new CompilerSettling(List.of("connect-A", "relay-b2"));

        assertThat(settling.stillCompiling(step(Map.of("connect-A", 0.19)))).isEmpty();
    }

    @Test
    void theSummarySaysHowLongItTookOrWhoStillCompiles() {
        assertThat(CompilerSettling.summary(3, Map.of())).contains("quiet").contains("after 30 s more");
        assertThat(CompilerSettling.summary(CompilerSettling.maxSteps(), Map.of("broker-B", 0.05)))
                .contains("still busy after 120 s more").contains("broker-B=0.05");
    }
}
