package io.jetstream.kafka.bench.wan;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
                Duration.ofNanos(25_000_999), DelayLineCpus.of(List.of(0, 1)), Path.of("/w/delayline-js.stats"),
                Path.of("/w/delayline-js.delays"))))
                .isEqualTo("ip netns exec js-wan /w/delayline-x --tun dl0 --delay-us 25000 --slots 16384"
                        + " --priority 50 --cpu 0 --stats-file /w/delayline-js.stats"
                        + " --control-file /w/delayline-js.delays");
        assertThat(DelayLineProcess.command(Path.of("/w/delayline-x"), "js-wan", Duration.ofMillis(25),
                DelayLineCpus.NONE, Path.of("/w/s"), Path.of("/w/d"))).doesNotContain("--cpu");
    }

    @Test
    void theRingHasRoomForExtraDelaysAboveTheBaseDelay() {
        // 25 ms + 100 ms headroom + 20 ms slack at 100k packets/s: 14,500 slots.
        assertThat(DelayLineProcess.command(Path.of("/w/d"), "js-wan", Duration.ofMillis(25), DelayLineCpus.NONE,
                Path.of("/w/s"), Path.of("/w/c"))).containsSequence("--slots", "16384");
    }

    @Test
    void controlFileListsEverySourceWithItsDelayInMicrosecondsAfterTheGeneration() {
        assertThat(DelayLineProcess.delaysText(3, Map.of("198.18.2.1", Duration.ofMillis(25),
                "198.18.1.2", Duration.ofNanos(35_000_999))))
                .isEqualTo("generation 3\n198.18.1.2 35000\n198.18.2.1 25000\n");
    }
}
