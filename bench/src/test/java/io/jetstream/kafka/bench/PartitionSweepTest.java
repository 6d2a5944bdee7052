package io.jetstream.kafka.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionSweepTest {

    @TempDir
    Path dir;

    @Test
    void aPointPerVariantAndCountWithTheBacklogsCostAndTheSteadyPhasesCoresAndLatency() {
        BenchResult run = Fixtures.result(List.of(Fixtures.variant("js-1route", "jetstream", "zstd", 8.0, 650, 0.061, 109),
                Fixtures.failed("mm2-tuned-src")));
        List<PartitionSweep.Point> points = PartitionSweep.points(1200, run);

        assertThat(points).hasSize(2);
        PartitionSweep.Point js = points.get(0);
        assertThat(js.partitions()).isEqualTo(1200);
        assertThat(js.coreSecondsPerMb()).isEqualTo(0.061);
        assertThat(js.steadyReplicatorCores()).isEqualTo(0.3);
        assertThat(js.p99Ms()).isEqualTo(109);
        assertThat(PartitionSweep.line(js)).isEqualTo("SWEEP partitions=1200 variant=js-1route record_mb_s=8.00"
                + " wire_mb_s=4.80 wire_bytes_per_record=650 core_s_per_mb=0.0610 steady_replicator_cores=0.30"
                + " p50_ms=54 p99_ms=109 backlog_cores=connect-A:0.40,relay-a1:0.10 steady_cores=connect-A:0.20"
                + " status=ok");
        assertThat(PartitionSweep.line(points.get(1))).startsWith("SWEEP partitions=1200 variant=mm2-tuned-src"
                + " status=failed error=java.util.concurrent.TimeoutException");
    }

    @Test
    void aRunWithAnIdlePhaseCarriesItsCoresIntoThePointAndTheLine() {
        VariantResult v = Fixtures.variant("js-1route", "jetstream", "zstd", 8.0, 650, 0.061, 109);
        VariantResult idle = new VariantResult(v.id(), v.title(), v.replicator(), v.topic(), v.destinationTopic(),
                v.wireCodec(), v.latency(), v.backlog(), v.verification(), v.deployment(), v.timeline(), v.latencyCdf(),
                v.latencyOverTime(), null, List.of(), null, new VariantResult.IdlePhase(20.0,
                java.util.Map.of("connect-A", 0.021, "relay-a1", 0.004), 0.025, 0.31));

        PartitionSweep.Point point = PartitionSweep.points(1200, Fixtures.result(List.of(idle))).get(0);

        assertThat(point.idleReplicatorCores()).isEqualTo(0.025);
        assertThat(PartitionSweep.line(point)).contains(" p99_ms=109 idle_replicator_cores=0.025 backlog_cores=")
                .endsWith(" steady_cores=connect-A:0.20 idle_cores=connect-A:0.021,relay-a1:0.004 status=ok");
        assertThat(PartitionSweep.points(1200, Fixtures.result(List.of(v))).get(0).idleReplicatorCores())
                .as("no idle phase").isEqualTo(-1);
    }

    @Test
    void theReportHasALinePerPointAndAPlotWithAPolylinePerVariantThatLeavesFailedPointsOut() throws Exception {
        List<PartitionSweep.Point> points = new ArrayList<>();
        for (int count : new int[] {6, 120, 1200}) {
            points.addAll(PartitionSweep.points(count, Fixtures.result(List.of(
                    Fixtures.variant("js-1route", "jetstream", "zstd", 8.0, 650, 0.06 * count / 6, 109),
                    Fixtures.variant("mm2-tuned-src", "mirrormaker2", "zstd", 7.5, 690, 0.047, 101)))));
        }
        points.addAll(PartitionSweep.points(10_000, Fixtures.result(List.of(
                Fixtures.variant("mm2-tuned-src", "mirrormaker2", "zstd", 7.5, 690, 0.047, 101),
                Fixtures.failed("js-1route")))));
        ByteArrayOutputStream printed = new ByteArrayOutputStream();

        PartitionSweep.report(points, dir, "./jetstream bench wan --partitions 6,120,1200,10000",
                new PrintStream(printed, true, StandardCharsets.UTF_8));

        assertThat(printed.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("SWEEP "))).hasSize(8);
        String html = Files.readString(dir.resolve("partition-sweep.html"));
        assertThat(html.split("<polyline", -1)).hasSize(3);
        assertThat(html).contains("failed: java.util.concurrent.TimeoutException: drain &lt;stuck&gt;");
        assertThat(Files.readString(dir.resolve("partition-sweep.json"))).contains("\"partitions\" : 10000").contains("\"core_seconds_per_mb\"");
    }
}
