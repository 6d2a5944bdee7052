package io.jetstream.kafka.bench;

import static org.awaitility.Awaitility.await;

import io.jetstream.kafka.testkit.site.ConnectRestClient;
import io.jetstream.kafka.testkit.site.ConnectorStatus;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * What the benchmark does to a replicator under test: deploy it for one topic through the Connect
 * REST API, pause and resume the connector that reads the source topic (the backlog phase), and
 * remove it. Implemented for JetStream ({@link JetStreamReplicator}) and MirrorMaker 2
 * ({@link MirrorMakerReplicator}).
 */
interface Replicator {

    Duration CONNECTOR_TIMEOUT = Duration.ofSeconds(120);

    /** Starts what the variant needs (stopping what it does not) and deploys its connectors for {@code topic}. */
    void deploy(String topic) throws IOException, TimeoutException, InterruptedException;

    /** The topic at site B that receives {@code topic}. */
    String destinationTopic(String topic);

    /** Pauses reading the source topic and waits until the connector and its tasks are PAUSED. */
    void pause() throws IOException, TimeoutException, InterruptedException;

    void resume() throws IOException, InterruptedException;

    /** Deletes the connectors. */
    void undeploy() throws IOException, TimeoutException, InterruptedException;

    /** Names of the processes that make up the replicator (connect workers and relays), for CPU per MB. */
    List<String> processes();

    /** Bytes sent onto each route so far, by route name; empty for a replicator without routes. */
    Map<String, Long> routeBytes();

    /** Batches sent onto each route so far, by route name; empty for a replicator without routes. */
    default Map<String, Long> routeBatches() {
        return Map.of();
    }

    /**
     * Restarts the connector that reads the source topic with all its tasks (Connect REST
     * {@code POST /connectors/<name>/restart?includeTasks=true}): the cold-start scenario's event.
     */
    default void restartTasks() throws IOException, InterruptedException {
        throw new UnsupportedOperationException("this replicator cannot restart its tasks");
    }

    /** What was deployed: the connector configs as sent, task placement, relay routes. */
    Map<String, Object> deployment();

    /** Recent warnings and errors of the replicator's processes, for failure messages. */
    String problems();

    /**
     * The connectors' and tasks' states as Connect reports them, with the cause of any that FAILED, on one
     * line: appended to a failed variant's error, so that a stall caused by a dead task says so where the
     * failure is reported (a test's assertion message) and not only in the run's output.
     */
    String states();

    /** {@link #states} of {@code connectors} at one worker group; never throws (a failed variant's message). */
    static String states(ConnectRestClient rest, List<String> connectors) {
        StringBuilder out = new StringBuilder();
        for (String connector : connectors) {
            out.append(out.length() == 0 ? "" : "; ").append(connector).append(": ");
            try {
                ConnectorStatus status = rest.status(connector);
                out.append(status.state());
                for (ConnectorStatus.Task task : status.tasks()) {
                    out.append(", task ").append(task.id()).append(' ').append(task.state());
                    if (task.trace() != null) {
                        out.append(" (").append(cause(task.trace())).append(')');
                    }
                }
                if (status.trace() != null) {
                    out.append(" (").append(cause(status.trace())).append(')');
                }
            } catch (Exception e) {
                out.append("status unknown (").append(e).append(')');
            }
        }
        return out.toString();
    }

    /** The first line and the last "Caused by" line of a Java stack trace. */
    static String cause(String trace) {
        String[] lines = trace.split("\\R");
        String last = null;
        for (String line : lines) {
            if (line.startsWith("Caused by:")) {
                last = line;
            }
        }
        return last == null || last.equals(lines[0]) ? lines[0] : lines[0] + " ... " + last;
    }

    static void awaitPaused(ConnectRestClient rest, String connector) throws TimeoutException, InterruptedException {
        await("connector " + connector + " PAUSED")
                .atMost(CONNECTOR_TIMEOUT).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                .until(() -> {
                    ConnectorStatus status = rest.status(connector);
                    return "PAUSED".equals(status.state()) && !status.tasks().isEmpty()
                            && status.tasks().stream().allMatch(t -> "PAUSED".equals(t.state()));
                });
    }

    static void deleteAndAwait(ConnectRestClient rest, String connector) throws IOException, TimeoutException,
            InterruptedException {
        rest.deleteConnector(connector);
        await("connector " + connector + " deleted")
                .atMost(CONNECTOR_TIMEOUT).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                .until(() -> !rest.connectors().contains(connector));
    }
}
