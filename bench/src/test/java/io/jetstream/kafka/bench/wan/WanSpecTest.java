package io.jetstream.kafka.bench.wan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class WanSpecTest {

    @Test
    void defaultsDescribeTheBenchmarkNetwork() {
        WanSpec spec = WanSpec.defaults();

        assertThat(spec.prefix()).isEqualTo("js");
        assertThat(spec.sourceHosts()).isEqualTo(3);
        assertThat(spec.destinationHosts()).isEqualTo(2);
        assertThat(spec.uplinkBitsPerSecond()).isEqualTo(40_000_000L);
        assertThat(spec.oneWayDelay()).isEqualTo(Duration.ofMillis(25));
        assertThat(spec.congestionControl()).isEqualTo("bbr");
    }

    @Test
    void withersChangeOneFieldEach() {
        WanSpec spec = WanSpec.defaults().withPrefix("jsit").withSourceHosts(1).withDestinationHosts(4)
                .withUplinkBitsPerSecond(10_000_000).withOneWayDelay(Duration.ofMillis(50)).withCongestionControl("reno");

        assertThat(spec).isEqualTo(new WanSpec("jsit", 1, 4, 10_000_000, Duration.ofMillis(50), "reno"));
    }

    @Test
    void hostCountIsPerSite() {
        assertThat(WanSpec.defaults().hostCount("A")).isEqualTo(3);
        assertThat(WanSpec.defaults().hostCount("B")).isEqualTo(2);
        assertThatThrownBy(() -> WanSpec.defaults().hostCount("C")).hasMessageContaining("site must be");
    }

    @Test
    void prefixMustKeepInterfaceNamesWithinFifteenCharacters() {
        assertThat(WanSpec.defaults().withPrefix("abcdef").prefix()).isEqualTo("abcdef");
        for (String bad : new String[] {"", "abcdefg", "JS", "1js", "js-", "j s"}) {
            assertThatThrownBy(() -> WanSpec.defaults().withPrefix(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("prefix must be 1-6 characters")
                    .hasMessageContaining("'" + bad + "'");
        }
    }

    @Test
    void hostCountsAreBounded() {
        assertThatThrownBy(() -> WanSpec.defaults().withSourceHosts(0))
                .hasMessage("sourceHosts must be within [1, 32], was 0");
        assertThatThrownBy(() -> WanSpec.defaults().withDestinationHosts(33))
                .hasMessage("destinationHosts must be within [1, 32], was 33");
    }

    @Test
    void uplinkRateIsBounded() {
        assertThatThrownBy(() -> WanSpec.defaults().withUplinkBitsPerSecond(99_999))
                .hasMessageContaining("uplink rate must be within [100000, 10000000000] bit/s, was 99999");
        assertThatThrownBy(() -> WanSpec.defaults().withUplinkBitsPerSecond(10_000_000_001L))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void delayIsBetweenZeroAndOneSecond() {
        assertThat(WanSpec.defaults().withOneWayDelay(Duration.ZERO).oneWayDelay()).isZero();
        assertThatThrownBy(() -> WanSpec.defaults().withOneWayDelay(Duration.ofMillis(-1)))
                .hasMessageContaining("oneWayDelay must be within [0, 1000 ms]");
        assertThatThrownBy(() -> WanSpec.defaults().withOneWayDelay(Duration.ofMillis(1001)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WanSpec.defaults().withOneWayDelay(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void congestionControlMustLookLikeAKernelName() {
        assertThatThrownBy(() -> WanSpec.defaults().withCongestionControl("bbr; reboot"))
                .hasMessageContaining("congestionControl must be a kernel congestion control name");
        assertThatThrownBy(() -> WanSpec.defaults().withCongestionControl(""))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
