package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.jetstream.kafka.testkit.replication.ReplicationEnvironment;
import io.jetstream.kafka.testkit.workload.ProducedLog;
import io.jetstream.kafka.testkit.workload.VerificationReport;
import io.jetstream.kafka.testkit.workload.Verifier;
import io.jetstream.kafka.testkit.workload.Workload;
import io.jetstream.kafka.testkit.workload.WorkloadSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The destination broker goes down mid-transaction again and again, alternately crashed (SIGKILL)
 * and stopped gracefully (SIGTERM), while exactly-once replication runs: after every outage every
 * record arrives once and in order. {@code ReplicationIT.destinationBrokerOutageIsBridged} does it
 * once in every build; this loop runs only when asked, {@code -Doutage.loops=N} (the
 * {@code outage-loop} profile of this module sets 10), because each outage takes a minute or more.
 * Hanging transactions the broker comes back with must be aborted by the destination-site connector
 * itself, and its tasks restarted by Connect on its request; the test only watches
 * ({@link HangingTransactionJanitor}): how many each outage left, and how many the connector
 * aborted, are logged and summed, and none may be left.
 */
@EnabledIfSystemProperty(named = "outage.loops", matches = "[1-9][0-9]*")
class DestinationOutageLoopIT {

    private static final Logger log = LoggerFactory.getLogger(DestinationOutageLoopIT.class);
    private static final Duration OUTAGE = Duration.ofSeconds(15);

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    static Path workDir;

    private static ReplicationEnvironment env;

    @BeforeAll
    static void start() throws Exception {
        env = ReplicationEnvironment.builder(workDir)
                .routes(1)
                .oneWayDelay(Duration.ofMillis(10))
                .exactlyOnce(true)
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
    void everyOutageCrashedOrGracefulLosesAndDuplicatesNothing() throws Exception {
        int loops = Integer.getInteger("outage.loops");
        List<String> summary = new ArrayList<>();
        int foundInAll = 0;
        long abortsInAll = 0;
        int outagesWithHanging = 0;
        for (int loop = 1; loop <= loops; loop++) {
            boolean crash = loop % 2 == 1;
            String topic = "demo.outage" + loop;
            env.siteA().createTopic(topic, 3);
            try (Workload workload = new Workload(WorkloadSpec.builder(topic, 3).records(20_000).valueBytes(256)
                    .nullKeyEvery(7).extraHeaders(2).compressionType("lz4").recordsPerSecond(2_000).build(),
                    env.siteA().bootstrapServers());
                 HangingTransactionJanitor janitor = new HangingTransactionJanitor(env)) {
                workload.start();
                // Down while the destination tasks write, in open transactions.
                await("destination writing A." + topic).atMost(Duration.ofSeconds(90)).ignoreExceptions()
                        .until(() -> env.siteB().endOffsetSum("A." + topic) >= 3_000);
                if (crash) {
                    env.siteB().broker().kill();
                } else {
                    env.siteB().broker().stop();
                }
                long downAt = System.nanoTime();
                await(OUTAGE.toSeconds() + " s of destination outage")
                        .atMost(OUTAGE.plusSeconds(10)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                        .until(() -> System.nanoTime() - downAt >= OUTAGE.toNanos());
                env.siteB().startBroker();
                janitor.awaitDestinationWritingAgain("A." + topic);
                VerificationReport report = verify(workload.awaitCompletion(Duration.ofSeconds(120)));
                janitor.assertNoneLeft();
                String line = String.format("outage %d (%s): %d records, lost %d, duplicates %d, hanging transactions"
                                + " seen %d, aborted by the connector %d", loop, crash ? "crash" : "graceful stop",
                        report.delivered(), report.missing(), report.duplicates(), janitor.found(),
                        janitor.abortedByTheConnector());
                log.info(line);
                summary.add(line);
                foundInAll += janitor.found();
                abortsInAll += janitor.abortedByTheConnector();
                outagesWithHanging += janitor.found() > 0 || janitor.abortedByTheConnector() > 0 ? 1 : 0;
            }
        }
        log.info("{} destination outages, {} left hanging transactions: {} seen, {} aborted by the connector in "
                + "all:\n{}", loops, outagesWithHanging, foundInAll, abortsInAll, String.join("\n", summary));
    }

    private static VerificationReport verify(ProducedLog produced) {
        VerificationReport report = Verifier.builder(env.siteB().bootstrapServers())
                .topicMapping(topic -> "A." + topic)
                .samePartitions(true)
                .deadline(Duration.ofSeconds(180))
                .build()
                .verify(produced);
        assertThat(report.isPerfect()).as(report + env.diagnostics()).isTrue();
        assertThat(report.duplicates()).as(report.toString()).isZero();
        return report;
    }
}
