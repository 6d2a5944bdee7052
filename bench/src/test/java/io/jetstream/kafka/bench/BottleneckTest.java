package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class BottleneckTest {

    @Test
    void everyUsedUplinkFullIsTheLinkWhateverTheCpu() {
        String binds = Bottleneck.of(Map.of("a1", 0.98, "a2", 0.0, "a3", 0.01), 1.99, 2,
                Map.of("connect-A", 0.4), Map.of());
        assertThat(binds).startsWith("link: uplinks at a1 98% of their cap").contains("1.99 of 2 cores");
    }

    @Test
    void aBusyMachineWithRoomOnTheLinksIsTheCpuWithTheLargestProcessesAndTheirJit() {
        String binds = Bottleneck.of(Map.of("a1", 0.42, "a2", 0.38, "a3", 0.40), 1.95, 2,
                Map.of("connect-A", 0.32, "connect-B", 0.23, "broker-B", 0.22, "relay-a1", 0.08),
                Map.of("connect-A", 0.07, "broker-B", 0.0));
        assertThat(binds).startsWith("CPU: machine CPU 1.95 of 2 cores busy; most: connect-A 0.32 (JIT 0.07),"
                + " connect-B 0.23, broker-B 0.22").contains("uplinks at a1 42%, a2 38%, a3 40%")
                .doesNotContain("relay-a1");
    }

    @Test
    void oneFullUplinkAmongHalfEmptyOnesIsNotTheLink() {
        String binds = Bottleneck.of(Map.of("a1", 0.97, "a2", 0.40), 1.2, 2, Map.of("connect-A", 0.3), Map.of());
        assertThat(binds).startsWith("neither link nor CPU").contains("a1 97%", "a2 40%", "1.20 of 2 cores");
    }

    @Test
    void aLatencyPhaseOnAnIdleMachineIsTheReplicatorsOwnPacing() {
        assertThat(Bottleneck.of(Map.of("a1", 0.2), 0.9, 2, Map.of(), Map.of()))
                .isEqualTo("neither link nor CPU (the replicator's own pacing): uplinks at a1 20% of their cap,"
                        + " machine CPU 0.90 of 2 cores busy");
        assertThat(Bottleneck.of(Map.of("a1", 0.01), 0.5, 2, Map.of(), Map.of())).contains("no uplink used");
    }
}
