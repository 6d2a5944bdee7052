package io.jetstream.kafka.bench.wan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class NetDevCountersTest {

    @Test
    void readsReceiveAndTransmitBytesPerInterface() {
        NetDevCounters counters = NetDevCounters.parse(List.of(
                "Inter-|   Receive                                                |  Transmit",
                " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo"
                        + " colls carrier compressed",
                "    lo:       0       0    0    0    0     0          0         0        0       0    0    0    0"
                        + "     0       0          0",
                "wan-a1: 20282424    3456    0    0    0     0          0         0   231434    3501    0    0    0"
                        + "     0       0          0",
                "   dl0:1234567890123 9 0 0 0 0 0 0 42 1 0 0 0 0 0 0"));

        assertThat(counters.rxBytes()).containsEntry("wan-a1", 20_282_424L).containsEntry("lo", 0L)
                .containsEntry("dl0", 1_234_567_890_123L);
        assertThat(counters.txBytes()).containsEntry("wan-a1", 231_434L).containsEntry("dl0", 42L);
        assertThat(counters.has("wan-a1")).isTrue();
        assertThat(counters.has("wan-b1")).isFalse();
        assertThat(counters.rxBytes()).hasSize(3);
    }
}
