package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.jetstream.kafka.testkit.site.ConnectWorker;
import io.jetstream.kafka.testkit.site.JmxReader;
import io.jetstream.kafka.testkit.replication.ReplicationEnvironment;
import io.jetstream.kafka.testkit.workload.VerificationReport;
import io.jetstream.kafka.testkit.workload.Verifier;
import io.jetstream.kafka.testkit.workload.Workload;
import io.jetstream.kafka.testkit.workload.WorkloadSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * At-least-once mode (destination worker without exactly-once support): a destination worker is
 * killed (SIGKILL) mid-stream and restarted. Nothing may be lost and order per partition holds;
 * duplicates are allowed only after such a crash, and the destination connector's
 * {@code rewritten-records-total} metric, read over JMX from the restarted worker, must count exactly
 * the duplicates the verifier finds. (Order is checked when no duplicate was written: a record
 * re-written after the crash necessarily follows later ones.)
 *
 * <p>The same worker also shows what becomes of the destination connector configured with
 * {@code exactly.once.support=required} on a worker where exactly-once is not enabled: Connect
 * refuses such a config when it is submitted, but not once it is stored, and runs the task
 * at-least-once without telling it; the task proves it and fails instead of acting as exactly-once.
 */
class AtLeastOnceReplicationIT {

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    static Path workDir;

    private static ReplicationEnvironment env;

    @BeforeAll
    static void start() throws Exception {
        env = ReplicationEnvironment.builder(workDir).routes(1).oneWayDelay(Duration.ofMillis(10)).exactlyOnce(false)
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
    void crashOfTheDestinationWorkerLosesNothingAndCountsItsDuplicates() throws Exception {
        env.siteA().createTopic("demo.alo", 3);
        try (Workload workload = new Workload(WorkloadSpec.builder("demo.alo", 3).records(30_000).valueBytes(256)
                .extraHeaders(2).compressionType("lz4").recordsPerSecond(3_000).build(),
                env.siteA().bootstrapServers())) {
            workload.start();
            // Crash once the destination is writing, so records written after its last stored
            // progress (offsets flush every second) are written again after the restart.
            await("the destination wrote 5,000 records").atMost(Duration.ofSeconds(90)).ignoreExceptions()
                    .until(() -> writtenAtB("A.demo.alo") >= 5_000);
            env.siteB().requireWorker().kill();
            env.siteB().requireWorker().start();
            env.connectB().awaitRunning(ReplicationEnvironment.SINK_CONNECTOR, 2, Duration.ofSeconds(90));
            VerificationReport report = Verifier.builder(env.siteB().bootstrapServers())
                    .topicMapping(topic -> "A." + topic).samePartitions(true)
                    .isolationLevel(IsolationLevel.READ_UNCOMMITTED)
                    .deadline(Duration.ofSeconds(120)).build()
                    .verify(workload.awaitCompletion(Duration.ofSeconds(60)));
            Map<String, Double> perTask = JmxReader.values(env.siteB().requireWorker().process().pid(),
                    "kafka.connect:type=plugins,connector=" + ReplicationEnvironment.SINK_CONNECTOR + ",*",
                    "rewritten-records-total");
            System.out.println("rewritten-records-total by MBean: " + perTask);
            double rewritten = perTask.values().stream().mapToDouble(Double::doubleValue).sum();
            System.out.println("at-least-once after a worker crash: " + report.summaryLine()
                    + " rewritten-records-total=" + (long) rewritten);
            assertThat(report.missing()).as(report.toString()).isZero();
            assertThat(report.partitionMismatches()).as(report.toString()).isZero();
            assertThat(report.fieldMismatches()).as(report.toString()).isZero();
            assertThat((long) rewritten).as("duplicates at the destination are the records the metric counts")
                    .isEqualTo(report.duplicates());
            // Re-written records after the crash may be counted as out of order (a replayed record
            // follows a later one); without duplicates there must be none.
            if (report.duplicates() == 0) {
                assertThat(report.orderViolations()).as(report.toString()).isZero();
            }
        }
    }

    /**
     * The destination connector is deployed with {@code exactly.once.support=required} while the
     * worker has exactly-once enabled (Connect refuses it otherwise), then the worker is restarted
     * with {@code exactly.once.source.support=disabled}, as after a rolling downgrade: Connect runs
     * the stored config's tasks at-least-once. Without records, and again with records of one
     * partition flowing (written without transactions, none acknowledged), the tasks fail at Connect's
     * first periodic commit (its offset-commit thread), the call that would release acknowledgements.
     * The failure names the worker key and is logged at ERROR. Switched to {@code requested}, the
     * connector replicates every record.
     */
    @Test
    void anExactlyOnceConnectorOnAWorkerWithoutExactlyOnceFailsNamingTheWorkerKeyAndRequestedGetsEverything()
            throws Exception {
        String sink = ReplicationEnvironment.SINK_CONNECTOR;
        ConnectWorker workerB = env.siteB().requireWorker();
        env.connectB().awaitRunning(sink, 2, Duration.ofSeconds(90));
        env.siteA().createTopic("demo.eoscheck", 1);
        restartWorkerB(Map.of("exactly.once.source.support", "enabled"));
        env.deploySink(Map.of("exactly.once.support", "required"));
        env.connectB().awaitRunning(sink, 2, Duration.ofSeconds(90));

        restartWorkerB(Map.of("exactly.once.source.support", "disabled"));
        String idle = awaitFailure("commit() from thread");
        System.out.println("required, worker without exactly-once, no records: " + idle);
        assertThat(idle).contains("exactly.once.support=required").contains("exactly.once.source.support=enabled")
                .contains("exactly.once.support=requested");

        // The first periodic commit 10 s after the tasks start: records flow before it.
        restartWorkerB(Map.of("offset.flush.interval.ms", "10000"));
        try (Workload workload = new Workload(WorkloadSpec.builder("demo.eoscheck", 1).records(6_000).valueBytes(128)
                .recordsPerSecond(1_000).build(), env.siteA().bootstrapServers())) {
            env.connectB().awaitRunning(sink, 2, Duration.ofSeconds(90));
            workload.start();
            await("records written without transactions").atMost(Duration.ofSeconds(60)).ignoreExceptions()
                    .until(() -> env.siteB().endOffsetSum("A.demo.eoscheck") > 0);
            String flowing = awaitFailure("commit() from thread");
            System.out.println("required, worker without exactly-once, records flowing: " + flowing);
            assertThat(flowing).contains("exactly.once.support=required")
                    .contains("exactly.once.source.support=enabled").contains("exactly.once.support=requested");
            Path log = workerB.process().logFile();
            await("the task logged the reason at ERROR").atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .until(() -> Files.readAllLines(log, StandardCharsets.ISO_8859_1).stream().anyMatch(line -> line.contains(
                            "] ERROR The destination-site connector is configured exactly-once")
                            && line.contains("commit() from thread") && line.endsWith("(SinkSiteTask)")));

            restartWorkerB(Map.of("offset.flush.interval.ms", "1000"));
            env.deploySink(Map.of()); // exactly.once.support=requested: at-least-once, as the worker runs it
            await("the destination tasks run again").atMost(Duration.ofSeconds(90)).ignoreExceptions()
                    .until(() -> env.connectB().status(sink).isRunningWith(2));
            VerificationReport report = Verifier.builder(env.siteB().bootstrapServers())
                    .topicMapping(topic -> "A." + topic).samePartitions(true)
                    .isolationLevel(IsolationLevel.READ_UNCOMMITTED)
                    .deadline(Duration.ofSeconds(120)).build()
                    .verify(workload.awaitCompletion(Duration.ofSeconds(60)));
            System.out.println("after exactly.once.support=requested: " + report.summaryLine());
            assertThat(report.missing()).as(report.toString()).isZero();
            assertThat(report.partitionMismatches()).as(report.toString()).isZero();
            assertThat(report.fieldMismatches()).as(report.toString()).isZero();
        }
        env.connectB().awaitRunning(sink, 2, Duration.ofSeconds(90));
    }

    /** Restarts site B's worker (graceful stop) with worker properties changed. */
    private static void restartWorkerB(Map<String, String> properties) throws Exception {
        ConnectWorker worker = env.siteB().requireWorker();
        worker.stop();
        for (Map.Entry<String, String> property : properties.entrySet()) {
            worker.setProperty(property.getKey(), property.getValue());
        }
        worker.start();
    }

    /** The first failure trace of a destination task that contains {@code text}. */
    private static String awaitFailure(String text) throws Exception {
        return await("a destination task fails with '" + text + "'").atMost(Duration.ofSeconds(90)).ignoreExceptions()
                .until(() -> {
                    String failure = env.connectB().status(ReplicationEnvironment.SINK_CONNECTOR).firstFailure();
                    return failure != null && failure.contains(text) ? failure : null;
                }, Objects::nonNull);
    }

    private static long writtenAtB(String topic) throws Exception {
        try (Admin admin = env.siteB().admin()) {
            if (!admin.listTopics().names().get().contains(topic)) {
                return 0;
            }
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()
                    .forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
            return admin.listOffsets(latest).all().get().values().stream()
                    .mapToLong(ListOffsetsResultInfo::offset).sum();
        }
    }
}
