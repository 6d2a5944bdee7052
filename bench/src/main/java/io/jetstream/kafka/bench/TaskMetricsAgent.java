package io.jetstream.kafka.bench;

import java.io.IOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * A Java agent the bench loads into a running Connect worker ({@link TaskMetricsReader}) to write the
 * source-site tasks' batching metrics (KIP-877 plugin metrics, MBeans
 * {@code kafka.connect:type=plugins,connector=<name>,task=<n>}) to a file every 500 ms: the bench
 * cannot reach the worker's JMX from outside its network namespace. One line per task and sample:
 * {@code <epoch ms> <connector> <task> <metric>=<value> ...}. Depends on the JDK only (it runs on
 * the worker's class path); its thread is a daemon and ends with the worker.
 */
public final class TaskMetricsAgent {

    /** The metrics written, in this order. */
    static final List<String> METRICS = List.of("batch-max-records", "batch-linger-seconds", "window-batches",
            "batch-records-avg", "in-flight-batches", "records-in-total", "batches-sent-total");

    /**
     * Kafka's own client and Connect task metrics, written as {@code <epoch ms> ~<type> <id> <metric>=<value> ...}
     * (the {@code ~} keeps them apart from connectors): how often the consumer polls and fetches, how big
     * the producer's batches and transactions are. Diagnostics of a recorded run ({@code --jfr}).
     */
    static final Map<String, List<String>> CLIENT_METRICS = Map.of(
            "kafka.consumer:type=consumer-fetch-manager-metrics,client-id=*",
            List.of("fetch-rate", "records-per-request-avg", "fetch-size-avg", "records-consumed-rate"),
            "kafka.consumer:type=consumer-metrics,client-id=*",
            List.of("time-between-poll-avg", "poll-idle-ratio-avg", "select-rate"),
            "kafka.connect:type=sink-task-metrics,connector=*,task=*",
            List.of("sink-record-read-rate", "put-batch-avg-time-ms", "sink-record-active-count-avg"),
            "kafka.connect:type=source-task-metrics,connector=*,task=*",
            List.of("source-record-poll-rate", "poll-batch-avg-time-ms", "transaction-size-avg", "transaction-size-max"),
            "kafka.producer:type=producer-metrics,client-id=*",
            List.of("batch-size-avg", "records-per-request-avg", "request-rate", "record-send-rate", "select-rate",
                    "io-wait-ratio", "record-queue-time-avg", "txn-commit-time-ns-total", "produce-throttle-time-avg"));

    private TaskMetricsAgent() {
    }

    /** @param args {@code <output file>} */
    public static void agentmain(String args) {
        Path file = Path.of(args.trim());
        Thread thread = new Thread(() -> run(file), "jetstream-bench-task-metrics");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Rounds between two look-ups of the metric names. A pattern query walks every MBean of the worker
     * (thousands at 1,200 partitions: a series per partition) and took a quarter of a worker's CPU
     * samples when done every round; the names change only when tasks or clients come and go.
     */
    private static final int ROUNDS_PER_LOOKUP = 20;

    private static void run(Path file) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        Set<ObjectName> names = Set.of();
        Map<String, Set<ObjectName>> clientNames = Map.of();
        long round = 0;
        while (true) {
            try {
                StringBuilder lines = new StringBuilder();
                long now = System.currentTimeMillis();
                if (round++ % ROUNDS_PER_LOOKUP == 0 || names.isEmpty()) { // and until the tasks are there
                    names = server.queryNames(new ObjectName("kafka.connect:type=plugins,*"), null);
                    Map<String, Set<ObjectName>> found = new java.util.HashMap<>();
                    for (String pattern : CLIENT_METRICS.keySet()) {
                        found.put(pattern, server.queryNames(new ObjectName(pattern), null));
                    }
                    clientNames = found;
                }
                for (ObjectName name : names) {
                    if (name.getKeyProperty("topic") != null || name.getKeyProperty("task") == null) {
                        continue;
                    }
                    StringBuilder line = new StringBuilder();
                    for (String metric : METRICS) {
                        try {
                            Object value = server.getAttribute(name, metric);
                            line.append(' ').append(metric).append('=').append(value);
                        } catch (Exception absent) {
                            // not a source-site task, or a metric this version lacks
                        }
                    }
                    if (line.length() > 0) {
                        lines.append(now).append(' ').append(name.getKeyProperty("connector")).append(' ')
                                .append(name.getKeyProperty("task")).append(line).append('\n');
                    }
                }
                for (Map.Entry<String, List<String>> group : CLIENT_METRICS.entrySet()) {
                    for (ObjectName name : clientNames.getOrDefault(group.getKey(), Set.of())) {
                        StringBuilder line = new StringBuilder();
                        for (String metric : group.getValue()) {
                            try {
                                line.append(' ').append(metric).append('=').append(server.getAttribute(name, metric));
                            } catch (Exception absent) {
                                // a metric this client version lacks
                            }
                        }
                        String id = name.getKeyProperty("client-id") != null ? name.getKeyProperty("client-id")
                                : name.getKeyProperty("connector") + "/" + name.getKeyProperty("task");
                        lines.append(now).append(" ~").append(name.getKeyProperty("type")).append(' ')
                                .append(id.replace(' ', '_')).append(line).append('\n');
                    }
                }
                if (lines.length() > 0) {
                    try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                            StandardOpenOption.APPEND)) {
                        out.write(lines.toString());
                    }
                }
                Thread.sleep(500);
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException | javax.management.JMException e) {
                try {
                    Thread.sleep(2000);
                } catch (InterruptedException stop) {
                    return;
                }
            }
        }
    }
}
