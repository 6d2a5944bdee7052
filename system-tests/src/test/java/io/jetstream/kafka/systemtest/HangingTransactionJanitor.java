package io.jetstream.kafka.systemtest;

import static org.awaitility.Awaitility.await;

import io.jetstream.kafka.testkit.replication.ReplicationEnvironment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the destination cluster for hanging transactions after a destination broker outage and
 * reports them, without aborting anything or restarting any task: the destination-site connector
 * must do both by itself ({@code HangingTransactions}, {@code SinkSiteConnector}). Looks every 10 s
 * ({@code Site.findHangingTransactions}: open longer than the transaction timeout plus 10 s, not the
 * coordinator's), remembers each one found, and counts the aborts the connector logged in site B's
 * worker log since the watch began. {@link #awaitDestinationWritingAgain} fails the test when the
 * destination does not write again, or when a hanging transaction is still there at the end.
 */
final class HangingTransactionJanitor implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HangingTransactionJanitor.class);
    /** What the connector logs at WARN for each abort (HangingTransactions). */
    static final String PRODUCT_ABORT = "Aborted a hanging transaction in the destination cluster";

    private final ReplicationEnvironment env;
    private final Path workerLog;
    private final long abortsBefore;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final Set<String> found = ConcurrentHashMap.newKeySet();

    HangingTransactionJanitor(ReplicationEnvironment env) throws IOException {
        this.env = env;
        this.workerLog = env.siteB().requireWorker().process().logFile();
        this.abortsBefore = productAbortsInLog();
        timer.scheduleWithFixedDelay(this::sweep, 10, 10, TimeUnit.SECONDS);
    }

    private void sweep() {
        try {
            for (String hanging : env.siteB().findHangingTransactions()) {
                if (found.add(hanging)) {
                    log.warn("Hanging transaction at the destination, left to the connector: {}", hanging);
                }
            }
        } catch (Exception e) {
            log.info("No look at hanging transactions now: {}", e.toString());
        }
    }

    /** Distinct hanging transactions this watch saw. */
    int found() {
        return found.size();
    }

    /** Hanging transactions the connector aborted since this watch began, after site B's worker log. */
    long abortedByTheConnector() {
        try {
            return productAbortsInLog() - abortsBefore;
        } catch (IOException e) {
            throw new IllegalStateException("Cannot read " + workerLog, e);
        }
    }

    private long productAbortsInLog() throws IOException {
        if (!Files.exists(workerLog)) {
            return 0;
        }
        try (var lines = Files.lines(workerLog, StandardCharsets.ISO_8859_1)) {
            return lines.filter(line -> line.contains(PRODUCT_ABORT)).count();
        }
    }

    /**
     * Waits until the destination writes {@code topic} again after the broker's return. A broker
     * stopped while the destination tasks commit transactions can come back with transactions its
     * coordinator no longer knows still open on some partitions (hanging transactions, Kafka 4.3.1);
     * the connector must abort them and have its tasks restarted by itself. Then no hanging
     * transaction may be left.
     */
    void awaitDestinationWritingAgain(String topic) throws Exception {
        long[] baseline = {-1};
        await("destination offsets of " + topic + " readable")
                .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                .until(() -> (baseline[0] = env.siteB().endOffsetSum(topic)) >= 0);
        try {
            await("destination writing " + topic + " again")
                    .atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                    .until(() -> env.siteB().endOffsetSum(topic) > baseline[0] + 500);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("destination not writing 180 s after the outage (" + found()
                    + " hanging transaction(s) seen, " + abortedByTheConnector() + " aborted by the connector): "
                    + env.diagnostics(), e);
        }
    }

    /**
     * Fails unless every hanging transaction of the destination-site connector's tasks is gone (the
     * connector aborted them); call after the records arrived.
     */
    void assertNoneLeft() throws Exception {
        String connectors = "-" + ReplicationEnvironment.SINK_CONNECTOR + "-";
        List<String> all = env.siteB().findHangingTransactions();
        List<String> left = all.stream().filter(line -> line.contains(connectors)).toList();
        if (left.size() < all.size()) {
            log.warn("Hanging transactions of other producers, which the connector leaves alone: {}", all);
        }
        if (!left.isEmpty()) {
            throw new AssertionError("hanging transactions left at the destination (" + found() + " seen, "
                    + abortedByTheConnector() + " aborted by the connector): " + left);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
