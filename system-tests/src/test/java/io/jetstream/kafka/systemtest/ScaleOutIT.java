package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.jetstream.kafka.testkit.replication.ReplicationEnvironment;
import io.jetstream.kafka.testkit.site.ConnectRestClient;
import io.jetstream.kafka.testkit.site.ConnectWorker;
import io.jetstream.kafka.testkit.site.ConnectorStatus;
import io.jetstream.kafka.testkit.site.Site;
import io.jetstream.kafka.testkit.workload.ProducedLog;
import io.jetstream.kafka.testkit.workload.VerificationReport;
import io.jetstream.kafka.testkit.workload.Verifier;
import io.jetstream.kafka.testkit.workload.Workload;
import io.jetstream.kafka.testkit.workload.WorkloadSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scale-out on Connect: three workers per site (one Connect cluster per site), several tasks of
 * each connector, exactly-once at the destination. Mid-stream a fourth worker joins the source
 * site's cluster and one worker of the destination's leaves (graceful stop); Connect rebalances
 * the tasks (checked through the REST status: the source tasks spread over all four workers, the
 * destination tasks of the stopped worker run on the remaining two) and every record arrives
 * once and in order.
 */
class ScaleOutIT {

    private static final int WORKERS = 3;
    /** One task per source worker once the fourth has joined (Connect balances tasks evenly). */
    private static final int SOURCE_TASKS = 4;
    private static final int SINK_TASKS = 3;
    private static final Duration REBALANCE_DEADLINE = Duration.ofSeconds(240);

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    static Path workDir;

    private static ReplicationEnvironment env;

    @BeforeAll
    static void start() throws Exception {
        env = ReplicationEnvironment.builder(workDir)
                .workersPerSite(WORKERS)
                .workerHeap("384m")
                .sourceTasks(SOURCE_TASKS)
                .sinkTasks(SINK_TASKS)
                .routes(1)
                .oneWayDelay(Duration.ofMillis(10))
                .exactlyOnce(true)
                .start();
        env.connectB().awaitRunning(ReplicationEnvironment.SINK_CONNECTOR, SINK_TASKS, Duration.ofSeconds(120));
        env.connectA().awaitRunning(ReplicationEnvironment.SOURCE_CONNECTOR, SOURCE_TASKS, Duration.ofSeconds(120));
    }

    @AfterAll
    static void stop() {
        if (env != null) {
            env.close();
        }
    }

    @Test
    void aWorkerJoinsOneSiteAndOneLeavesTheOtherMidStreamWithNothingLostOrDuplicated() throws Exception {
        assertThat(taskWorkers(env.connectA(), ReplicationEnvironment.SOURCE_CONNECTOR))
                .as("the source tasks run on several workers").hasSizeGreaterThan(1);
        assertThat(taskWorkers(env.connectB(), ReplicationEnvironment.SINK_CONNECTOR))
                .as("the destination tasks, one per worker").hasSize(WORKERS);
        env.siteA().createTopic("demo.scale", 6);
        // Produced until both rebalances are over and 5,000 more records are out, however long the
        // workers take to start on the machine: both changes happen mid-stream.
        try (Workload workload = new Workload(WorkloadSpec.builder("demo.scale", 6)
                .records(1_000_000)
                .valueBytes(256)
                .extraHeaders(2)
                .compressionType("lz4")
                .recordsPerSecond(1_000)
                .build(), env.siteA().bootstrapServers())) {
            workload.start();
            awaitProduced(workload, 5_000);

            ConnectWorker joined = env.siteA().addWorker();
            await("a source task running on the worker that joined, every task running")
                    .atMost(REBALANCE_DEADLINE).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                    .until(() -> {
                        ConnectorStatus status = env.connectA().status(ReplicationEnvironment.SOURCE_CONNECTOR);
                        return status.isRunningWith(SOURCE_TASKS) && status.tasks().stream()
                                .anyMatch(t -> t.workerId().equals(joined.workerId()));
                    });
            System.out.println("source tasks after a worker joined: "
                    + env.connectA().status(ReplicationEnvironment.SOURCE_CONNECTOR).tasks());
            awaitProduced(workload, workload.producedCount() + 5_000);

            ConnectWorker leaving = workerRunningATask(env.siteB(), ReplicationEnvironment.SINK_CONNECTOR);
            leaving.stop();
            await("the destination tasks running on the remaining workers")
                    .atMost(REBALANCE_DEADLINE).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                    .until(() -> {
                        ConnectorStatus status = env.connectB().status(ReplicationEnvironment.SINK_CONNECTOR);
                        return status.isRunningWith(SINK_TASKS) && status.tasks().stream()
                                .noneMatch(t -> t.workerId().equals(leaving.workerId()));
                    });
            System.out.println("destination tasks after a worker left: "
                    + env.connectB().status(ReplicationEnvironment.SINK_CONNECTOR).tasks());
            awaitProduced(workload, workload.producedCount() + 5_000);

            assertThat(workload.isRunning()).as("the workload ran through both changes").isTrue();
            ProducedLog log = workload.stop();
            VerificationReport report = Verifier.builder(env.siteB().bootstrapServers())
                    .topicMapping(topic -> "A." + topic)
                    .samePartitions(true)
                    .deadline(Duration.ofSeconds(180))
                    .build()
                    .verify(log);
            System.out.println("scale-out: " + report.summaryLine());
            assertThat(report.isPerfect()).as(report + env.diagnostics()).isTrue();
            assertThat(report.duplicates()).as(report.toString()).isZero();
            assertThat(report.delivered()).isEqualTo(log.size());
        }
    }

    /** The ids of the workers that run the connector's tasks. */
    private static Set<String> taskWorkers(ConnectRestClient rest, String connector) throws Exception {
        return rest.status(connector).tasks().stream().map(ConnectorStatus.Task::workerId)
                .collect(Collectors.toSet());
    }

    /** A running worker of the site, other than the one the REST calls go to, that runs a task of the connector. */
    private static ConnectWorker workerRunningATask(Site site, String connector) throws Exception {
        Set<String> running = taskWorkers(site.connect(), connector);
        return site.workers().stream()
                .skip(1)
                .filter(w -> w.isRunning() && running.contains(w.workerId()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no worker but the first runs a task of " + connector
                        + ": " + running));
    }

    private static void awaitProduced(Workload workload, long count) throws Exception {
        await("workload produced " + count).atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> workload.producedCount() >= count);
    }
}
