package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.jetstream.kafka.testkit.replication.ReplicationEnvironment;
import io.jetstream.kafka.testkit.site.ConnectRuntime;
import io.jetstream.kafka.testkit.site.ConnectWorker;
import io.jetstream.kafka.testkit.site.JmxReader;
import io.jetstream.kafka.testkit.workload.ProducedLog;
import io.jetstream.kafka.testkit.workload.VerificationReport;
import io.jetstream.kafka.testkit.workload.Verifier;
import io.jetstream.kafka.testkit.workload.Workload;
import io.jetstream.kafka.testkit.workload.WorkloadSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Both connectors on Kafka Connect 3.9.2 workers (the newest of the oldest supported line; brokers
 * stay on the project's Kafka), exactly-once at the destination: the packaged plugins load on a 3.x
 * worker, replicate every record once and in order through task restarts, and the one feature such
 * a worker lacks, plugin metrics (KIP-877, Kafka 4.1), degrades with one log line per connector:
 * the task metrics are still readable over JMX under the same names.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class Connect3xReplicationIT {

    private static final String CONNECT_3X = "3.9.2";
    private static final String DEGRADED_LINE = "has no plugin metrics (KIP-877, Kafka 4.1)";

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    static Path workDir;

    private static ReplicationEnvironment env;

    @BeforeAll
    static void start() throws Exception {
        env = ReplicationEnvironment.builder(workDir)
                .connectRuntime(ConnectRuntime.kafka3x())
                .routes(1)
                .oneWayDelay(Duration.ofMillis(10))
                .exactlyOnce(true)
                .workerHeap("384m")
                .start();
        env.awaitConnectorsRunning(Duration.ofSeconds(90));
    }

    @AfterAll
    static void stop() {
        if (env != null) {
            env.close();
        }
    }

    @Test
    @Order(1)
    void bothSitesRunConnect3xWorkers() throws Exception {
        assertThat(env.connectA().version()).isEqualTo(CONNECT_3X);
        assertThat(env.connectB().version()).isEqualTo(CONNECT_3X);
    }

    @Test
    @Order(2)
    void replicatesEveryRecordOnceAndInOrderThroughTaskRestarts() throws Exception {
        env.siteA().createTopic("demo.c3", 3);
        try (Workload workload = new Workload(WorkloadSpec.builder("demo.c3", 3)
                .records(30_000)
                .valueBytes(256)
                .nullKeyEvery(7)
                .nullValueEvery(11)
                .extraHeaders(3)
                .compressionType("lz4")
                .recordsPerSecond(3_000)
                .build(), env.siteA().bootstrapServers())) {
            workload.start();
            awaitProduced(workload, 8_000);
            env.connectB().restartTask(ReplicationEnvironment.SINK_CONNECTOR, 0);
            awaitProduced(workload, 16_000);
            env.connectA().restartTask(ReplicationEnvironment.SOURCE_CONNECTOR, 0);
            ProducedLog log = workload.awaitCompletion(Duration.ofSeconds(120));
            VerificationReport report = Verifier.builder(env.siteB().bootstrapServers())
                    .topicMapping(topic -> "A." + topic)
                    .samePartitions(true)
                    .deadline(Duration.ofSeconds(180))
                    .build()
                    .verify(log);
            System.out.println("Connect " + CONNECT_3X + " workers: " + report.summaryLine());
            assertThat(report.isPerfect()).as(report + env.diagnostics()).isTrue();
            assertThat(report.duplicates()).as(report.toString()).isZero();
            assertThat(report.delivered()).isEqualTo(30_000);
        }
    }

    @Test
    @Order(3)
    void withoutPluginMetricsTheTaskMetricsStayReadableOverJmxAfterOneLogLine() throws Exception {
        ConnectWorker source = env.siteA().requireWorker();
        ConnectWorker destination = env.siteB().requireWorker();
        String sourceMBeans = "kafka.connect:type=plugins,connector=" + ReplicationEnvironment.SOURCE_CONNECTOR + ",*";
        String destinationMBeans = "kafka.connect:type=plugins,connector=" + ReplicationEnvironment.SINK_CONNECTOR
                + ",*";
        try {
            await("task metrics over JMX on both 3.x workers")
                    .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                    .until(() ->
                    JmxReader.sum(source.process().pid(), sourceMBeans, "records-acked-total") > 0
                            && JmxReader.sum(destination.process().pid(), destinationMBeans, "records-out-total") > 0);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + "; source: "
                    + JmxReader.values(source.process().pid(), sourceMBeans, "records-acked-total")
                    + "; destination: "
                    + JmxReader.values(destination.process().pid(), destinationMBeans, "records-out-total")
                    + "; all kafka.connect plugin MBeans of the source worker: "
                    + JmxReader.values(source.process().pid(), "kafka.connect:type=plugins,*", "task-instance-id"), e);
        }
        assertThat(degradedLines(source)).as("one line for the source-site plugin, whatever its tasks").isEqualTo(1);
        assertThat(degradedLines(destination)).as("one line for the destination-site plugin").isEqualTo(1);
    }

    private static long degradedLines(ConnectWorker worker) throws Exception {
        try (var lines = Files.lines(worker.process().logFile())) {
            return lines.filter(line -> line.contains(DEGRADED_LINE)).count();
        }
    }

    private static void awaitProduced(Workload workload, long count) throws Exception {
        await("workload produced " + count).atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> workload.producedCount() >= count);
    }
}
