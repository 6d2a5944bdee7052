package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JvmPausesTest {

    private static final List<String> LOG = List.of(
            "[1000ms] Safepoint \"Cleanup\", Time since last: 1470826264 ns, Reaching safepoint: 2855 ns, Cleanup:"
                    + " 94729 ns, At safepoint: 2254 ns, Total: 99838 ns",
            "[2000ms] Safepoint \"ParallelGCFailedAllocation\", Time since last: 787176829 ns, Reaching safepoint:"
                    + " 9848 ns, Cleanup: 145145 ns, At safepoint: 104787347 ns, Total: 104942340 ns",
            "a line of something else",
            "[3000ms] Safepoint \"G1CollectForAllocation\", Time since last: 1 ns, Reaching safepoint: 1 ns,"
                    + " Cleanup: 1 ns, At safepoint: 19999000 ns, Total: 20000000 ns",
            "[4000ms] Safepoint \"ICBufferFull\", Time since last: 1 ns, Reaching safepoint: 1 ns, Cleanup: 1 ns,"
                    + " At safepoint: 1 ns, Total: 300000000 ns");

    @Test
    void pausesThatEndedInTheWindowAreCountedWithTheirTotalTheLongestAndTheLongOnes() {
        JvmPauses.Pauses pauses = JvmPauses.parse(LOG, 1000, 3000);
        assertThat(pauses.count()).isEqualTo(3);
        assertThat(pauses.totalMs()).isEqualTo(125.0); // 0.1 + 104.9 + 20.0
        assertThat(pauses.maxMs()).isEqualTo(104.9);
        assertThat(pauses.longPauses()).isEqualTo(2); // 104.9 and exactly 20
    }

    @Test
    void aWindowWithoutPausesIsEmpty() {
        assertThat(JvmPauses.parse(LOG, 5000, 9000)).isEqualTo(JvmPauses.Pauses.NONE);
        assertThat(JvmPauses.parse(List.of(), 0, Long.MAX_VALUE)).isEqualTo(JvmPauses.Pauses.NONE);
    }

    @Test
    void theRunningJvmLogsItsOwnPausesToTheFileNamed(@TempDir Path dir) throws Exception {
        Path file = JvmPauses.logOwnPauses(dir);
        assertThat(file).isNotNull();
        long from = System.currentTimeMillis();
        System.gc(); // a full collection is a safepoint
        JvmPauses.Pauses pauses = await("a safepoint pause in " + file).atMost(Duration.ofSeconds(10))
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10))
                .until(() -> JvmPauses.read(file, from, Long.MAX_VALUE), read -> read.count() > 0);
        assertThat(Files.exists(file)).isTrue();
        assertThat(pauses.count()).isPositive();
    }

    @Test
    void theLatencyPhaseNamesTheJvmsThatStoppedLongestFirst() {
        assertThat(Bottleneck.pauses(Map.of(
                "broker-B", new JvmPauses.Pauses(40, 90, 31, 1),
                "connect-B", new JvmPauses.Pauses(30, 300, 118, 3),
                "relay-a1", new JvmPauses.Pauses(20, 15, 4, 0))))
                .isEqualTo("; JVM pauses of 20 ms or more: connect-B 3 (longest 118 ms), broker-B 1 (longest 31 ms)");
        assertThat(Bottleneck.pauses(Map.of("relay-a1", new JvmPauses.Pauses(20, 15, 4, 0)))).isEmpty();
    }
}
