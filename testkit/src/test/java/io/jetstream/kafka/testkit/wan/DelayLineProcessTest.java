package io.jetstream.kafka.testkit.wan;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class DelayLineProcessTest {

    @Test
    void ringHoldsEverythingTheDesignRateBringsDuringTheDelay() {
        assertThat(DelayLineProcess.ringSlots(Duration.ZERO)).isEqualTo(4096);
        assertThat(DelayLineProcess.ringSlots(Duration.ofMillis(25))).isEqualTo(8192); // 4,500 needed
        assertThat(DelayLineProcess.ringSlots(Duration.ofMillis(100))).isEqualTo(16_384); // 12,000 needed
        assertThat(DelayLineProcess.ringSlots(Duration.ofSeconds(1))).isEqualTo(65_536); // capped
    }

    @Test
    void runsInTheCoreNamespaceWithTheDelayInMicroseconds() {
        assertThat(CommandRunner.render(DelayLineProcess.command(Path.of("/w/delayline-x"), "js-wan",
                Duration.ofNanos(25_000_999), DelayLineCpus.of(List.of(0, 1)), Path.of("/w/delayline-js.stats"))))
                .isEqualTo("ip netns exec js-wan /w/delayline-x --tun dl0 --delay-us 25000 --slots 8192"
                        + " --priority 50 --cpu 0 --stats-file /w/delayline-js.stats");
        assertThat(DelayLineProcess.command(Path.of("/w/delayline-x"), "js-wan", Duration.ofMillis(25),
                DelayLineCpus.NONE, Path.of("/w/s"))).doesNotContain("--cpu");
    }
}
