package io.jetstream.kafka.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The source-site tasks' batching decisions as the bench sees them: {@link TaskMetricsAgent} loaded
 * once into each Connect worker JVM through the JDK's attach API, writing the tasks' metrics to
 * {@code task-metrics-<pid>.txt} in the work folder; this class parses that file for one connector
 * and a time window. Diagnostics only: where attaching fails (another JVM, no attach support) the
 * figures are absent and said so in the log, nothing else changes.
 */
public final class TaskMetricsReader {

    private static final Logger log = LoggerFactory.getLogger(TaskMetricsReader.class);

    /** One sample of one task. */
    record Sample(long epochMillis, String connector, String task, Map<String, Double> values) {
    }

    /**
     * What a connector's tasks decided in a window, over every sample of every task.
     *
     * @param samples              samples read
     * @param batchMaxRecordsMean  mean of {@code batch-max-records}
     * @param batchMaxRecordsMax   largest {@code batch-max-records}
     * @param lingerMsMean         mean of {@code batch-linger-seconds}, in ms
     */
    public record Decisions(int samples, Double batchMaxRecordsMean, Double batchMaxRecordsMax, Double lingerMsMean) {
    }

    private final Path workDir;
    private final Set<Long> attached = new HashSet<>();
    private Path agentJar;

    TaskMetricsReader(Path workDir) {
        this.workDir = workDir;
    }

    /** Loads the agent into the JVM {@code pid} unless it already runs there; false when that failed. */
    synchronized boolean attach(long pid) {
        if (attached.contains(pid)) {
            return true;
        }
        try {
            if (agentJar == null) {
                agentJar = writeAgentJar(workDir.resolve("task-metrics-agent.jar"));
            }
            com.sun.tools.attach.VirtualMachine vm = com.sun.tools.attach.VirtualMachine.attach(Long.toString(pid));
            try {
                vm.loadAgent(agentJar.toString(), file(pid).toString());
            } finally {
                vm.detach();
            }
            attached.add(pid);
            return true;
        } catch (Exception | LinkageError e) {
            log.warn("could not load the task metrics agent into pid {} (no batching decisions in the report): {}",
                    pid, e.toString());
            return false;
        }
    }

    Path file(long pid) {
        return workDir.resolve("task-metrics-" + pid + ".txt");
    }

    /** The connector's decisions between two wall-clock times, if the agent wrote samples for it. */
    Optional<Decisions> decisions(long pid, String connector, long fromMillis, long toMillis) {
        List<Sample> samples;
        try {
            samples = Files.exists(file(pid)) ? parse(Files.readAllLines(file(pid))) : List.of();
        } catch (IOException e) {
            return Optional.empty();
        }
        return summarize(samples.stream().filter(s -> s.connector().equals(connector)
                && s.epochMillis() >= fromMillis && s.epochMillis() <= toMillis).toList());
    }

    static List<Sample> parse(List<String> lines) {
        List<Sample> samples = new ArrayList<>();
        for (String line : lines) {
            String[] parts = line.trim().split(" ");
            if (parts.length < 4) {
                continue;
            }
            try {
                Map<String, Double> values = new HashMap<>();
                for (int i = 3; i < parts.length; i++) {
                    int eq = parts[i].indexOf('=');
                    if (eq > 0) {
                        values.put(parts[i].substring(0, eq), Double.parseDouble(parts[i].substring(eq + 1)));
                    }
                }
                samples.add(new Sample(Long.parseLong(parts[0]), parts[1], parts[2], values));
            } catch (NumberFormatException e) {
                // a line cut by a concurrent write
            }
        }
        return samples;
    }

    static Optional<Decisions> summarize(List<Sample> samples) {
        if (samples.isEmpty()) {
            return Optional.empty();
        }
        Double max = finite(samples.stream().mapToDouble(s -> s.values().getOrDefault("batch-max-records",
                Double.NaN)).filter(v -> !Double.isNaN(v)).max().orElse(Double.NaN));
        return Optional.of(new Decisions(samples.size(), mean(samples, "batch-max-records"), max,
                meanMillis(samples, "batch-linger-seconds")));
    }

    private static Double mean(List<Sample> samples, String metric) {
        return finite(samples.stream().mapToDouble(s -> s.values().getOrDefault(metric, Double.NaN))
                .filter(v -> !Double.isNaN(v) && !Double.isInfinite(v)).average().orElse(Double.NaN));
    }

    /** The mean of a metric in seconds, in milliseconds. */
    private static Double meanMillis(List<Sample> samples, String metric) {
        return finite(samples.stream().mapToDouble(s -> s.values().getOrDefault(metric, Double.NaN) * 1000)
                .filter(v -> !Double.isNaN(v) && !Double.isInfinite(v)).average().orElse(Double.NaN));
    }

    private static Double finite(double value) {
        return Double.isNaN(value) || Double.isInfinite(value) ? null : round(value);
    }

    private static double round(double value) {
        return Math.round(value * 1000) / 1000.0;
    }

    private static Path writeAgentJar(Path jar) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(new Attributes.Name("Agent-Class"), TaskMetricsAgent.class.getName());
        String entry = TaskMetricsAgent.class.getName().replace('.', '/') + ".class";
        Files.createDirectories(jar.toAbsolutePath().getParent());
        try (OutputStream file = Files.newOutputStream(jar);
             JarOutputStream out = new JarOutputStream(file, manifest);
             InputStream classBytes = TaskMetricsAgent.class.getClassLoader().getResourceAsStream(entry)) {
            if (classBytes == null) {
                throw new IOException("class file " + entry + " not found on the class path");
            }
            out.putNextEntry(new JarEntry(entry));
            classBytes.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }
}
