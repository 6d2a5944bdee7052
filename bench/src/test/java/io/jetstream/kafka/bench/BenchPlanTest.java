package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchPlanTest {

    @Test
    void aPhaseWaitsAtLeastAsLongAsTheDestinationWaitsForUnreadableRecords() {
        BenchPlan plan = BenchPlan.defaults("wan", true, Path.of("out"), "cmd");
        assertThat(plan.stallPatience()).isEqualTo(BenchPlan.STALL);
        assertThat(plan.withConnectorProps(java.util.Map.of(), java.util.Map.of("exactly.once.stable.timeout.ms", "120000"))
                .stallPatience()).isEqualTo(java.time.Duration.ofSeconds(150));
        assertThat(plan.withConnectorProps(java.util.Map.of(), java.util.Map.of("exactly.once.stable.timeout.ms", "5000"))
                .stallPatience()).isEqualTo(BenchPlan.STALL);
    }

    @Test
    void theQuickPlanRacesThreeRoutesAgainstMm2AtTheSourceWithSmallVolumes() {
        BenchPlan quick = BenchPlan.defaults("wan", true, Path.of("out"), "cmd");
        assertThat(quick.variants()).containsExactly(Variants.JS_3_ROUTES, Variants.MM2_TUNED_SRC);
        assertThat(quick.outputName()).isEqualTo("wan-quick");
        assertThat(quick.backlogBytes()).isLessThanOrEqualTo(30_000_000L);
        assertThat(quick.latencyPhase()).isLessThanOrEqualTo(Duration.ofSeconds(10));

        BenchPlan full = BenchPlan.defaults("wan", false, Path.of("out"), "cmd");
        assertThat(full.outputName()).isEqualTo("wan");
        assertThat(full.variants()).containsExactlyElementsOf(Variants.fullRun());
        assertThat(full.uplinkBitsPerSecond()).isEqualTo(40_000_000L);
    }

    @Test
    void variantsRunInCatalogOrderAndUnknownOnesAreNamed() {
        assertThat(Variants.select(List.of(Variants.MM2_TUNED_SRC, Variants.JS_1_ROUTE)))
                .extracting(Variant::id).containsExactly(Variants.JS_1_ROUTE, Variants.MM2_TUNED_SRC);
        assertThatThrownBy(() -> Variants.select(List.of("js-9routes")))
                .hasMessageContaining("js-9routes").hasMessageContaining(Variants.MM2_DEFAULT_DST);
    }

    @Test
    void badValuesNameTheirOption() {
        BenchPlan plan = BenchPlan.defaults("wan", true, Path.of("out"), "cmd");
        assertThatThrownBy(() -> plan.withPhases(Duration.ZERO, 0, Duration.ZERO, 1000, 25_000_000))
                .hasMessageContaining("--latency-s");
        assertThatThrownBy(() -> plan.withPhases(Duration.ZERO, 0, Duration.ofSeconds(5), 1000, 10))
                .hasMessageContaining("--backlog-mb");
        assertThatThrownBy(() -> plan.withNetwork(BenchPlan.NetworkMode.AUTO, 10, Duration.ofMillis(25)))
                .hasMessageContaining("--uplink-mbit");
        assertThatThrownBy(() -> BenchPlan.defaults("lan", false, Path.of("out"), "cmd"))
                .hasMessageContaining("scenario 'lan'");
    }

    @Test
    void brokerLogFoldersAreNewOnTheChosenStorage(@TempDir Path work) throws Exception {
        Path onDisk = BenchPlan.BrokerStorage.DISK.newLogFolder(work.resolve("logs"), "broker-");
        assertThat(onDisk.getParent()).isEqualTo(work.resolve("logs"));
        assertThat(onDisk.getFileName().toString()).startsWith("broker-");
        assertThat(BenchPlan.BrokerStorage.DISK.newLogFolder(work.resolve("logs"), "broker-")).isNotEqualTo(onDisk);

        if (Files.isDirectory(Path.of("/dev/shm")) && Files.isWritable(Path.of("/dev/shm"))) {
            Path inMemory = BenchPlan.BrokerStorage.MEMORY.newLogFolder(work, "jetstream-bench-plan-test-");
            try {
                assertThat(inMemory.getParent()).isEqualTo(Path.of("/dev/shm"));
                assertThat(Files.isDirectory(inMemory)).isTrue();
            } finally {
                Files.delete(inMemory);
            }
        }
        assertThatThrownBy(() -> BenchPlan.BrokerStorage.of("ssd")).hasMessageContaining("--broker-storage")
                .hasMessageContaining("'ssd'");
    }
}
