package io.jetstream.kafka.systemtest;

import static org.awaitility.Awaitility.await;

import io.jetstream.kafka.testkit.replication.ReplicationEnvironment;
import io.jetstream.kafka.testkit.site.ConnectorStatus;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What docs/operations.md tells operators after a destination broker outage: look for hanging
 * transactions and abort them, again until none appear, and restart failed destination tasks.
 * Starts looking 60 s after the broker's return (a live transaction is never aborted: see
 * {@code Site.abortHangingTransactions}), then every 10 s until closed; logs each abort and
 * restart, and counts them.
 */
final class HangingTransactionJanitor implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HangingTransactionJanitor.class);

    private final ReplicationEnvironment env;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final AtomicInteger aborted = new AtomicInteger();
    private final AtomicInteger restarted = new AtomicInteger();

    HangingTransactionJanitor(ReplicationEnvironment env) {
        this.env = env;
        timer.scheduleWithFixedDelay(this::sweep, 60, 10, TimeUnit.SECONDS);
    }

    private void sweep() {
        try {
            List<String> found = env.siteB().abortHangingTransactions();
            if (!found.isEmpty()) {
                aborted.addAndGet(found.size());
                log.warn("Aborted {} hanging transaction(s) at the destination, as docs/operations.md says: {}",
                        found.size(), found);
            }
            // The procedure's second step: a destination task whose committed records a hanging
            // transaction held back failed (exactly.once.stable.timeout.ms); restart it.
            for (ConnectorStatus.Task task : env.connectB().status(ReplicationEnvironment.SINK_CONNECTOR).tasks()) {
                if ("FAILED".equals(task.state())) {
                    log.warn("Restarting failed destination task {}: {}", task.id(), task.trace());
                    restarted.incrementAndGet();
                    env.connectB().restartTask(ReplicationEnvironment.SINK_CONNECTOR, task.id());
                }
            }
        } catch (Exception e) {
            log.info("No look at hanging transactions now: {}", e.toString());
        }
    }

    /** Hanging transactions aborted so far. */
    int aborted() {
        return aborted.get();
    }

    /** Failed destination tasks restarted so far. */
    int restarted() {
        return restarted.get();
    }

    /**
     * Waits until the destination writes {@code topic} again after the broker's return. A broker
     * stopped while the destination tasks commit transactions can come back with transactions its
     * coordinator no longer knows still open on some partitions (hanging transactions, Kafka 4.3.1).
     * Their last stable offset stays behind them, so Connect's offset store of the exactly-once
     * tasks never finishes reading and the tasks never start; this janitor aborts them as an
     * operator would. Anything else that keeps the destination from writing fails the test.
     */
    void awaitDestinationWritingAgain(String topic) throws Exception {
        long[] baseline = {-1};
        await("destination offsets of " + topic + " readable")
                .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                .until(() -> (baseline[0] = env.siteB().endOffsetSum(topic)) >= 0);
        try {
            await("destination writing " + topic + " again")
                    .atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                    .until(() -> env.siteB().endOffsetSum(topic) > baseline[0] + 500);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("destination not writing 150 s after the outage (" + aborted()
                    + " hanging transaction(s) aborted): " + env.diagnostics(), e);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
