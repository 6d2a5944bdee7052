package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LoopbackNetworkTest {

    @Test
    void reshapingGivesEveryLinkTheNewCapAndDelayAndTheReportSaysSo() {
        try (LoopbackNetwork network = new LoopbackNetwork(5_000_000, Duration.ofMillis(5), "test")) {
            InetSocketAddress target = new InetSocketAddress("127.0.0.1", 9);
            InetSocketAddress before = network.toSiteB("a1", target);
            network.setUplinkRate("a1", 1_000_000);

            network.reshape(10_000_000, Duration.ofMillis(75));

            assertThat(network.uplinkBytesPerSecond()).isEqualTo(1_250_000);
            assertThat(network.oneWayDelay()).isEqualTo(Duration.ofMillis(75));
            assertThat(network.describe()).containsEntry("uplink_mbit_s", 10.0).containsEntry("one_way_delay_ms", 75L);
            assertThat(network.toSiteB("a1", target)).as("the link made before is kept, reshaped").isEqualTo(before);
        }
    }

    @Test
    void aNegativeDelayIsRefusedAndNothingChanges() {
        try (LoopbackNetwork network = new LoopbackNetwork(5_000_000, Duration.ofMillis(25), "test")) {
            assertThatThrownBy(() -> network.reshape(40_000_000, Duration.ofMillis(-1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one-way delay");
            assertThat(network.oneWayDelay()).isEqualTo(Duration.ofMillis(25));
            assertThat(network.uplinkBytesPerSecond()).isEqualTo(5_000_000);
        }
    }
}
